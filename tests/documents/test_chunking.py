"""The chunkers on real text (the Python language reference of this interpreter): exact spans, sizes in embedder
tokens, overlap; the bounds and the refusals; chunked_corpus reusing a chunking by digest."""

from __future__ import annotations

import json
from contextlib import closing

import pytest

from playground import PlaygroundError, bounds
from playground.cli import main
from playground.data.documents.chunking import Chunking, cut
from playground.data.documents.folder import read_documents
from playground.data.documents.parsed import ParsedDocument
from playground.data.documents.parsers import parse_rst
from playground.data.documents.tokens import count_tokens, embedder_tokenizer
from playground.documents.importing import import_documents
from playground.documents.versions import chunked_corpus
from playground.store import open_workspace
from playground.store.document_corpora import docs_corpora


@pytest.fixture(scope="module")
def reference() -> ParsedDocument:
    from pydoc_data.topics import topics

    return ParsedDocument("\n\n".join(topics[k] for k in ("assert", "for", "try", "with", "class")))


def _covered(text: str, spans) -> bool:
    """Every non-space character of `text` lies in some span."""
    covered = bytearray(len(text))
    for start, end in spans:
        covered[start:end] = b"\x01" * (end - start)
    return all(covered[i] or text[i].isspace() for i in range(len(text)))


