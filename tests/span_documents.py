"""The documents of the span-gold and chunking-sweep tests, two ways.

- `imported_guide`: the documents written as files and imported for real (`data import docs`: the chunking library,
  the embedder's tokenizer, the stored document texts), with a questions benchmark whose gold spans are found in the
  stored texts; the chunking sweeps run on it through the real `playground.documents.versions.chunked_corpus`.
- `guide_workspace`: fixed, hand-built word chunkings stored as `data import docs` stores a corpus (each passage's
  text exactly its document's text[start:end]), for the span-gold metric tests that need to know every chunk.
"""

from __future__ import annotations

import re
from pathlib import Path

from playground.data.records import Dataset, Passage, Question
from playground.evaluation.spans import Span
from playground.store.datasets import load_passages, save_benchmark, save_dataset
from playground.store.documents import document_text

DOCUMENTS = {
    "guide/install.md": (
        "Install the tool with the package manager of your system. On Debian and Ubuntu the package is called "
        "toolkit and needs no extra repository. On macOS use Homebrew, which also installs the shell completions. "
        "Windows users download the signed installer from the release page and run it as an administrator. "
        "After the install, run the doctor command once: it checks the configuration folder and the cache."
    ),
    "guide/cache.md": (
        "The cache keeps downloaded archives so that a second build is fast. By default it lives in the user's "
        "cache folder and grows without a limit. To cap its size, set the variable TOOLKIT_CACHE_QUOTA to a number "
        "of megabytes; the oldest archives are evicted first when the quota is reached. The prune command empties "
        "the cache at once, and the stats command prints how many archives it holds and how much space they use."
    ),
    "guide/plugins.md": (
        "Plugins extend the tool with new commands. A plugin is an ordinary Python package that declares an entry "
        "point in the toolkit.plugins group. The tool loads every installed plugin when it starts, in alphabetical "
        "order, and lists them with the plugins command. A plugin that fails to load is reported once and skipped, "
        "so one broken package never stops the others from working."
    ),
}
QUOTA = "To cap its size, set the variable TOOLKIT_CACHE_QUOTA to a number of megabytes"
ENTRY_POINT = "declares an entry point in the toolkit.plugins group"
CHUNKINGS = ((8, 0), (20, 5), (60, 0))  # words per chunk, words of overlap
SET = "d0c5e7"


def span_of(path: str, phrase: str) -> dict:
    start = DOCUMENTS[path].index(phrase)
    return {"document": path, "start": start, "end": start + len(phrase)}


def chunk(path: str, size: int, overlap: int) -> list[Passage]:
    """Word windows of the document, each passage's text the exact slice text[start:end]."""
    text, words = DOCUMENTS[path], [m.span() for m in re.finditer(r"\S+", DOCUMENTS[path])]
    passages, first = [], 0
    while first < len(words):
        last = min(first + size, len(words)) - 1
        start, end = words[first][0], words[last][1]
        metadata = {"document": path, "start": start, "end": end}
        passages.append(Passage(f"{path}#{len(passages) + 1}", path, text[start:end], metadata))
        if last == len(words) - 1:
            break
        first = last + 1 - overlap
    return passages


def corpus_name(size: int, overlap: int, base: str = "guide") -> str:
    return base if (size, overlap) == CHUNKINGS[0] else f"{base}~words-{size}-{overlap}"


def documents_corpus(size: int, overlap: int, questions=(), document_set: str = SET) -> Dataset:
    passages = [p for path in DOCUMENTS for p in chunk(path, size, overlap)]
    metadata = {"document_set": document_set, "chunker": "words", "chunk_size": size, "overlap": overlap}
    return Dataset("docs", "tests/retrieval/test_span_gold.py", passages, list(questions), {**metadata})


def overlapping_ids(passages: list[Passage], span: dict) -> list[str]:
    gold = Span(span["document"], span["start"], span["end"])
    return [
        p.id for p in passages if Span(p.metadata["document"], p.metadata["start"], p.metadata["end"]).overlaps(gold)
    ]


