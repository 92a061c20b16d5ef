"""A documents corpus and a generated benchmark over it, made through the store as `questions generate` makes them
(the same Candidate and kept_questions code), for the review tests of the engine, the page and the browser.

Corpus `guide`: two documents cut into paragraph chunks (tests/questions/test_generate.py's). Benchmark `guide-qs`
(format "generated"): three single questions and one two-hop question, with two rejections in its metadata."""

from __future__ import annotations

from playground.data.records import Dataset
from playground.questions.checks import find_answer
from playground.questions.chunks import corpus_chunks
from playground.questions.outcome import Candidate, kept_questions
from playground.store.datasets import save_benchmark, save_dataset
from tests.questions.test_generate import GUIDE, MINES, chunks

GENERATOR = {
    "prompt_version": "0123456789abcdef",
    "template": "question-generation",
    "model": "openai:scripted@http://127.0.0.1:9/v1",
}
KEPT = [
    ("single", ["guide/lighthouse.md#1"], "Who built the lighthouse at Kellerby?", "Marta Voss"),
    ("single", ["guide/lighthouse.md#2"], "What did the keepers ring in winter storms?", "the fog bell"),
    ("single", ["guide/lighthouse.md#3"], "Where were the granite blocks of the harbour wall cut?", "Trevail quarry"),
    ("two-hop", ["guide/mines.md#1", "guide/mines.md#2"], "What were the troughs used at Dunmore called?", "buddles"),
]
REJECTED = [
    ("unsupported", "guide/mines.md#1", "Which metal was mined at Dunmore from 1790?", "Berlin"),
    ("unparsable", "guide/mines.md#3", "", ""),
    ("unsupported", "guide/mines.md#3", "Who shut the engine house?", "the Queen"),
]


def documents() -> dict[str, str]:
    return {"guide/lighthouse.md": GUIDE, "guide/mines.md": MINES}


def add_generated(workspace, name: str = "guide-qs") -> None:
    """Corpus `guide` (documents) and benchmark NAME of generated questions over it, in `workspace`."""
    passages = chunks("guide/lighthouse.md", GUIDE) + chunks("guide/mines.md", MINES)
    chunking = {"chunker": "paragraphs", "chunk_size": 512, "overlap": 0, "chunk_digest": "test", "n_documents": 2}
    dataset = Dataset("docs", "tests/questions", passages, [], {"document_set": "test", **chunking})
    save_dataset(workspace, "guide", dataset)
    by_id = {chunk.id: chunk for chunk in corpus_chunks(passages)}
    kept = []
    for kind, ids, question, answer in KEPT:
        candidate = Candidate(kind, [by_id[i] for i in ids], question=question, answer=answer, model_id="scripted-1")
        candidate.matches = [(c, found) for c in candidate.sources if (found := find_answer(answer, c.passage.text))]
        assert candidate.matches, (question, answer)
        kept.append(candidate)
    rejections = []
    for reason, source, question, answer in REJECTED:
        candidate = Candidate("single", [by_id[source]], question=question, answer=answer, output="a reply")
        candidate.reject(reason, f"test: {reason}")
        rejections.append(candidate.rejection())
    metadata = {"generated_from": "guide", "generator": GENERATOR, "rejections": rejections}
    save_benchmark(workspace, name, "guide", "generated", "tests", kept_questions(kept, GENERATOR), metadata)
