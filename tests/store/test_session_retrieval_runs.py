"""A session's retrieval runs travel in its export (format version 4) and come back under new ids, comparable.

Retrieval runs are made by the real `eval-retrieval` path with bm25 over benchmark `tiny`, in session "study"
beside its answer runs; a bad file is refused with the record's path and leaves every table as it was.
"""

from __future__ import annotations

import copy
import json
import sqlite3

import pytest

from playground.cli import main
from playground.evaluation.retrieval import evaluate_retriever
from playground.store.retrieval_runs import get_retrieval_results, get_retrieval_run, list_retrieval_runs
from playground.store.schema import TABLES
from playground.sessionfile import (
    SECTIONS_V2,
    SECTIONS_V4,
    ImportLimits,
    SessionFormatError,
    export_session,
    import_session,
    records_digest,
    with_digest,
)
from playground.store.sessions import delete_session, get_session, new_session
from tests.conftest import tiny_dataset
from tests.store.test_sessions import empty_workspace, session_workspace  # noqa: F401 (fixtures)


def eval_retrieval(workspace, capsys, k: int) -> str:
    """One stored bm25 retrieval run over `tiny` in the current session, through the CLI; its id."""
    argv = [
        "eval-retrieval",
        "--dataset",
        "tiny",
        "--retriever",
        "bm25",
        "-k",
        str(k),
        "--db",
        str(workspace.path),
        "--json",
    ]
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["run_id"]


def everything(workspace) -> dict:
    """Every row of every declared table, for "the import changed nothing" checks."""
    return {
        t: sorted(json.dumps(dict(r), sort_keys=True) for r in workspace.db.query(f"SELECT * FROM {t}")) for t in TABLES
    }


def counts(workspace) -> dict:
    return {t: workspace.db[t].count for t in TABLES}


def retrieval_content(workspace, session_id: str) -> list[dict]:
    """A session's retrieval runs by k: config, metrics and per-question rows, without the run ids."""
    runs = [
        get_retrieval_run(workspace, r["id"])
        for r in workspace.db.query("SELECT id FROM retrieval_runs WHERE session_id = ?", [session_id])
    ]
    return sorted(
        (
            {
                "label": run["label"],
                "config": run["config"],
                "metrics": run["metrics"],
                "created_at": run["created_at"],
                "rows": [
                    {k: v for k, v in row.items() if k != "run_id"}
                    for row in get_retrieval_results(workspace, run["id"])
                ],
            }
            for run in runs
        ),
        key=lambda run: run["config"]["k"],
    )


@pytest.fixture
def retrieval_workspace(session_workspace, capsys):
    """Session "study" (answer runs, ratings) plus bm25 retrieval runs at k=1 and k=3; session "other" holds one
    more retrieval run, which study's export must leave out."""
    ws = session_workspace
    other = new_session(ws, "other", make_current=False)
    evaluate_retriever(ws, "tiny", "bm25", 2, None, 0, store=True, session_id=other["id"])
    eval_retrieval(ws, capsys, 1)
    eval_retrieval(ws, capsys, 3)
    return ws


@pytest.fixture
def exported(retrieval_workspace):
    return json.loads(json.dumps(export_session(retrieval_workspace, "study")))


def _source_ids(workspace) -> list[str]:
    """Study's retrieval run ids, narrow (k=1) first."""
    study = get_session(workspace, "study")["id"]
    runs = [
        get_retrieval_run(workspace, r["id"])
        for r in workspace.db.query("SELECT id FROM retrieval_runs WHERE session_id = ?", [study])
    ]
    return [run["id"] for run in sorted(runs, key=lambda run: run["config"]["k"])]


def _compare(db: str, capsys, run_ids: list[str]) -> dict:
    assert main(["compare", *run_ids, "--db", db, "--json", "--seed", "4", "--resamples", "300"]) == 0
    return json.loads(capsys.readouterr().out)


