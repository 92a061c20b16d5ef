"""What a session file carries is held to the rules the tool writes it by: a documents corpus's chunking as `data
list` reads it, ratings on their kind's scale, rating samples of answered questions and judged metrics, searches with
a known status, splits of their benchmark's questions and candidates built on earlier ones, runs with a known status,
generation parameters every reader can build (a run's, a judge's), and gold no longer than a ranking may be. Each is refused in one line naming the section and record, and nothing is
stored; the untouched file (the control) imports."""

from __future__ import annotations

import copy
import json
import re

import pytest

from playground.cli import main
from playground.store.datasets import list_datasets
from playground.sessionfile import SessionFormatError, export_session, import_session, with_digest
from playground.store.rating_samples import save_sample
from playground.store.schema import TABLES
from playground.store.sessions import get_session
from tests.store.test_session_judgments import add_judgments
from tests.store.test_sessions import empty_workspace, session_workspace  # noqa: F401 (fixtures)

CHUNKING = {
    "document_set": "a" * 64,
    "chunker": "tokens",
    "chunk_size": 128,
    "overlap": 16,
    "chunk_digest": "b" * 64,
    "n_documents": 2,
}


def with_search_and_chunking(payload: dict) -> dict:
    """The export with a prompt search over `tiny` from its first two prompt versions (candidates built on the start
    and on each other) and benchmark `tiny` read as a documents corpus's chunking; digest renewed."""
    payload = copy.deepcopy(payload)
    start, other = (v["id"] for v in payload["prompt_versions"][:2])
    payload["optimizations"] = [
        {
            "id": "search1",
            "session_id": payload["session"]["id"],
            "status": "done",
            "config": {
                "run": {"dataset": "tiny", "program": "direct", "params": {"temperature": 0.0}},
                "settings": {"budget": 2, "seed": 0, "split": [30, 40, 30]},
                "start_ref": f"qa@{start}",
                "proposal_ref": "propose@" + "c" * 64,
            },
            "splits": {"train": ["q1", "q2"], "validation": ["q3", "q4"], "test": ["q5", "q6"]},
            "start_version": start,
            "candidates": [
                {"index": 0, "version": start, "ref": f"qa@{start}"},
                {"index": 1, "version": other, "ref": f"qa@{other}", "parent": start},
                {"index": 2, "version": other, "ref": f"qa@{other}", "parent": other, "overrides": {"k": 3}},
            ],
            "benchmark": "tiny",
        }
    ]
    payload["benchmarks"][0]["corpus_metadata"] = dict(CHUNKING)
    return with_digest(payload)


def add_judged_sample(workspace) -> None:
    """A pointwise judge's judgments of the first run (by label) and a rating sample drawn from them."""
    run_ids = [r["id"] for r in workspace.db.query("SELECT id FROM runs ORDER BY label")]
    add_judgments(workspace, run_ids)
    save_sample(workspace, run_ids[0], "pointwise", 3, ["q1", "q2"])


@pytest.fixture
def exported(session_workspace):
    """The export of session "study" (two runs over `tiny`, a metric and a pairwise rating) with a pointwise judge's
    judgments of run 0, a rating sample drawn from them and a prompt search over `tiny` from its prompt versions."""
    add_judged_sample(session_workspace)
    return with_search_and_chunking(json.loads(json.dumps(export_session(session_workspace, "study"))))


def everything(workspace) -> dict:
    return {
        table: sorted(json.dumps(dict(row), sort_keys=True) for row in workspace.db.query(f"SELECT * FROM [{table}]"))
        for table in TABLES
    }


def test_the_untouched_file_imports_and_reads(exported, empty_workspace, capsys):
    """The control: every record the cases below break is valid as exported, and `data list` reads the chunking."""
    session_id = import_session(empty_workspace, exported)
    assert get_session(empty_workspace, session_id)["name"] == "study"
    assert empty_workspace.db["optimizations"].count == 1 and empty_workspace.db["rating_samples"].count == 1
    capsys.readouterr()
    assert main(["data", "list", "--db", str(empty_workspace.path)]) == 0
    assert "2 documents of set aaaaaaaa: tokens, 128 tokens, overlap 16" in capsys.readouterr().out


def test_a_benchmark_carries_its_language(session_workspace, empty_workspace):
    for table in ("corpora", "benchmarks"):
        session_workspace.db.execute(f"UPDATE {table} SET language = 'fr' WHERE name = 'tiny'")
    payload = json.loads(json.dumps(export_session(session_workspace, "study")))
    assert [b["language"] for b in payload["benchmarks"]] == ["fr"]
    import_session(empty_workspace, payload)
    listing = list_datasets(empty_workspace)
    assert [c["language"] for c in listing["corpora"]] == ["fr"] == [b["language"] for b in listing["benchmarks"]]


def _pointwise(value):
    def change(p):
        p["ratings"][0].update(kind="pointwise", metric=None, value=value)

    return change


def _spans(n: int, start: int = 0, width: int = 1):
    def change(p):
        metadata = p["benchmarks"][0]["questions"][0]["metadata"]
        metadata["gold_spans"] = [{"document": "a.md", "start": start + i, "end": start + i + width} for i in range(n)]

    return change