@pytest.mark.parametrize(
    "chunker, overlap", [("tokens", 16), ("sentences", 16), ("markdown", 16), ("markdown", 0), ("tokens", 0)]
)
def test_spans_fit_the_size_and_cover_the_text(reference, chunker, overlap):
    spans = cut(reference, Chunking(chunker, 64, overlap))
    assert len(spans) > 10
    assert all(count_tokens(reference.text[s:e]) <= 64 for s, e in spans)
    assert spans == sorted(spans) and _covered(reference.text, spans)
    overlapping = sum(1 for (_, end), (start, _) in zip(spans, spans[1:]) if start < end)
    assert (overlapping > len(spans) // 2) if overlap else overlapping == 0


def test_token_windows_have_the_size_and_share_the_overlap(reference):
    spans = cut(reference, Chunking("tokens", 50, 10))
    tokenizer = embedder_tokenizer()
    sizes = [len(tokenizer.encode(reference.text[s:e], add_special_tokens=False).ids) for s, e in spans]
    assert sorted(sizes)[len(sizes) // 2] >= 45  # cut between words, so a window is at most a word short
    shared = [count_tokens(reference.text[b[0] : a[1]]) for a, b in zip(spans, spans[1:])]
    assert sorted(shared)[len(shared) // 2] in range(8, 13)


def test_a_sentence_longer_than_the_size_is_still_cut_to_it():
    document = ParsedDocument("Short one. " + "word " * 500 + "end.")
    spans = cut(document, Chunking("sentences", 32, 0))
    assert len(spans) > 10 and all(count_tokens(document.text[s:e]) <= 32 for s, e in spans)
    assert _covered(document.text, spans)


def test_the_markdown_chunker_never_crosses_a_section():
    text = "Intro line.\n\nFirst\n=====\n\n" + "One sentence here. " * 5 + "\n\nSecond\n======\n\nShort."
    (tmp := ParsedDocument(text, ((13, ("First",)), (text.index("Second"), ("Second",)))))
    spans = cut(tmp, Chunking("markdown", 200, 0))
    assert [text[s:e].split("\n")[0] for s, e in spans] == ["Intro line.", "First", "Second"]


def test_rst_heading_levels_follow_the_order_styles_first_appear(tmp_path):
    path = tmp_path / "a.rst"
    path.write_text("=====\nTop\n=====\n\nAlpha\n-----\n\nBeta\n~~~~\n\nGamma\n-----\n\nx\n", encoding="utf-8")
    sections = parse_rst(path).sections
    assert [trail for _, trail in sections] == [("Top",), ("Top", "Alpha"), ("Top", "Alpha", "Beta"), ("Top", "Gamma")]


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--chunk-size", "9000"], "--chunk-size must be between 16 and 8,192 tokens, got 9000"),
        (["--overlap", "8192"], "--overlap must be between 0 and 8,191 tokens, got 8192"),
        (["--chunker", "tokens", "--chunk-size", "32", "--overlap", "32"], "--overlap must be less than --chunk-size"),
        (["--chunker", "words"], "unknown chunker 'words' (known: tokens, sentences, markdown)"),
    ],
)
def test_bad_chunking_is_one_line_and_stores_nothing(tmp_path, capsys, flags, message):
    (tmp_path / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    db = tmp_path / "w.db"
    code = main(["--db", str(db), "data", "import", "docs", str(tmp_path / "a.md"), "--name", "n", *flags])
    assert code != 0 and message in capsys.readouterr().err
    with closing(open_workspace(db)) as workspace:
        assert workspace.db["corpora"].count == 0 and workspace.db["document_sets"].count == 0


def test_too_many_files_are_refused_before_any_is_read(tmp_path, monkeypatch):
    for n in range(3):
        (tmp_path / f"{n}.txt").write_text("text", encoding="utf-8")
    monkeypatch.setattr(bounds, "MAX_DOCUMENT_FILES", 2)
    with pytest.raises(PlaygroundError, match="3 files, more than the 2 one import reads"):
        read_documents(tmp_path)


def test_chunked_corpus_builds_each_chunking_once(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    from pydoc_data.topics import topics

    for key in ("for", "while", "try"):
        (tmp_path / "docs" / f"{key}.txt").write_text(topics[key], encoding="utf-8")
    with closing(open_workspace(tmp_path / "w.db")) as workspace:
        summary = import_documents(workspace, tmp_path / "docs", "ref", Chunking("sentences", 128, 0))
        assert chunked_corpus(workspace, "ref", "sentences", 128, 0) == "ref"
        name = chunked_corpus(workspace, summary["document_set"], "tokens", 64, 16)
        assert name == "ref~tokens-64-16"
        before = {c["name"]: c["created_at"] for c in docs_corpora(workspace)}
        assert chunked_corpus(workspace, "ref~tokens-64-16", "tokens", 64, 16) == name
        assert {c["name"]: c["created_at"] for c in docs_corpora(workspace)} == before
    assert main(["--db", str(tmp_path / "w.db"), "data", "list", "--json"]) == 0
    listed = {c["name"]: c.get("documents") for c in json.loads(capsys.readouterr().out)["corpora"]}
    assert listed[name]["chunker"] == "tokens" and listed[name]["overlap"] == 16 and listed["ref"]["chunk_size"] == 128


@pytest.mark.parametrize("chunker", ["markdown", "sentences"])
def test_chunks_are_cut_between_words_on_a_vocabulary_and_on_accented_text(chunker):
    """chonkie's RecursiveChunker returned decoded tokens for the vocabulary and drifted on accents: its cuts fell
    inside words. The chunkers' own spans must fall between words, wherever the text is not one long word."""
    from playground.data.documents.tokens import _model_folder

    vocabulary = (_model_folder() / "vocab.txt").read_text(encoding="utf-8")[:20000]
    accented = ("Café déjà vu — naïve façade. " * 40 + "\n\n") * 5
    for text in (vocabulary, accented):
        spans = cut(ParsedDocument(text), Chunking(chunker, 64, 0))
        assert len(spans) > 3
        for start, end in spans:
            assert start == 0 or text[start - 1].isspace(), (chunker, text[start - 10 : start + 10])
            assert end == len(text) or text[end].isspace(), (chunker, text[end - 10 : end + 10])


def test_the_overlap_help_says_what_the_chunkers_do_with_it(reference, capsys):
    """The help said `--overlap` was "not for markdown", yet the markdown chunker shares tokens within a section (as
    docs/documents.md says): the help now says what each built-in chunker does."""
    with pytest.raises(SystemExit):
        main(["data", "import", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "not for markdown" not in help_text and "markdown shares them within a section" in help_text
    spans = cut(reference, Chunking("markdown", 64, 16))
    assert sum(1 for (_, end), (start, _) in zip(spans, spans[1:]) if start < end) > len(spans) // 2
