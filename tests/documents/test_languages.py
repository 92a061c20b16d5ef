"""`data import docs` on a folder of Chinese Markdown: the language is detected (or given), stored and listed, and
BM25 reads Chinese words: the question a passage answers word for word finds that passage first (it printed "no
passage matched" when a Chinese sentence was one token), and `retrieve` shows the segmented terms."""

from __future__ import annotations

import json
from contextlib import closing

import pytest

from playground.cli import main
from playground.retrieval.index import list_indexes
from playground.store import open_workspace

ACUPOINTS = {
    "外丘穴.md": "# 外丘穴\n\n外丘穴屬足少陽膽經，是膽經的郄穴，位於小腿外側，外踝尖上七寸。\n\n"
    "外丘穴的國際標準代碼是GB36。主治頸項強痛、胸脅痛和癲疾。\n",
    "光明穴.md": "# 光明穴\n\n光明穴屬足少陽膽經，是膽經的絡穴，位於小腿外側，外踝尖上五寸。\n\n"
    "光明穴的國際標準代碼是GB37。主治目痛、夜盲和乳房脹痛。\n",
    "陽交穴.md": "# 陽交穴\n\n陽交穴屬足少陽膽經，是陽維脈的郄穴，位於小腿外側，外踝尖上七寸，腓骨後緣。\n\n"
    "陽交穴的國際標準代碼是GB35。主治胸脅脹滿和下肢痿痹。\n",
    "足三里.md": "# 足三里\n\n足三里屬足陽明胃經，是胃經的合穴，位於小腿前外側，犢鼻下三寸。\n\n"
    "足三里的國際標準代碼是ST36。主治胃痛、嘔吐和腹脹。\n",
}
QUESTION = "外丘穴的國際標準代碼是什麼"


@pytest.fixture
def db(tmp_path, monkeypatch):
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.setenv("PLAYGROUND_INDEXES", str(tmp_path / "indexes"))
    return str(tmp_path / "playground.db")


@pytest.fixture
def chinese_folder(tmp_path):
    folder = tmp_path / "穴位"
    folder.mkdir()
    for name, text in ACUPOINTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_chinese_markdown_folder_is_detected_listed_and_searched_by_words(db, chinese_folder, capsys):
    code, out, err = run(capsys, "--db", db, "data", "import", "docs", str(chinese_folder), "--name", "穴位")
    assert code == 0, err
    assert "language: zh (detected" in out
    code, out, _ = run(capsys, "--db", db, "data", "list", "--json")
    listing = json.loads(out)
    assert [(c["name"], c["language"]) for c in listing["corpora"]] == [("穴位", "zh")]
    assert [(b["name"], b["language"]) for b in listing["benchmarks"]] == [("穴位", "zh")]

    code, out, err = run(
        capsys, "--db", db, "retrieve", "--dataset", "穴位", "--retriever", "bm25", "-k", "3", QUESTION
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("terms (zh analyser): ") and "外丘" in lines[0].split()
    assert "GB36" in lines[2] and "外丘穴" in lines[1]

    code, out, _ = run(capsys, "--db", db, "retrieve", "--dataset", "穴位", "--retriever", "bm25", "--json", QUESTION)
    found = json.loads(out)
    assert found["analyzer"] == "zh" and QUESTION not in found["terms"] and "外丘" in found["terms"]
    assert "GB36" in found["hits"][0]["text"]


def test_character_pairs_on_request_and_the_manifest_names_the_analyser(db, chinese_folder, capsys):
    run(capsys, "--db", db, "data", "import", "docs", str(chinese_folder), "--name", "穴位")
    argv = ["--db", db, "retrieve", "--dataset", "穴位", "--retriever", "bm25", "--json"]
    code, out, err = run(capsys, *argv, "--param", "analyzer=zh-bigram", QUESTION)
    assert code == 0, err
    found = json.loads(out)
    assert found["analyzer"] == "zh-bigram" and {"外丘", "丘穴", "代碼"} <= set(found["terms"])
    assert "GB36" in found["hits"][0]["text"]
    run(capsys, *argv, QUESTION)
    with closing(open_workspace(db)) as workspace:
        analysers = {entry["params"]["analyzer"]: entry["analyzer"] for entry in list_indexes(workspace, "穴位")}
    assert analysers["zh-bigram"]["segmenter"] == "cjk-bigrams"
    assert analysers["zh"]["segmenter"] == "jieba" and "jieba" in analysers["zh"]["versions"]


def test_a_mixed_folder_says_so_and_language_overrides_detection(db, chinese_folder, capsys):
    (chinese_folder / "notes.md").write_text(
        "# Notes\n\nThese are the English notes kept beside the Chinese pages about acupuncture points.\n",
        encoding="utf-8",
    )
    code, out, err = run(capsys, "--db", db, "data", "import", "docs", str(chinese_folder), "--name", "穴位", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["language"] == "zh" and summary["mixed"] is True
    assert summary["language_found"] == {"zh": 4, "en": 1}
    code, out, _ = run(capsys, "--db", db, "data", "import", "docs", str(chinese_folder), "--name", "穴位")
    assert "language: mixed: zh 4, en 1 (zh taken)" in out

    code, out, err = run(
        capsys, "--db", db, "data", "import", "docs", str(chinese_folder), "--name", "穴位", "--language", "ZH"
    )
    assert code == 0 and "language: zh (given with --language)" in out
    code, out, err = run(
        capsys, "--db", db, "data", "import", "docs", str(chinese_folder), "--name", "x", "--language", "chinese"
    )
    assert code != 0 and "'chinese' is not an ISO 639-1 language code" in err


def test_language_given_on_a_benchmark_import_is_stored(db, capsys):
    from tests.data import FIXTURES

    path = FIXTURES / "squad" / "dev-v1.1.json"
    code, out, err = run(capsys, "--db", db, "data", "import", "squad", str(path), "--name", "s", "--json")
    assert code == 0, err
    assert json.loads(out)["language"] == "en"
    code, out, err = run(capsys, "--db", db, "data", "import", "squad", str(path), "--name", "d", "--language", "de")
    assert code == 0 and "language: de (given with --language)" in out
    code, out, _ = run(capsys, "--db", db, "data", "list")
    assert any(line.split()[:4] == ["d", "d", "squad", "de"] for line in out.splitlines())
