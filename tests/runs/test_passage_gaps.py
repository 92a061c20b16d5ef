"""A retrieving run's questions that got no passage are counted from its stored retrieve spans, and said in a line
that names the retriever's analyser (BM25 over Chinese text finds nothing: the analyser is why)."""

from __future__ import annotations

from playground.data.records import Question
from playground.programs.base import StepContext
from playground.retrieval.index import open_retriever
from playground.runs.passage_gaps import PassageGap, gap_text, passage_gaps, retriever_analyser
from playground.store.runs import create_run, save_result


def _answer(ws, run_id: str, retriever, question: Question) -> None:
    """Retrieve as a program does (its span recorded by StepContext) and store the result with its spans."""
    context = StepContext(workspace=ws, model=None, params=None, templates={}, retriever=retriever, corpus="tiny", k=2)  # type: ignore[arg-type]
    context.retrieve(question.text)
    rows = [span.to_row(run_id, question.id) for span in context.tracer.spans]
    save_result(ws, {"run_id": run_id, "question_id": question.id, "prediction": "x"}, rows)


def test_questions_without_a_passage_are_counted_per_run(tiny_workspace):
    ws = tiny_workspace
    retriever = open_retriever(ws, "tiny", "bm25")
    config = {"dataset": "tiny", "program": "rag", "retriever": "bm25", "retriever_params": {"stem": True}}
    run_id = create_run(ws, config, None)
    _answer(ws, run_id, retriever, Question(id="en", text="What is the capital of France?", answers=["Paris"]))
    _answer(ws, run_id, retriever, Question(id="zh", text="法国的首都是哪座城市？", answers=["巴黎"]))
    _answer(ws, run_id, retriever, Question(id="ja", text="フランスの首都はどこですか", answers=["パリ"]))
    closed_book = create_run(ws, {"dataset": "tiny", "program": "direct"}, None)
    save_result(ws, {"run_id": closed_book, "question_id": "en", "prediction": "x"}, [])

    gaps = passage_gaps(ws, [run_id, closed_book])
    assert gaps == {run_id: PassageGap(without=2, retrieving=3)}  # a run that never retrieves has no gap to report
    line = gap_text(gaps[run_id], retriever_analyser(config))
    assert line is not None and line.startswith("no passage retrieved for 2 of 3 question(s)")
    assert "bm25 analyser" in line and "Chinese" in line and "Snowball" in line


def test_a_run_where_every_question_got_a_passage_says_nothing(tiny_workspace):
    ws = tiny_workspace
    run_id = create_run(ws, {"dataset": "tiny", "program": "rag", "retriever": "bm25"}, None)
    _answer(ws, run_id, open_retriever(ws, "tiny", "bm25"), Question(id="q", text="capital of France", answers=[]))
    assert passage_gaps(ws, [run_id]) == {run_id: PassageGap(without=0, retrieving=1)}
    assert gap_text(passage_gaps(ws, [run_id])[run_id]) is None


def chinese_run(ws) -> str:
    """A finished bm25 run over the tiny corpus: one English question found passages, two CJK ones none."""
    from playground.store.runs import finish_run

    config = {"dataset": "tiny", "program": "rag", "retriever": "bm25", "retriever_params": {"stem": True}, "k": 2}
    run_id = create_run(ws, config, None, label="zh")
    retriever = open_retriever(ws, "tiny", "bm25")
    _answer(ws, run_id, retriever, Question(id="en", text="What is the capital of France?", answers=["Paris"]))
    _answer(ws, run_id, retriever, Question(id="zh", text="法国的首都是哪座城市？", answers=["巴黎"]))
    _answer(ws, run_id, retriever, Question(id="ja", text="フランスの首都はどこですか", answers=["パリ"]))
    finish_run(ws, run_id, "done", {})
    return run_id


def test_playground_runs_says_which_run_retrieved_nothing(tiny_workspace, capsys):
    import json

    from playground.cli import main

    run_id = chinese_run(tiny_workspace)
    assert main(["runs", "--db", str(tiny_workspace.path)]) == 0
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if "no passage retrieved" in line]
    assert line.startswith(f"run {run_id}: no passage retrieved for 2 of 3 question(s)") and "bm25 analyser" in line
    assert main(["runs", "--db", str(tiny_workspace.path), "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["no_passage"] == {"questions": 2, "retrieving": 3}
