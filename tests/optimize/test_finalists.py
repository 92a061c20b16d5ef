"""Several finalists confirmed on held-out questions: Holm's adjustment checked by hand, and a planted landscape where
one rewrite gets lucky on validation and two carry the property (a real local HTTP server as proposer and model)."""

from __future__ import annotations

import pytest

from playground.optimize.confirm import CONFIRMED, NOT_HELD
from playground.optimize.finalists import adjust, choose_finalists, pick_winner
from playground.optimize.optimizer import SearchSettings, create_optimization, execute
from playground.runs import RunConfig
from playground.store.datasets import save_dataset
from playground.store.optimizations import get_optimization
from tests.optimize.landscape import HALF, LUCKY, PROPERTY, LandscapeServer, code_dataset, validation_codes


def _confirmation(gain: float, p_value: float) -> dict:
    return {"metric": "em", "held_out_gain": gain, "p_value": p_value, "verdict": "unset"}


def test_holm_adjusts_the_finalists_p_values_as_one_family_worked_by_hand():
    # sorted: 0.005 (x4 = 0.02), 0.01 (x3 = 0.03), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04, raised to the running 0.06)
    confirmations = adjust(
        [_confirmation(0.2, 0.01), _confirmation(0.1, 0.04), _confirmation(0.3, 0.03), _confirmation(-0.2, 0.005)]
    )
    assert [c["p_adjusted"] for c in confirmations] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert all(c["finalists"] == 4 for c in confirmations)
    # 0.04 and 0.03 alone would be confirmed; adjusted they are not; a significant loss is never confirmed
    assert [c["verdict"] for c in confirmations] == [CONFIRMED, NOT_HELD, NOT_HELD, NOT_HELD]
    assert pick_winner([{}] * 4, confirmations) == 0
    alone = adjust([_confirmation(0.1, 0.04)])
    assert alone[0]["p_adjusted"] == 0.04 and alone[0]["verdict"] == CONFIRMED  # one finalist: today's verdict


def test_the_winner_is_the_confirmed_finalist_with_the_largest_held_out_gain_else_the_validation_winner():
    confirmations = adjust([_confirmation(0.1, 0.001), _confirmation(0.5, 0.001), _confirmation(0.7, 0.5)])
    assert [c["verdict"] for c in confirmations] == [CONFIRMED, CONFIRMED, NOT_HELD]
    assert pick_winner([{}] * 3, confirmations) == 1
    assert pick_winner([{}] * 2, adjust([_confirmation(0.1, 0.5), _confirmation(0.2, 0.4)])) == 0
    assert pick_winner([], []) is None


def test_finalists_are_the_best_on_whole_validation_among_those_that_beat_the_start():
    candidates = [
        {"index": 1, "validation": 0.5},
        {"index": 2, "validation": 0.9},
        {"index": 3},  # dropped before the whole validation split
        {"index": 4, "validation": 0.9},
        {"index": 5, "validation": 0.2},  # no better than the start
    ]
    assert [c["index"] for c in choose_finalists(candidates, 0.2, 3)] == [2, 4, 1]
    assert [c["index"] for c in choose_finalists(candidates, 0.2, 1)] == [2]
    assert choose_finalists(candidates, 0.95, 3) == []


@pytest.fixture
def finalists_search(workspace):
    """search(finalists) -> the report of a search on the "finalists" landscape, its lucky rewrite right on exactly
    the validation questions."""
    save_dataset(workspace, "codes", code_dataset())
    server = LandscapeServer("finalists").start()
    server.lucky = validation_codes(seed=2)

    def search(finalists: int) -> dict:
        config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
        settings = SearchSettings(budget=5, seed=2, finalists=finalists)
        optimization_id = create_optimization(workspace, config, settings)
        validation = get_optimization(workspace, optimization_id)["splits"]["validation"]
        assert {f"K{int(q[1:]):04d}" for q in validation} == server.lucky
        return execute(workspace, optimization_id)

    yield search
    server.close()


