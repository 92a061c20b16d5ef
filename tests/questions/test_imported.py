"""`data import questions FILE --corpus NAME`: your questions, with their evidence found in your documents and stored
as gold spans, scored by `eval-retrieval` by span overlap; each bad line is one error naming it, and stores nothing.

The documents are imported for real (tests/span_documents.py: write_documents and `data import docs`); the
question files are real JSONL and CSV files in tmp_path.
"""

import csv
import json
import shutil
from pathlib import Path

import pytest

from playground import PlaygroundError
from playground.cli import main
from playground.data.records import Dataset, Passage, Question
from playground.evaluation.retrieval import evaluate_retriever
from playground.evaluation.span_gold import document_set
from playground.store.datasets import load_passages, load_questions, save_dataset
from playground.store import open_workspace
from playground.store.documents import document_text
from tests.span_documents import ENTRY_POINT, QUOTA, write_documents

TYPO_QUOTE = "To cap its size, set the varible TOOLKIT_CACHE_QUOTA to a number of megabites"  # two letters off


@pytest.fixture(scope="module")
def guide_workspace_file(tmp_path_factory) -> Path:
    """A closed workspace holding the guide documents imported as documents corpus "guide", made once per module."""
    root = tmp_path_factory.mktemp("guide")
    folder = write_documents(root / "docs")
    path = root / "sessions" / "playground.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PLAYGROUND_INDEXES", raising=False)
        assert main(["--db", str(path), "data", "import", "docs", str(folder), "--name", "guide"]) == 0
    return path


@pytest.fixture
def docs(guide_workspace_file, tmp_path, monkeypatch):
    """The guide documents imported as documents corpus "guide" (a copy of the module's import, the documents
    written in tmp_path as well)."""
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    write_documents(tmp_path / "docs")
    path = tmp_path / "sessions" / "playground.db"
    path.parent.mkdir(parents=True)
    shutil.copyfile(guide_workspace_file, path)
    workspace = open_workspace(path)
    yield workspace
    workspace.close()


def cli(workspace, *args) -> int:
    return main(["--db", str(workspace.path), *args])


def write_jsonl(path, records) -> str:
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return str(path)


def text_of(workspace, path: str) -> str:
    return document_text(workspace, document_set(workspace, "guide"), path)


def test_jsonl_exact_fuzzy_and_offset_evidence_become_gold_spans(docs, tmp_path):
    cache = text_of(docs, "guide/cache.md")
    start = text_of(docs, "guide/plugins.md").index(ENTRY_POINT)
    file = write_jsonl(
        tmp_path / "mine.jsonl",
        [
            {"question": "Which variable caps the cache?", "answers": ["TOOLKIT_CACHE_QUOTA"],
             "document": "guide/cache.md", "quote": QUOTA},
            {"question": "How is the cache capped?", "answers": "TOOLKIT_CACHE_QUOTA",
             "document": "guide/cache.md", "quote": TYPO_QUOTE},
            {"id": "entry", "question": "Which group do plugins declare?", "answers": ["toolkit.plugins"],
             "document": "guide/plugins.md", "start": start, "end": start + len(ENTRY_POINT)},
        ],
    )  # fmt: skip
    assert cli(docs, "data", "import", "questions", file, "--corpus", "guide") == 0
    questions = {q.id: q for q in load_questions(docs, "mine")}
    assert set(questions) == {"q-0001", "q-0002", "entry"}
    exact = questions["q-0001"].metadata["gold_spans"][0]
    assert cache[exact["start"] : exact["end"]] == QUOTA
    fuzzy = questions["q-0002"].metadata["gold_spans"][0]
    assert cache[fuzzy["start"] : fuzzy["end"]] == QUOTA  # the words the quote misspells, found where they are
    assert questions["q-0002"].metadata["evidence"]["quote"] == "fuzzy"
    assert questions["q-0002"].answers == ["TOOLKIT_CACHE_QUOTA"]
    assert questions["entry"].metadata["gold_spans"] == [
        {"document": "guide/plugins.md", "start": start, "end": start + len(ENTRY_POINT)}
    ]
    overlapping = [p.id for p in load_passages(docs, "guide") if p.metadata["document"] == "guide/cache.md"]
    assert questions["q-0001"].gold_passage_ids and set(questions["q-0001"].gold_passage_ids) <= set(overlapping)


