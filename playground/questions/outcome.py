"""What became of each question asked: the candidate with its reply and verdict, the near-duplicate filter over
the embeddings of the candidates still standing, the report (asked / kept / rejected by reason) and the stored
benchmark, whose questions carry their gold spans and provenance and whose metadata keeps every rejection."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Optional

from playground.data.records import Question
from playground.questions.chunks import Chunk

GENERATED_FORMAT = "generated"  # the format of a benchmark that questions generate stores
MAX_STORED_OUTPUT = 1000  # characters of a rejected reply kept with its reason


class QuestionKind:
    """What a generated question is asked from."""

    SINGLE: Final = "single"  # one chunk
    TWO_HOP: Final = "two-hop"  # two related chunks: the answer in one, the bridge to it in the other


QUESTION_KINDS = (QuestionKind.SINGLE, QuestionKind.TWO_HOP)


@dataclass
class Candidate:
    kind: str  # a QuestionKind
    sources: list[Chunk]
    link: str = ""  # a two-hop pair's relation: "neighbour" or "bm25"
    output: str = ""
    model_id: str = ""
    question: str = ""
    answer: str = ""
    matches: list[tuple[Chunk, tuple[int, int, float]]] = field(default_factory=list)  # where the answer is
    reason: Optional[str] = None
    detail: str = ""

    def reject(self, reason: str, detail: str) -> None:
        self.reason, self.detail = reason, detail

    @property
    def source_ids(self) -> list[str]:
        return [chunk.id for chunk in self.sources]

    def gold_spans(self) -> list[dict]:
        """The answer's span in each source chunk it was found in; for a two-hop question, also the whole span of a
        source chunk that does not hold the answer (the bridge), so both pieces of evidence survive re-chunking."""
        spans = [chunk.span(start, end) for chunk, (start, end, _) in self.matches]
        holding = {chunk.id for chunk, _ in self.matches}
        if self.kind == QuestionKind.TWO_HOP:
            spans += [chunk.whole_span() for chunk in self.sources if chunk.id not in holding]
        return spans

    def rejection(self) -> dict:
        return {
            "reason": self.reason,
            "detail": self.detail,
            "kind": self.kind,
            "source_passage_ids": self.source_ids,
            "question": self.question,
            "answer": self.answer,
            "output": self.output[:MAX_STORED_OUTPUT],
        }


def keep_distinct(candidates: list[Candidate], threshold: float, language: Optional[str] = None) -> Optional[str]:
    """Reject, in order, each standing candidate whose question's cosine similarity with a question kept before it
    reaches `threshold` (normalised vectors of the embedder for the corpus's `language`: the bundled English one,
    else the multilingual one); returns the embedder's name, or None when nothing was left to compare."""
    standing = [candidate for candidate in candidates if candidate.reason is None]
    if len(standing) < 2:
        return None
    from playground.embedder_files import embedder_for_language
    from playground.retrieval.embedders import get_embedder

    embedder = get_embedder(embedder_for_language(language))
    vectors = embedder.encode([candidate.question for candidate in standing])
    kept: list[int] = []
    for index, candidate in enumerate(standing):
        similarities = [float(vectors[index] @ vectors[other]) for other in kept]
        closest = max(range(len(kept)), key=lambda i: similarities[i], default=None)
        if closest is not None and similarities[closest] >= threshold:
            twin = standing[kept[closest]]
            candidate.reject(
                "near_duplicate",
                f"cosine {similarities[closest]:.3f} >= {threshold} with {twin.question!r} (from {twin.source_ids[0]})",
            )
        else:
            kept.append(index)
    return embedder.name


def _why_none(counts: dict, asked: int) -> str:
    reasons = ", ".join(f"{reason} {count}" for reason, count in counts.items() if count)
    return f"none of the {asked} question(s) asked was kept (rejected: {reasons})"


