"""The prompt search end to end on planted landscapes (a real local HTTP server as proposer and task model)."""

from __future__ import annotations

import pytest

from playground.optimize.confirm import CONFIRMED, NO_WINNER, NOT_HELD
from playground.optimize.optimizer import NO_INSTRUCTION, SearchSettings, optimize
from playground.runs import RunConfig
from playground.store.datasets import save_dataset
from playground.store.optimizations import get_optimization
from playground.store.prompts import get_prompt_version
from tests.optimize.landscape import PROPERTY, LandscapeServer, code_dataset

pytestmark = pytest.mark.slow


def _search(workspace, server, seed=0, budget=5, **settings):
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    return optimize(workspace, config, SearchSettings(budget=budget, seed=seed, **settings))


@pytest.fixture
def codes(workspace):
    save_dataset(workspace, "codes", code_dataset())
    return workspace


@pytest.fixture
def property_server():
    server = LandscapeServer("property").start()
    yield server
    server.close()


@pytest.fixture(scope="module")
def property_search(tmp_path_factory):
    """One search (seed 0, budget 5) on the "property" landscape, for the tests that read its report: the workspace,
    the server, the report, and the proposer's prompts as the search left them."""
    from playground.store import open_workspace

    workspace = open_workspace(tmp_path_factory.mktemp("property") / "sessions" / "playground.db")
    save_dataset(workspace, "codes", code_dataset())
    server = LandscapeServer("property").start()
    try:
        report = _search(workspace, server)
        yield workspace, server, report, server.proposer_prompts()
    finally:
        server.close()
        workspace.close()


@pytest.fixture
def random_server():
    server = LandscapeServer("random").start()
    yield server
    server.close()


def test_a_planted_property_is_found_confirmed_and_named(property_search):
    codes, _, report, _ = property_search
    assert report["splits"] == {"train": 18, "validation": 24, "test": 18}
    assert PROPERTY in report["winner"]["instruction"]
    assert report["winner"]["note"].startswith("answers failure on train question c")
    confirmation = report["confirmation"]
    assert report["verdict"] == CONFIRMED and confirmation["p_value"] < 0.05
    assert confirmation["start_mean"] == 0.0 and confirmation["winner_mean"] == 1.0
    assert confirmation["validation_gain"] == 1.0 and confirmation["gap"] == 0.0
    assert len(report["candidates"]) == 5
    winner = get_prompt_version(codes, report["winner"]["version"])
    assert winner["parent"] == report["start"]["version"] and winner["message"] == report["winner"]["note"]
    assert PROPERTY in winner["content"]
    # only promising candidates reach the whole validation split
    assert sum(1 for c in report["candidates"] if c.get("validation") is not None) < len(report["candidates"])
    stored = get_optimization(codes, report["id"])
    assert stored["status"] == "done" and stored["report"]["verdict"] == CONFIRMED
    assert sorted(stored["splits"]) == ["test", "train", "validation"]


def test_the_held_out_questions_never_reach_the_proposer(property_search):
    codes, _, report, proposer = property_search
    splits = get_optimization(codes, report["id"])["splits"]
    questions = {q.id: q.text for q in code_dataset().questions}
    assert len(proposer) == 5
    shown = {qid for qid, text in questions.items() for prompt in proposer if text in prompt}
    assert shown and shown <= set(splits["train"])
    assert not shown & (set(splits["test"]) | set(splits["validation"]))


def test_random_correctness_picks_a_validation_winner_that_does_not_hold(codes, random_server):
    report = _search(codes, random_server, budget=6)
    confirmation = report["confirmation"]
    assert report["winner"]["index"] > 0 and confirmation["validation_gain"] > 0
    assert report["verdict"] == NOT_HELD
    assert confirmation["gap"] == pytest.approx(confirmation["validation_gain"] - confirmation["held_out_gain"])
    assert confirmation["gap"] > 0


def test_the_same_seed_gives_the_same_candidates_and_choice_from_the_cache(property_search):
    codes, property_server, first, _ = property_search
    calls = len(property_server.requests)
    again = _search(codes, property_server)
    assert [c["version"] for c in again["candidates"]] == [c["version"] for c in first["candidates"]]
    assert again["winner"]["version"] == first["winner"]["version"]
    assert again["cost"]["calls"] == 0 and len(property_server.requests) == calls
    other = _search(codes, property_server, seed=1)
    assert other["splits"] == first["splits"]
    assert get_optimization(codes, other["id"])["splits"] != get_optimization(codes, first["id"])["splits"]


def test_a_budget_of_model_calls_stops_the_search_early(codes, property_server):
    report = _search(codes, property_server, max_calls=60)
    assert report["stopped"] == "the budget of 60 model calls is spent"
    assert not any(c.get("validation") is not None for c in report["candidates"])
    assert report["verdict"] == "no candidate beat the starting prompt on validation"
    assert report["confirmation"]["verdict"]  # a stopped search still ends with its held-out confirmation


def test_a_proposer_that_never_answers_in_json_ends_the_search_with_its_reason_recorded(codes):
    server = LandscapeServer("prose").start()
    try:
        report = _search(codes, server, budget=2)
    finally:
        server.close()
    assert report["candidates"] == [] and report["verdict"] == NO_WINNER
    assert report["reason"] == f"no candidate was proposed: 2 proposal(s) skipped ({NO_INSTRUCTION})"
    assert [s["proposal"] for s in report["skipped"]] == [1, 2]
    assert report["skipped"][0]["reply"].startswith("You could make the instruction clearer")
    stored = get_optimization(codes, report["id"])
    assert stored["status"] == "done" and stored["report"]["reason"] == report["reason"]