def test_csv_with_quotes_offsets_and_list_answers(docs, tmp_path):
    start = text_of(docs, "guide/plugins.md").index(ENTRY_POINT)
    file = tmp_path / "sheet.csv"
    with file.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "answers", "document", "quote", "start", "end"])
        writer.writerow(["Which variable caps\nthe cache?", '["TOOLKIT_CACHE_QUOTA", "the quota"]',
                         "guide/cache.md", QUOTA, "", ""])  # fmt: skip
        writer.writerow(["Which group?", "toolkit.plugins", "guide/plugins.md", "", start, start + len(ENTRY_POINT)])
    assert cli(docs, "data", "import", "questions", str(file), "--corpus", "guide", "--name", "sheet") == 0
    first, second = load_questions(docs, "sheet")
    assert first.text == "Which variable caps\nthe cache?" and first.answers == ["TOOLKIT_CACHE_QUOTA", "the quota"]
    assert first.metadata["line"] == 2 and second.metadata["line"] == 4  # a quoted line break is one record
    assert second.metadata["gold_spans"][0]["start"] == start


def test_passage_ids_on_a_benchmark_corpus(workspace, tmp_path):
    passages = [Passage("p1", "Paris", "Paris is the capital of France."), Passage("p2", "Rome", "Rome is in Italy.")]
    save_dataset(workspace, "cities", Dataset("jsonl", "test", passages, []))
    file = write_jsonl(tmp_path / "q.jsonl", [{"question": "Capital of France?", "answers": ["Paris"],
                                              "passage_ids": ["p1"]}])  # fmt: skip
    assert cli(workspace, "data", "import", "questions", file, "--corpus", "cities", "--name", "capitals") == 0
    (question,) = load_questions(workspace, "capitals")
    assert question.gold_passage_ids == ["p1"] and "gold_spans" not in question.metadata


GOOD = {"question": "Which variable caps the cache?", "answers": ["TOOLKIT_CACHE_QUOTA"], "document": "guide/cache.md",
        "quote": QUOTA}  # fmt: skip
WITHOUT_QUOTE = {key: value for key, value in GOOD.items() if key != "quote"}


@pytest.mark.parametrize(
    "bad, problem",
    [
        ({**GOOD, "quote": "a sentence no document holds anywhere at all"}, "is not in document 'guide/cache.md'"),
        ({**GOOD, "document": "guide/missing.md"}, "document 'guide/missing.md' is not in corpus 'guide'"),
        ({**WITHOUT_QUOTE, "start": 5, "end": 10**6}, "'start' and 'end' must be whole numbers"),
        ({"answers": ["x"], "document": "guide/cache.md", "quote": QUOTA}, "field 'question'"),
        ({**GOOD, "answers": [1]}, "field 'answers'"),
        ({key: value for key, value in GOOD.items() if key != "document"}, "no evidence"),
        ({**WITHOUT_QUOTE, "passage_ids": ["guide/none#1"]}, "passage 'guide/none#1' is not in corpus"),
        ("not json at all", "invalid JSON"),
    ],
)
def test_a_bad_line_is_one_error_naming_it_and_nothing_is_stored(docs, tmp_path, capsys, bad, problem):
    file = tmp_path / "bad.jsonl"
    line = bad if isinstance(bad, str) else json.dumps(bad)
    file.write_text(json.dumps(GOOD) + "\n\n" + line + "\n", encoding="utf-8")
    assert cli(docs, "data", "import", "questions", str(file), "--corpus", "guide") != 0
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "line 3" in error[0] and problem in error[0], error
    assert load_questions_or_none(docs, "bad") is None  # the good first line is not stored either


def test_a_bad_csv_line_is_named(docs, tmp_path, capsys):
    file = tmp_path / "bad.csv"
    file.write_text(f'question,answers,document,quote\nok?,x,guide/cache.md,"{QUOTA}"\nno?,x,guide/nope.md,q\n')
    assert cli(docs, "data", "import", "questions", str(file), "--corpus", "guide") != 0
    error = capsys.readouterr().err.strip()
    assert "line 3" in error and "guide/nope.md" in error
    file.write_text(f"question,answers,document,quote\nok?,x,guide/cache.md,{QUOTA}\n")  # the quote's comma, unquoted
    assert cli(docs, "data", "import", "questions", str(file), "--corpus", "guide") != 0
    assert "line 2: more cells than the header names" in capsys.readouterr().err
    assert load_questions_or_none(docs, "bad") is None


def load_questions_or_none(workspace, name):
    try:
        return load_questions(workspace, name) or None
    except PlaygroundError:
        return None


def test_eval_retrieval_scores_imported_questions_by_their_spans(docs, tmp_path, capsys):
    file = write_jsonl(tmp_path / "mine.jsonl", [GOOD, {**GOOD, "question": "How is it capped?", "quote": TYPO_QUOTE}])
    assert cli(docs, "data", "import", "questions", file, "--corpus", "guide") == 0
    result = evaluate_retriever(docs, "mine", "bm25", 5, None, 0, store=True)
    assert result["n"] == 2 and result["recall@k"] == 1.0  # the chunk holding the quota is in the top 5
    assert result["answer_recall@k"] == 1.0 and result["n_answers"] == 2
    assert cli(docs, "eval-retrieval", "--dataset", "mine", "-k", "5", "--no-store") == 0
    out = capsys.readouterr().out
    assert "recall@5 1.000" in out and "answer_recall@5 1.000" in out
    # the same questions in another chunking of the same documents: their spans carry over
    from playground.documents.versions import chunked_corpus

    other = chunked_corpus(docs, "guide", "tokens", 48, 8)
    assert evaluate_retriever(docs, "mine", "bm25", 5, None, 0, corpus=other)["recall@k"] == 1.0


