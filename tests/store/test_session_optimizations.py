"""A session's prompt searches travel in its export (format version 7): splits, candidates and the held-out
confirmation come back under new ids, their runs and prompt versions with them; a file whose search contradicts
itself is refused with the record's path and leaves the workspace as it was.

The search is a real one (playground.optimize) over the planted landscape on a real local HTTP server."""

from __future__ import annotations

import copy

import pytest

from playground.optimize.optimizer import SearchSettings, optimize
from playground.runs import RunConfig
from playground.store.datasets import load_questions, save_dataset
from playground.store.optimizations import list_optimizations
from playground.store.prompts import get_prompt_version
from playground.sessionfile import SECTIONS_V7, SessionFormatError, export_session, import_session, with_digest
from playground.store.sessions import current_session
from tests.optimize.landscape import LandscapeServer, code_dataset
from tests.store.test_sessions import empty_workspace  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow

RUN_KEYS = ("validation_run", "start_run", "winner_run", "run_id")


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    """(the export of the session holding one finished search, the search as stored), searched once per module."""
    from playground.store import open_workspace

    workspace = open_workspace(tmp_path_factory.mktemp("searched") / "sessions" / "playground.db")
    try:
        save_dataset(workspace, "codes", code_dataset(30))
        server = LandscapeServer("property").start()
        try:
            config = RunConfig(dataset="codes", program="direct", model=server.spec("landscape"))
            optimize(workspace, config, SearchSettings(budget=3, seed=0))
        finally:
            server.close()
        [search] = list_optimizations(workspace)
        return export_session(workspace, current_session(workspace)["id"]), search
    finally:
        workspace.close()


@pytest.fixture
def exported(searched):
    """A copy of the module's search and its export, for a test to import or change."""
    return copy.deepcopy(searched)


def _runs_named(value) -> set[str]:
    """Every run id a search's candidates, evaluations and report name."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(v for k, v in item.items() if k in RUN_KEYS and isinstance(v, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def test_a_search_round_trips_with_its_splits_candidates_and_confirmation(exported, empty_workspace):
    payload, search = exported
    assert payload["version"] == 8 and len(payload["optimizations"]) == 1
    new_session = import_session(empty_workspace, payload)
    [imported] = list_optimizations(empty_workspace, new_session)
    assert imported["id"] != search["id"] and imported["status"] == "done"
    assert imported["splits"] == search["splits"]
    assert imported["start_version"] == search["start_version"]
    assert [c["version"] for c in imported["candidates"]] == [c["version"] for c in search["candidates"]]
    assert [c["note"] for c in imported["candidates"]] == [c["note"] for c in search["candidates"]]
    report, original = imported["report"], search["report"]
    assert report["verdict"] == original["verdict"] and report["winner"] == original["winner"]
    for key in ("held_out_gain", "ci95", "p_value", "validation_gain", "gap"):
        assert report["confirmation"][key] == original["confirmation"][key]
    for candidate in imported["candidates"]:  # every candidate's version came along
        assert get_prompt_version(empty_workspace, candidate["version"])["id"] == candidate["version"]
    named = _runs_named([imported["candidates"], imported["evaluations"], imported["report"]])
    stored = {r["id"] for r in empty_workspace.db.query("SELECT id FROM runs WHERE session_id = ?", [new_session])}
    assert named and named <= stored, "every run the search names is an imported run of the new session"
    assert not named & _runs_named([search["candidates"], search["report"]]), "the runs are under new ids"
    questions = {q.id for q in load_questions(empty_workspace, "codes")}
    assert {q for ids in imported["splits"].values() for q in ids} <= questions


def _refused(workspace, payload, where: str) -> None:
    before = workspace.db["optimizations"].count
    with pytest.raises(SessionFormatError, match=rf"^{where}"):
        import_session(workspace, with_digest(payload))
    assert workspace.db["optimizations"].count == before and workspace.db["runs"].count == 0


def test_a_search_whose_splits_overlap_or_whose_candidate_is_missing_is_refused(exported, empty_workspace):
    payload, _ = exported
    overlapping = copy.deepcopy(payload)
    splits = overlapping["optimizations"][0]["splits"]
    splits["test"][0] = splits["train"][0]
    _refused(empty_workspace, overlapping, re_escape("optimizations[0].splits.test[0]"))

    missing = copy.deepcopy(payload)
    missing["optimizations"][0]["candidates"][1]["version"] = "f" * 64
    _refused(empty_workspace, missing, re_escape("optimizations[0].candidates[1].version"))

    unsplit = copy.deepcopy(payload)
    del unsplit["optimizations"][0]["splits"]["test"]
    _refused(empty_workspace, unsplit, re_escape("optimizations[0].splits"))


def test_an_older_file_without_searches_still_imports(exported, empty_workspace):
    payload, _ = exported
    old = {k: v for k, v in copy.deepcopy(payload).items() if k not in SECTIONS_V7}
    old["version"] = 6
    new_session = import_session(empty_workspace, with_digest(old))
    assert list_optimizations(empty_workspace, new_session) == []


def re_escape(text: str) -> str:
    import re

    return re.escape(text)