def test_export_holds_the_sessions_retrieval_runs_as_decoded_records(retrieval_workspace, exported):
    assert exported["version"] == 8
    assert sorted(run["id"] for run in exported["retrieval_runs"]) == sorted(_source_ids(retrieval_workspace))
    assert len(exported["retrieval_results"]) == 12 and len(exported["runs"]) == 2
    run = exported["retrieval_runs"][0]
    assert run["benchmark"] == "tiny" and run["config"]["retriever"] == "bm25" and isinstance(run["metrics"], dict)
    row = exported["retrieval_results"][0]
    assert isinstance(row["ranked_ids"], list) and isinstance(row["gold_ranks"], dict)
    assert set(row["metrics"]) == {"recall@k", "mrr@k", "ndcg@k", "hit@k", "answer_recall@k"}
    ranked = {pid for r in exported["retrieval_results"] for pid in r["ranked_ids"]}
    assert ranked <= {p["id"] for p in exported["benchmarks"][0]["passages"]}  # rankings readable as text
    assert records_digest(exported) == exported["digest"]


def test_round_trip_keeps_each_retrieval_run_under_a_new_id_and_compare_works(
    retrieval_workspace, empty_workspace, capsys, tmp_path
):
    source = retrieval_workspace
    study = get_session(source, "study")["id"]
    file = tmp_path / "study.json"
    exported = json.loads(_cli(capsys, "session", "export", "study", "-o", str(file), "--db", str(source.path)))
    assert (exported["retrieval_runs"], exported["retrieval_results"]) == (2, 12)
    imported = json.loads(_cli(capsys, "session", "import", str(file), "--db", str(empty_workspace.path)))
    assert (imported["retrieval_runs"], imported["retrieval_results"]) == (2, 12)
    new_id = imported["session_id"]

    assert retrieval_content(empty_workspace, new_id) == retrieval_content(source, study)
    narrow, wide = _source_ids(source)
    mapping = get_session(empty_workspace, new_id)["origin"]["retrieval_run_ids"]
    assert set(mapping) == {narrow, wide} and not set(mapping.values()) & {narrow, wide}
    assert {r["id"] for r in empty_workspace.db.query("SELECT id FROM retrieval_runs")} == set(mapping.values())

    before = _compare(str(source.path), capsys, [narrow, wide])
    after = _compare(str(empty_workspace.path), capsys, [mapping[narrow], mapping[wide]])
    assert after["kind"] == "retrieval" and after["n"] == 6
    assert (after["run_a"]["id"], after["run_b"]["id"]) == (mapping[narrow], mapping[wide])
    for key in ("metrics", "settings_diff", "question_ids", "n"):
        assert after[key] == before[key], key


def _cli(capsys, *argv) -> str:
    assert main([*argv, "--json"]) == 0
    return capsys.readouterr().out


def test_a_benchmark_imported_under_another_name_takes_its_retrieval_runs_along(exported, empty_workspace):
    from playground.store.datasets import save_dataset

    changed = tiny_dataset()
    changed.questions[0].text = "What is the capital of Italy?"
    save_dataset(empty_workspace, "tiny", changed)
    new_id = import_session(empty_workspace, exported)
    runs = list_retrieval_runs(empty_workspace, "tiny (imported)")
    assert len(runs) == 2 and {run["session_id"] for run in runs} == {new_id}
    assert {run["config"]["corpus"] for run in runs} == {"tiny (imported)"}
    assert list_retrieval_runs(empty_workspace, "tiny") == []


def test_a_tampered_retrieval_result_fails_the_digest(retrieval_workspace, exported):
    tampered = copy.deepcopy(exported)
    row = tampered["retrieval_results"][3]
    row["metrics"]["hit@k"] = 1.0 - row["metrics"]["hit@k"]
    before, rows = everything(retrieval_workspace), counts(retrieval_workspace)
    with pytest.raises(SessionFormatError, match=r"^digest: does not match the file's records"):
        import_session(retrieval_workspace, tampered)
    assert counts(retrieval_workspace) == rows and everything(retrieval_workspace) == before


def _break(payload: dict, mutate) -> dict:
    """A changed copy with its digest recomputed, so the change itself is what the import meets."""
    broken = copy.deepcopy(payload)
    mutate(broken)
    return with_digest(broken)