def test_answer_recall_on_a_corpus_without_gold(workspace, capsys):
    """A benchmark whose questions have answers but no gold passages was refused; now answer_recall scores it."""
    passages = [
        Passage("p1", "Paris", "Paris is the capital and largest city of France."),
        Passage("p2", "Berlin", "Berlin is the capital of Germany."),
        Passage("p3", "Rome", "Rome is the capital of Italy."),
    ]
    questions = [
        Question("q1", "What is the capital of France?", ["Paris"]),
        Question("q2", "Which city is the capital of Germany?", ["the BERLIN"]),  # normalised as SQuAD reads it
        Question("q3", "Which river flows through Paris?", ["Seine"]),  # no passage holds it
    ]
    save_dataset(workspace, "nogold", Dataset("jsonl", "test", passages, questions))
    result = evaluate_retriever(workspace, "nogold", "bm25", 2, None, 0, store=True)
    assert result["n"] == 3 and result["answer_recall@k"] == pytest.approx(2 / 3)
    assert "recall@k" not in result
    assert cli(workspace, "eval-retrieval", "--dataset", "nogold", "-k", "2", "--no-store") == 0
    out = capsys.readouterr().out
    assert "answer_recall@2 0.667" in out and "recall@2 " not in out.replace("answer_recall@2", "")


def test_answer_recall_beside_recall_when_gold_exists(workspace, capsys):
    passages = [Passage("p1", "Paris", "Paris is the capital of France."), Passage("p2", "x", "Berlin, Germany.")]
    questions = [
        Question("q1", "Capital of France?", ["Paris"], ["p1"]),
        Question("q2", "Germany?", ["Berlin"], ["p2"]),
    ]
    save_dataset(workspace, "gold", Dataset("jsonl", "test", passages, questions))
    assert cli(workspace, "eval-retrieval", "--dataset", "gold", "-k", "1", "--no-store") == 0
    out = capsys.readouterr().out
    assert "recall@1 1.000" in out and "answer_recall@1 1.000" in out


def test_a_benchmark_without_a_corpus_is_scored_on_a_named_corpus(docs, tmp_path):
    """The issue's report: questions imported with `data import jsonl` have no corpus; --corpus names one."""
    file = write_jsonl(tmp_path / "plain.jsonl", [{"id": "a", "question": "Which variable caps the cache size?",
                                                  "answers": ["TOOLKIT_CACHE_QUOTA"]}])  # fmt: skip
    assert cli(docs, "data", "import", "jsonl", file, "--name", "plain") == 0
    result = evaluate_retriever(docs, "plain", "bm25", 3, None, 0, corpus="guide")
    assert result["answer_recall@k"] == 1.0 and "recall@k" not in result


def test_a_chinese_quote_is_found_across_a_line_break(workspace, tmp_path):
    """No whitespace assumption: the document wraps a Chinese sentence mid-phrase; the quote has no break."""
    folder = tmp_path / "zh"
    folder.mkdir()
    (folder / "钟.md").write_text("# 雾钟\n\n港口的雾钟每隔三十秒\n响一次，提醒船只靠岸。\n", encoding="utf-8")
    assert cli(workspace, "data", "import", "docs", str(folder), "--name", "zh") == 0
    file = write_jsonl(tmp_path / "zh.jsonl", [{"question": "雾钟多久响一次？", "answers": ["三十秒"],
                                               "document": "钟.md", "quote": "雾钟每隔三十秒响一次"}])  # fmt: skip
    assert cli(workspace, "data", "import", "questions", file, "--corpus", "zh", "--name", "zhq") == 0
    (question,) = load_questions(workspace, "zhq")
    span = question.metadata["gold_spans"][0]
    text = document_text(workspace, document_set(workspace, "zh"), "钟.md")
    assert text[span["start"] : span["end"]] == "雾钟每隔三十秒\n响一次"
    result = evaluate_retriever(workspace, "zhq", "bm25", 1, None, 0)
    assert result["recall@k"] == 1.0 and result["answer_recall@k"] == 1.0


def test_a_metric_not_measured_reads_n_a():
    """A chunking sweep charting answer_recall on questions without answers prints n/a, not a traceback."""
    from playground.evaluation.retrieval import metric_cell

    assert metric_cell({"recall@k": 0.5, "answer_recall@k": None}, "answer_recall") == "n/a"
    assert metric_cell({"recall@k": 0.5}, "answer_recall") == "n/a"
    assert metric_cell({"recall@k": 0.5}, "recall") == "0.500"