def model_hint(spec: str, kept: int, asked: int, replied: bool) -> Optional[str]:
    """What to do when a local model kept no question although it answered: it is too small to write grounded
    questions, and a larger model behind an OpenAI-compatible server is one spec away."""
    if kept or not asked or not replied or not str(spec).startswith("local:"):
        return None
    return (
        f"the local model {spec} wrote no grounded question out of {asked}: it is too small for this. Point the "
        "generator at a larger model on a server: model openai:MODEL@URL (any OpenAI-compatible server, e.g. "
        "llama.cpp's llama-server or vLLM at http://127.0.0.1:8080/v1)"
    )


def build_report(settings, corpus: dict, candidates: list[Candidate], generator: dict, embedder, reasons) -> dict:
    from playground.redaction import redact

    counts = {reason: sum(1 for c in candidates if c.reason == reason) for reason in reasons}
    kept = [candidate for candidate in candidates if candidate.reason is None]
    replied = any(candidate.reason not in (None, "model_error") for candidate in candidates)
    return {
        "corpus": settings.corpus,
        "corpus_fingerprint": corpus["fingerprint"],
        "dataset": settings.name if kept or replied else None,
        "hint": model_hint(generator["model"], len(kept), len(candidates), replied),
        "asked": len(candidates),
        "asked_by_kind": {kind: sum(1 for c in candidates if c.kind == kind) for kind in QUESTION_KINDS},
        "kept": len(kept),
        "rejected": counts,
        "why": None if kept else _why_none(counts, len(candidates)),
        "generator": {**generator, "model": redact(generator["model"])},
        "settings": {
            "n": settings.n,
            "seed": settings.seed,
            "two_hop_share": settings.two_hop_share,
            "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
        },
        "filters": {
            "fuzzy": "difflib ratio >= 0.85 over word windows (characters in unspaced scripts)",
            "language": corpus.get("language"),
            "generic_top_k": 20,
            "duplicate_threshold": settings.duplicate_threshold,
            "embedder": embedder,
        },
        "rejections": [candidate.rejection() for candidate in candidates if candidate.reason is not None],
        "questions": [
            {"question": c.question, "answer": c.answer, "kind": c.kind, "source_passage_ids": c.source_ids}
            for c in kept
        ],
    }


def kept_questions(candidates: list[Candidate], generator: dict) -> list[Question]:
    from playground.redaction import redact

    questions = []
    for number, candidate in enumerate([c for c in candidates if c.reason is None], start=1):
        metadata = {
            "gold_spans": candidate.gold_spans(),
            "source_passage_ids": candidate.source_ids,
            "generator": {
                "prompt_version": generator["prompt_version"],
                "model": redact(generator["model"]),
                "model_id": candidate.model_id,
            },
            "kind": candidate.kind,
            "answer_match": [
                {"passage_id": chunk.id, "ratio": round(found[2], 3)} for chunk, found in candidate.matches
            ],
        }
        if candidate.link:
            metadata["link"] = candidate.link
        questions.append(
            Question(
                id=f"gen-{number:04d}",
                text=candidate.question,
                answers=[candidate.answer],
                gold_passage_ids=candidate.source_ids,
                tags={"kind": candidate.kind},
                metadata=metadata,
            )
        )
    return questions


def store_questions(workspace, settings, corpus: dict, candidates: list[Candidate], generator: dict, result: dict):
    """The kept questions (maybe none) as benchmark NAME over the corpus; its metadata holds the report, rejections
    included."""
    from playground.store.datasets import save_benchmark

    metadata = {key: value for key, value in result.items() if key not in ("questions", "dataset", "why", "hint")}
    return save_benchmark(
        workspace,
        settings.name,
        settings.corpus,
        GENERATED_FORMAT,
        f"questions generate from corpus {settings.corpus}",
        kept_questions(candidates, generator),
        {"generated_from": settings.corpus, **metadata},
        replace=settings.replace,
    )