def guide_workspace(workspace):
    """Corpus and benchmark "guide" (the first chunking, with its questions) and two more chunkings as corpora."""
    made_on = documents_corpus(*CHUNKINGS[0])
    quota, entry = span_of("guide/cache.md", QUOTA), span_of("guide/plugins.md", ENTRY_POINT)
    questions = [
        Question(
            "quota",
            "Which variable caps the cache size in megabytes?",
            ["TOOLKIT_CACHE_QUOTA"],
            overlapping_ids(made_on.passages, quota),
            metadata={"gold_spans": [quota]},
        ),
        Question(
            "two-hop",
            "Which entry point group does a plugin declare, and which variable caps the cache quota?",
            ["toolkit.plugins; TOOLKIT_CACHE_QUOTA"],
            overlapping_ids(made_on.passages, quota) + overlapping_ids(made_on.passages, entry),
            metadata={"gold_spans": [entry, quota]},
        ),
        Question("by-id", "What does the doctor command check?", ["the configuration folder"], ["guide/install.md#8"]),
    ]
    made_on.questions = questions
    save_dataset(workspace, "guide", made_on)
    for size, overlap in CHUNKINGS[1:]:
        save_dataset(workspace, corpus_name(size, overlap), documents_corpus(size, overlap))
    return workspace


IMPORTED = ("tokens", 16, 0)  # the import's own chunking: chunker, chunk size and overlap in embedder tokens
QUESTIONS = "questions"  # the benchmark of span questions on the imported corpus "guide"


def write_documents(folder: Path) -> Path:
    """DOCUMENTS as Markdown files under `folder`, each a heading line and then the text, as a user's folder has them."""
    for path, text in DOCUMENTS.items():
        file = folder / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(f"# {Path(path).stem.title()}\n\n{text}\n", encoding="utf-8")
    return folder


def imported_guide(workspace, folder: Path) -> dict:
    """DOCUMENTS imported for real as corpus "guide" (IMPORTED chunking), and benchmark QUESTIONS on it: two
    questions with gold spans found (str.index) in the stored document texts, one with gold passage ids only.
    Returns {"document_set": SET ID, "quota": SPAN, "entry": SPAN}."""
    from playground.data.documents.chunking import Chunking
    from playground.documents.importing import import_documents
    from playground.questions.outcome import GENERATED_FORMAT

    set_id = import_documents(workspace, write_documents(folder), "guide", Chunking(*IMPORTED))["document_set"]

    def stored_span(path: str, phrase: str) -> dict:
        start = document_text(workspace, set_id, path).index(phrase)
        return {"document": path, "start": start, "end": start + len(phrase)}

    passages = load_passages(workspace, "guide")
    quota, entry = stored_span("guide/cache.md", QUOTA), stored_span("guide/plugins.md", ENTRY_POINT)
    doctor = overlapping_ids(passages, stored_span("guide/install.md", "run the doctor command once"))
    questions = [
        Question(
            "quota",
            "Which variable caps the cache size in megabytes?",
            ["TOOLKIT_CACHE_QUOTA"],
            overlapping_ids(passages, quota),
            metadata={"gold_spans": [quota]},
        ),
        Question(
            "two-hop",
            "Which entry point group does a plugin declare, and which variable caps the cache quota?",
            ["toolkit.plugins; TOOLKIT_CACHE_QUOTA"],
            overlapping_ids(passages, quota) + overlapping_ids(passages, entry),
            metadata={"gold_spans": [entry, quota]},
        ),
        Question("by-id", "What does the doctor command check?", ["the configuration folder"], doctor[:1]),
    ]
    save_benchmark(workspace, QUESTIONS, "guide", GENERATED_FORMAT, "tests/span_documents.py", questions, {})
    return {"document_set": set_id, "quota": quota, "entry": entry}