def _run_of_k(payload: dict, k: int) -> dict:
    return next(run for run in payload["retrieval_runs"] if run["config"]["k"] == k)


CASES = [
    (
        "dangling run_id",
        lambda p: p["retrieval_results"][3].update(run_id="feedface0000"),
        r"^retrieval_results\[3\]\.run_id: refers to retrieval run 'feedface0000', which is not in the file$",
    ),
    (
        "answer run's id",
        lambda p: p["retrieval_results"][0].update(run_id=p["runs"][0]["id"]),
        r"^retrieval_results\[0\]\.run_id: refers to retrieval run",
    ),
    (
        "another session",
        lambda p: p["retrieval_runs"][1].update(session_id="elsewhere"),
        r"^retrieval_runs\[1\]\.session_id: is 'elsewhere', not the file's session",
    ),
    (
        "ranked_ids not a list",
        lambda p: p["retrieval_results"][2].update(ranked_ids="p1,p2"),
        r"^retrieval_results\[2\]\.ranked_ids: expected a list of ids, got a string$",
    ),
    (
        "ranked id not a string",
        lambda p: p["retrieval_results"][2].update(ranked_ids=[7]),
        r"^retrieval_results\[2\]\.ranked_ids\[0\]: expected a string, got an integer$",
    ),
    (
        "ranked_ids null",
        lambda p: p["retrieval_results"][2].update(ranked_ids=None),
        r"^retrieval_results\[2\]\.ranked_ids: expected a list of ids, got null$",
    ),
    (
        "score not a number",
        lambda p: p["retrieval_results"][1]["scores"].__setitem__(0, "high"),
        r"^retrieval_results\[1\]\.scores\[0\]: expected a number, got a string$",
    ),
    (
        "a score missing",
        lambda p: p["retrieval_results"][1].update(scores=[]),
        r"^retrieval_results\[1\]\.scores: 0 scores for [1-3] ranked ids$",
    ),
    (
        "metric not a number",
        lambda p: p["retrieval_results"][4]["metrics"].update({"hit@k": "yes"}),
        r"^retrieval_results\[4\]\.metrics\['hit@k'\]: expected a number, got a string$",
    ),
    (
        "rank below 1",
        lambda p: p["retrieval_results"][0].update(gold_ranks={"p1": 0}),
        r"^retrieval_results\[0\]\.gold_ranks\['p1'\]: expected a rank \(1 or more\), got 0$",
    ),
    (
        "gold_ranks a list",
        lambda p: p["retrieval_results"][0].update(gold_ranks=[1]),
        r"^retrieval_results\[0\]\.gold_ranks: expected an object of ranks, got a list$",
    ),
    (
        "question twice",
        lambda p: p["retrieval_results"][1].update(question_id=p["retrieval_results"][0]["question_id"]),
        r"^retrieval_results\[1\]: duplicate of retrieval_results\[0\]",
    ),
    (
        "run id twice",
        lambda p: p["retrieval_runs"][1].update(id=p["retrieval_runs"][0]["id"]),
        r"^retrieval_runs\[1\]: duplicate of retrieval_runs\[0\]",
    ),
    (
        "benchmark not in the file",
        lambda p: p["retrieval_runs"][0].update(benchmark="nq"),
        r"^retrieval_runs\[0\]\.benchmark: refers to benchmark 'nq', which is not in the file$",
    ),
    (
        "benchmark not the config's",
        lambda p: _run_of_k(p, 3)["config"].update(dataset="other"),
        r"^retrieval_runs\[\d\]\.benchmark: is 'tiny', but config\.dataset is 'other'$",
    ),
    (
        "config not an object",
        lambda p: p["retrieval_runs"][0].update(config=["bm25"]),
        r"^retrieval_runs\[0\]\.config: expected an object, got a list$",
    ),
    (
        "section not a list",
        lambda p: p.update(retrieval_results={"q1": []}),
        r"^retrieval_results: expected a list, got an object$",
    ),
    ("missing version-4 section", lambda p: p.pop("retrieval_runs"), r"^retrieval_runs: missing$"),
]