@pytest.mark.slow
def test_finalists_find_the_property_where_the_lucky_validation_winner_does_not_hold(finalists_search):
    single = finalists_search(1)
    assert single["winner"]["instruction"] == LUCKY and single["verdict"] == NOT_HELD
    assert [f["index"] for f in single["finalists"]] == [1] and single["finalists"][0]["p_adjusted"] == pytest.approx(
        single["finalists"][0]["p_value"]
    )

    report = finalists_search(3)
    finalists = report["finalists"]
    by_instruction = {c["index"]: c["instruction"] for c in report["candidates"]}
    assert by_instruction[finalists[0]["index"]] == LUCKY  # the validation winner (ties: the earlier) is a finalist
    assert all(PROPERTY in by_instruction[f["index"]] for f in finalists[1:])
    assert report["validation_winner"] == finalists[0]["index"] and report["finalists_asked"] == 3
    lucky, full, half = finalists
    assert by_instruction[full["index"]] != HALF and by_instruction[half["index"]] == HALF
    assert [f["verdict"] for f in finalists] == [NOT_HELD, CONFIRMED, NOT_HELD]
    for finalist in finalists:
        assert finalist["p_adjusted"] >= finalist["p_value"] and finalist["ci95"] and finalist["held_out_run"]
    assert lucky["held_out_gain"] == 0.0 and lucky["gap"] == 1.0  # right on every validation question, none after
    assert full["held_out_gain"] == 1.0 and full["p_adjusted"] == pytest.approx(3 * full["p_value"])
    # the even-numbered codes only: a gain whose raw p-value alone would confirm it, and Holm's does not
    assert 0 < half["held_out_gain"] < 1 and half["p_value"] < 0.05 <= half["p_adjusted"]
    assert half["p_adjusted"] == pytest.approx(2 * half["p_value"])
    assert report["winner"]["index"] == full["index"] and report["verdict"] == CONFIRMED
    confirmation = report["confirmation"]
    assert confirmation["finalists"] == 3 and confirmation["p_adjusted"] == full["p_adjusted"]
    assert confirmation["winner_run"] == full["held_out_run"]


@pytest.mark.slow
def test_a_search_stopped_while_confirming_its_finalists_resumes_to_the_same_verdicts(tmp_path):
    from playground.optimize.optimizer import resume_optimization
    from playground.store import open_workspace
    from playground.store.optimizations import request_stop

    server = LandscapeServer("finalists").start()
    server.lucky = validation_codes(seed=2)
    config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
    settings = SearchSettings(budget=5, seed=2, finalists=3)
    workspaces = []
    try:
        for name in ("whole", "stopped"):
            workspaces.append(open_workspace(tmp_path / f"{name}.db"))
            save_dataset(workspaces[-1], "codes", code_dataset())
        whole_ws, workspace = workspaces
        whole = execute(whole_ws, create_optimization(whole_ws, config, settings))
        optimization_id = create_optimization(workspace, config, settings)
        server.requests.clear()
        stop_at = whole["cost"]["calls"] - 10  # the last finalist's held-out run

        asked: list[int] = []

        def hook(n: int) -> None:  # requests arrive several at a time: the first to see the count asks, once
            if n >= stop_at and not asked:
                asked.append(n)
                other = open_workspace(workspace.path)
                request_stop(other, optimization_id)
                other.close()

        server.hook = hook
        assert execute(workspace, optimization_id)["status"] == "stopped"
        server.hook = None
        resumed = resume_optimization(workspace, optimization_id)
    finally:
        server.close()
        for opened in workspaces:
            opened.close()
    keys = ("index", "validation", "held_out_gain", "p_value", "p_adjusted", "verdict")
    assert [{k: f[k] for k in keys} for f in resumed["finalists"]] == [
        {k: f[k] for k in keys} for f in whole["finalists"]
    ]
    assert resumed["winner"]["version"] == whole["winner"]["version"] and resumed["verdict"] == CONFIRMED
    assert resumed["cost"]["calls"] == whole["cost"]["calls"]
