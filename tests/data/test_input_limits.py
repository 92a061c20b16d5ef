"""Malformed or oversized dataset files: one line each, naming the file and line, never a traceback, nothing stored."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from playground.cli import main
from playground.data.importers.jsonl import read_jsonl
from tests.data import FIXTURES

GOOD = '{"id": "q1", "question": "What is the capital of France?", "answers": ["Paris"]}'


def import_error(capsys, tmp_path, fmt: str, path) -> str:
    db = tmp_path / "ws.db"
    assert main(["data", "import", fmt, str(path), "--name", "x", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("error: ")
    if db.exists():
        assert main(["data", "list", "--db", str(db), "--json"]) == 0
        listed = json.loads(capsys.readouterr().out)
        assert not listed.get("benchmarks") and not listed.get("corpora")
    return err


JSONL_CASES = {
    "deep nesting": (
        '{"question": "q", "answers": ["a"], "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
        r"record 2: JSON nested deeper than 64 levels",
    ),
    "nested past the depth limit": (
        '{"question": "q", "answers": ["a"], "x": ' + "[" * 70 + "]" * 70 + "}",
        r"record 2: JSON nested deeper than 64 levels",
    ),
    "huge integer": (
        '{"question": "q", "answers": ["a"], "id": ' + "9" * 5000 + "}",
        r"record 2: integer of 5000 digits is too large",
    ),
    "lone surrogate": ('{"question": "q \\ud800", "answers": ["a"]}', r"record 2: string .* lone surrogate"),
    "NaN": ('{"question": "q", "answers": ["a"], "score": NaN}', r"record 2: NaN is not a number JSON allows"),
    "infinite float": (
        '{"question": "q", "answers": ["a"], "score": 1e999}',
        r"record 2: number 1e999 is out of range",
    ),
}


@pytest.mark.parametrize("name", list(JSONL_CASES))
def test_malformed_jsonl_line_is_one_line(tmp_path, capsys, name):
    line, expected = JSONL_CASES[name]
    path = tmp_path / "bad.jsonl"
    path.write_text(GOOD + "\n" + line + "\n", encoding="utf-8")
    err = import_error(capsys, tmp_path, "jsonl", path)
    assert "bad.jsonl" in err
    assert re.search(expected, err), err


def test_jsonl_is_split_on_newlines_only(tmp_path):
    path = tmp_path / "ok.jsonl"
    path.write_text(
        GOOD + "\r\n" + '{"question": "Line\u2028separator\u0085inside?", "answers": ["x"]}\n', encoding="utf-8"
    )
    questions = read_jsonl(path).questions
    assert [q.text for q in questions] == ["What is the capital of France?", "Line\u2028separator\u0085inside?"]


def test_file_and_line_caps_are_settable(tmp_path, capsys, monkeypatch):
    path = tmp_path / "big.jsonl"
    path.write_text(GOOD + "\n" + '{"question": "' + "x" * 3000 + '", "answers": ["a"]}\n', encoding="utf-8")
    monkeypatch.setenv("PLAYGROUND_IMPORT_MAX_LINE_MB", "0.001")
    assert "record 2: line of 3,0" in import_error(capsys, tmp_path, "jsonl", path)
    monkeypatch.delenv("PLAYGROUND_IMPORT_MAX_LINE_MB")
    monkeypatch.setenv("PLAYGROUND_IMPORT_MAX_FILE_MB", "0.001")
    assert "over the limit of 0.0 MB" in import_error(capsys, tmp_path, "jsonl", path)


def test_hotpotqa_document_with_a_huge_integer_names_its_line(tmp_path, capsys):
    path = tmp_path / "hotpot.json"
    path.write_text('[\n {"_id": "a",\n  "level": ' + "1" * 400 + "}\n]\n", encoding="utf-8")
    assert "hotpot.json, record 3: integer of 400 digits" in import_error(capsys, tmp_path, "hotpotqa", path)


@pytest.mark.parametrize("score", ["nan", "inf", "-Infinity", "1e400"])
def test_beir_qrels_refuse_non_finite_scores(tmp_path, capsys, score):
    folder = tmp_path / "beir"
    shutil.copytree(FIXTURES / "beir", folder)
    qrels = folder / "qrels" / "test.tsv"
    lines = qrels.read_text(encoding="utf-8").split("\n")
    lines[1] = "\t".join(lines[1].split("\t")[:2] + [score])
    qrels.write_text("\n".join(lines), encoding="utf-8")
    err = import_error(capsys, tmp_path, "beir", folder)
    assert "test.tsv, record 2: score" in err and "out of range" in err