@pytest.mark.parametrize("name,mutate,message", CASES, ids=[c[0] for c in CASES])
def test_malformed_retrieval_sections_fail_clearly_and_change_nothing(
    retrieval_workspace, exported, name, mutate, message
):
    broken = _break(exported, mutate)
    before, rows = everything(retrieval_workspace), counts(retrieval_workspace)
    with pytest.raises(SessionFormatError, match=message):
        import_session(retrieval_workspace, broken)
    assert counts(retrieval_workspace) == rows and everything(retrieval_workspace) == before


@pytest.mark.parametrize(
    "limits,message",
    [
        (ImportLimits(max_retrieval_runs=1), r"^retrieval_runs: 2 records, over the import limit of 1$"),
        (ImportLimits(max_retrieval_results=11), r"^retrieval_results: 12 records, over the import limit of 11$"),
        (
            ImportLimits(max_ranking_items=2),
            r"^retrieval_results\[\d+\]\.ranked_ids: 3 entries, over the import limit "
            r"of 2$",
        ),
    ],
    ids=["runs", "results", "ranking length"],
)
def test_over_cap_files_are_refused_and_change_nothing(retrieval_workspace, exported, limits, message):
    before, rows = everything(retrieval_workspace), counts(retrieval_workspace)
    with pytest.raises(SessionFormatError, match=message):
        import_session(retrieval_workspace, exported, limits=limits)
    assert counts(retrieval_workspace) == rows and everything(retrieval_workspace) == before


def test_a_failure_after_the_retrieval_rows_are_written_stores_nothing(retrieval_workspace, exported):
    """Retrieval runs are written in the import's one transaction: a later failure (the database refusing their
    rankings) takes them back with the rest."""
    retrieval_workspace.db.execute(
        "CREATE TRIGGER full_disk BEFORE INSERT ON retrieval_results BEGIN SELECT RAISE(ABORT, 'disk full'); END"
    )
    before, rows = everything(retrieval_workspace), counts(retrieval_workspace)
    with pytest.raises(sqlite3.IntegrityError, match="disk full"):
        import_session(retrieval_workspace, exported)
    assert counts(retrieval_workspace) == rows and everything(retrieval_workspace) == before


@pytest.mark.parametrize("version", [1, 2, 3])
def test_an_older_file_without_the_retrieval_sections_still_imports(exported, empty_workspace, version):
    old = copy.deepcopy(exported)
    old["version"] = version
    for section in SECTIONS_V4 + (SECTIONS_V2 if version == 1 else ()):
        old.pop(section)
    old = with_digest(old) if version == 3 else {k: v for k, v in old.items() if k != "digest"}
    new_id = import_session(empty_workspace, old)
    assert empty_workspace.db["runs"].count_where("session_id = ?", [new_id]) == 2
    assert (empty_workspace.db["retrieval_runs"].count, empty_workspace.db["retrieval_results"].count) == (0, 0)
    assert get_session(empty_workspace, new_id)["origin"]["retrieval_run_ids"] == {}


@pytest.mark.parametrize("foreign_keys", ["ON", "OFF"])
def test_deleting_a_session_deletes_its_retrieval_runs_and_keeps_others(retrieval_workspace, foreign_keys):
    """Deleted by name, not only by ON DELETE CASCADE, so a connection without foreign keys leaves no orphans."""
    ws = retrieval_workspace
    other = get_session(ws, "other")["id"]
    kept = [
        (run["id"], len(get_retrieval_results(ws, run["id"])))
        for run in list_retrieval_runs(ws)
        if run["session_id"] == other
    ]
    ws.db.execute(f"PRAGMA foreign_keys = {foreign_keys}")
    removed = delete_session(ws, "study")
    assert (removed["retrieval_runs"], removed["retrieval_results"]) == (2, 12)
    assert [(run["id"], len(get_retrieval_results(ws, run["id"]))) for run in list_retrieval_runs(ws)] == kept
    assert ws.db["retrieval_results"].count == 6
