"""More kinds of candidates, on planted landscapes (a real local HTTP server as proposer and task model): proposals
from the best so far (--rounds), bootstrapped demonstration subsets (--demos) and k or retriever (--vary)."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.optimize.candidates import demonstration_block, parse_vary, round_quotas, with_demonstrations
from playground.optimize.confirm import CONFIRMED
from playground.optimize.optimizer import SearchSettings, create_optimization, optimize
from playground.runs import RunConfig
from playground.store.datasets import save_dataset
from playground.store.optimizations import get_optimization
from playground.store.prompts import get_prompt_version
from playground.store.runs import get_run
from tests.optimize.landscape import PROPERTY, STEP, LandscapeServer, code_dataset, retrieval_dataset


@pytest.fixture
def codes(workspace):
    save_dataset(workspace, "codes", code_dataset())
    return workspace


@pytest.fixture
def landscape(request):
    server = LandscapeServer(request.param).start()
    yield server
    server.close()


def _search(workspace, server, dataset="codes", program="direct", k=5, **settings):
    config = RunConfig(dataset=dataset, program=program, model=server.spec("landscape"), k=k)
    return optimize(workspace, config, SearchSettings(**{"budget": 4, "seed": 0, **settings}))


def _held_out_never_proposed(workspace, server, report) -> None:
    splits = get_optimization(workspace, report["id"])["splits"]
    texts = {q.id: q.text for q in code_dataset().questions}
    shown = {qid for qid, text in texts.items() for prompt in server.proposer_prompts() if text in prompt}
    assert shown and shown <= set(splits["train"])


@pytest.mark.slow
@pytest.mark.parametrize("landscape", ["steps"], indirect=True)
def test_a_property_two_steps_away_is_found_by_proposing_from_the_best_so_far(codes, landscape):
    one_round = _search(codes, landscape)
    assert not any(PROPERTY in c["instruction"] for c in one_round["candidates"])
    assert one_round["confirmation"]["winner_mean"] < 1.0

    report = _search(codes, landscape, rounds=2)
    first, second = (
        [c for c in report["candidates"] if c["round"] == 1],
        [c for c in report["candidates"] if c["round"] == 2],
    )
    assert len(first) == 2 and len(second) == 2
    best = max(first, key=lambda c: c.get("validation") or -1)
    assert STEP in best["instruction"] and best["validation"] > report["start"]["validation"]
    assert all(c["parent"] == best["version"] for c in second)
    assert all(c["parent"] == report["start"]["version"] for c in first)
    assert get_prompt_version(codes, report["winner"]["version"])["parent"] == best["version"]
    assert PROPERTY in report["winner"]["instruction"] and report["verdict"] == CONFIRMED
    # round 2 proposed from the best's instruction and its own scored train answers (some right now)
    round_two = [p for p in landscape.proposer_prompts() if "Proposal 3:" in p or "Proposal 4:" in p][-2:]
    assert round_two and all(best["instruction"] in p and "[correct]" in p for p in round_two)
    stored = get_optimization(codes, report["id"])
    train_run = next(
        v["run_id"] for k, v in stored["evaluations"].items() if k.startswith("candidate") and "on train" in k
    )
    assert set(get_run(codes, train_run).config["question_ids"]) == set(stored["splits"]["train"])
    _held_out_never_proposed(codes, landscape, report)


@pytest.mark.slow
@pytest.mark.parametrize("landscape", ["demos"], indirect=True)
def test_a_demonstration_subset_bootstrapped_on_train_wins_when_the_answer_needs_one(codes, landscape):
    report = _search(codes, landscape, demos=2)
    splits = get_optimization(codes, report["id"])["splits"]
    kinds = [c["kind"] for c in report["candidates"]]
    assert kinds.count("demonstrations") == 2 and kinds.count("rewrite") == 2
    winner = next(c for c in report["candidates"] if c["index"] == report["winner"]["index"])
    assert winner["kind"] == "demonstrations" and len(winner["demonstrations"]) == 2
    assert set(winner["demonstrations"]) <= set(splits["train"])
    assert (
        all(qid in winner["note"] for qid in winner["demonstrations"]) and winner["demonstration_set"] in winner["note"]
    )
    assert "Answer: K" in get_prompt_version(codes, winner["version"])["content"]
    assert report["verdict"] == CONFIRMED and report["confirmation"]["winner_mean"] == 1.0
    _held_out_never_proposed(codes, landscape, report)


@pytest.mark.slow
@pytest.mark.parametrize("landscape", ["retrieval"], indirect=True)
def test_varying_k_finds_the_k_that_retrieves_the_answer(workspace, landscape):
    save_dataset(workspace, "secrets", retrieval_dataset())
    report = _search(workspace, landscape, dataset="secrets", program="rag", budget=3, vary={"k": [3, 5, 10]})
    variations = [c for c in report["candidates"] if c["kind"] == "variation"]
    assert [c["overrides"] for c in variations] == [{"k": 3}, {"k": 10}]
    assert report["start"]["validation"] == 0.0
    winner = next(c for c in report["candidates"] if c["index"] == report["winner"]["index"])
    assert winner["overrides"] == {"k": 10} and winner["validation"] == 1.0
    assert winner["version"] == report["start"]["version"]  # the same prompt, another k
    assert get_run(workspace, winner["validation_run"]).config["k"] == 10


def test_vary_is_refused_in_one_line_for_a_program_that_does_not_retrieve_or_an_unknown_retriever(codes):
    config = RunConfig(dataset="codes", program="direct", model="openai:x@http://127.0.0.1:9")
    with pytest.raises(PlaygroundError, match="program 'direct' does not retrieve"):
        create_optimization(codes, config, SearchSettings(budget=2, vary={"k": [3, 10]}))
    rag = RunConfig(dataset="codes", program="rag", model="openai:x@http://127.0.0.1:9")
    with pytest.raises(PlaygroundError, match="--vary retriever: unknown retriever 'bm99'"):
        create_optimization(codes, rag, SearchSettings(budget=2, vary={"retriever": ["bm25", "bm99"]}))
    with pytest.raises(PlaygroundError, match="cannot vary 'temperature'"):
        parse_vary(["temperature=0,1"])
    with pytest.raises(PlaygroundError, match="k must be whole numbers"):
        parse_vary(["k=3,x"])
    assert parse_vary(["k=3,5,10", "retriever=bm25,dense"]) == {"k": [3, 5, 10], "retriever": ["bm25", "dense"]}


def test_the_budget_is_spread_over_rounds_and_demonstrations_stay_literal_text():
    assert round_quotas(5, 1) == [5] and round_quotas(5, 2) == [3, 2] and round_quotas(2, 3) == [1, 1]
    with pytest.raises(PlaygroundError, match="--rounds must be at least 1"):
        round_quotas(5, 0)
    demos = [{"question_id": "q1", "question": "What is {{ x }}?\n### user", "answer": "K1"}]
    block = demonstration_block(demos)
    assert block.startswith("{% raw %}") and block.endswith("{% endraw %}")
    assert with_demonstrations("Answer.", []) == "Answer."
    assert with_demonstrations("Answer.", [{"question": "Q?", "answer": "A"}]) == (
        "Answer.\n\nExamples:\nQuestion: Q?\nAnswer: A"
    )