CASES = [
    (
        "corpus metadata without n_documents",
        lambda p: p["benchmarks"][0]["corpus_metadata"].pop("n_documents"),
        r"benchmarks[0].corpus_metadata.n_documents: missing",
    ),
    (
        "corpus metadata holding a string for a number",
        lambda p: p["benchmarks"][0]["corpus_metadata"].update(n_documents="2"),
        r"benchmarks[0].corpus_metadata.n_documents: expected an integer, got a string",
    ),
    (
        "corpus metadata holding a number for a string",
        lambda p: p["benchmarks"][0]["corpus_metadata"].update(document_set=7),
        r"benchmarks[0].corpus_metadata.document_set: expected a string, got an integer",
    ),
    (
        "a chunk size data import docs refuses",
        lambda p: p["benchmarks"][0]["corpus_metadata"].update(chunk_size=3),
        r"benchmarks[0].corpus_metadata.chunk_size: must be between 16 and 8,192 tokens, got 3",
    ),
    (
        "an overlap as long as the chunk",
        lambda p: p["benchmarks"][0]["corpus_metadata"].update(overlap=128),
        r"benchmarks[0].corpus_metadata.overlap: must be less than chunk_size (128), got 128",
    ),
    ("a pointwise rating of -5", _pointwise(-5), "ratings[0]: a pointwise rating is from 1 to 5, not -5"),
    ("a pointwise rating of 1e308", _pointwise(1e308), "ratings[0]: a pointwise rating is from 1 to 5, not 1e+308"),
    (
        "a metric rating above 1",
        lambda p: p["ratings"][0].update(value=1.5),
        "ratings[0]: a rating of faithfulness is a score from 0 to 1 (1 or 0 for a verdict), not 1.5",
    ),
    (
        "a pairwise rating that is no preference",
        lambda p: p["ratings"][1].update(value=0.7),
        "ratings[1]: a pairwise rating is 1 (run",
    ),
    (
        "a rating of a question the run did not answer",
        lambda p: p["ratings"][0].update(question_id="q99"),
        "ratings[0].question_id: run ",
    ),
    (
        "a rating sample of a question the run did not answer",
        lambda p: p["rating_samples"][0]["question_ids"].append("q99"),
        "rating_samples[0].question_ids[2]: run ",
    ),
    (
        "a rating sample of a metric never judged",
        lambda p: p["rating_samples"][0].update(metric="faithfulness"),
        "rating_samples[0].metric: run ",
    ),
    (
        "a search split holding a question its benchmark lacks",
        lambda p: p["optimizations"][0]["splits"]["validation"].append("q99"),
        "optimizations[0].splits.validation[2]: question 'q99' is not in benchmark 'tiny'",
    ),
    (
        "search candidates whose parents loop",
        lambda p: (
            p["optimizations"][0]["candidates"][1].update(parent=p["optimizations"][0]["candidates"][2]["version"])
            or p["optimizations"][0]["candidates"][2].update(version=p["optimizations"][0]["start_version"])
        ),
        "optimizations[0].candidates[1].parent: ",
    ),
    (
        "a search whose run settings are no object",
        lambda p: p["optimizations"][0]["config"].update(run=0.5),
        "optimizations[0].config.run: expected an object, got a number",
    ),
    (
        "a search's runs with a temperature out of range",
        lambda p: p["optimizations"][0]["config"]["run"]["params"].update(temperature=-3),
        "optimizations[0].config.run.params: temperature must be",
    ),
    (
        "a search with a bogus status",
        lambda p: p["optimizations"][0].update(status="exploded"),
        "optimizations[0].status: expected one of running, done, stopped, failed, interrupted, got 'exploded'",
    ),
    (
        "a run with a bogus status",
        lambda p: p["runs"][1].update(status="exploded"),
        "runs[1].status: expected one of running, stopped, failed, done, interrupted, got 'exploded'",
    ),
    (
        "a run's stop sequences that are no list",
        lambda p: p["runs"][1]["config"]["params"].update(stop=-1),
        "runs[1].config.params.stop: expected a list of strings",
    ),
    (
        "a run's temperature out of range",
        lambda p: p["runs"][1]["config"]["params"].update(temperature=99),
        "runs[1].config.params: temperature must be",
    ),
    (
        "a judge's unknown generation parameter",
        lambda p: p["judges"][0]["params"].update(beam_width=4),
        "judges[0].params: unknown generation parameter(s) beam_width",
    ),
    (
        "100k gold spans on one question",
        _spans(100_000),
        "benchmarks[0].questions[0].metadata.gold_spans: 100000 entries, over the import limit of 10000",
    ),
    (
        "a gold span that ends before it starts",
        _spans(1, start=5, width=-2),
        "benchmarks[0].questions[0].metadata.gold_spans[0]: start 5 is not before end 3",
    ),
    (
        "a gold span without its document",
        lambda p: _spans(1)(p) or p["benchmarks"][0]["questions"][0]["metadata"]["gold_spans"][0].pop("document"),
        "benchmarks[0].questions[0].metadata.gold_spans[0].document: missing",
    ),
    (
        "a language that is no ISO 639-1 code",
        lambda p: p["benchmarks"][0].update(language="klingon"),
        "benchmarks[0].language: 'klingon' is not an ISO 639-1 language code",
    ),
    (
        "more gold passage ids than a ranking may hold",
        lambda p: p["benchmarks"][0]["questions"][0].update(gold_passage_ids=[f"p{i}" for i in range(10_001)]),
        "benchmarks[0].questions[0].gold_passage_ids: 10001 entries, over the import limit of 10000",
    ),
]


@pytest.mark.parametrize("change,message", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_record_the_tool_would_not_write_is_refused_and_nothing_is_stored(exported, empty_workspace, change, message):
    payload = copy.deepcopy(exported)
    change(payload)
    before = everything(empty_workspace)
    with pytest.raises(SessionFormatError) as refused:
        import_session(empty_workspace, with_digest(payload))
    assert re.match(re.escape(message), str(refused.value)), str(refused.value)
    assert "\n" not in str(refused.value)
    assert everything(empty_workspace) == before
