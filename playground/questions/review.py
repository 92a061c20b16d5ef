"""Review of a generated benchmark: each question accepted, edited (its answer found again in its source chunks) or
rejected with a reason, and the reviewed set saved as a new benchmark version over the same corpus.

The reviewed set is named `ROOT.reviewed-N` (ROOT the generated benchmark it descends from, N one more than the
highest version stored), has format "reviewed", and records every decision in its metadata (`review`); the benchmark
reviewed stays as it is, so runs that used it keep their questions. The page and the CLI only call these functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Mapping, Optional

from playground import PlaygroundError
from playground.data.records import Passage, Question
from playground.questions.checks import find_answer
from playground.questions.chunks import Chunk, as_chunk
from playground.questions.outcome import GENERATED_FORMAT, Candidate, QuestionKind
from playground.store.values import PERSON as DECIDED_BY  # who decided: a person reviewing, not the filters

REVIEWED_FORMAT = "reviewed"
REVIEWABLE_FORMATS = (GENERATED_FORMAT, REVIEWED_FORMAT)
DECISIONS = ("accepted", "edited", "rejected")
REJECT_REASONS = (
    "wrong answer",
    "not answerable from the chunk",
    "ambiguous question",
    "unnatural or trivial question",
    "other",
)


@dataclass(frozen=True)
class Decision:
    """A reviewer's decision about one question: the edited text and answer for "edited", the reason for
    "rejected"."""

    decision: str
    decided_at: str
    text: str = ""
    answer: str = ""
    reason: str = ""


def accepted() -> Decision:
    from playground.store.values import now

    return Decision("accepted", now())


def rejected(reason: str) -> Decision:
    from playground.store.values import now

    return Decision("rejected", now(), reason=" ".join((reason or "").split()))


def edited(text: str, answer: str) -> Decision:
    from playground.store.values import now

    return Decision("edited", now(), text=" ".join((text or "").split()), answer=" ".join((answer or "").split()))


@dataclass
class SourceChunk:
    """A question's source chunk as a reviewer sees it: the passage and the answer's spans in its text (none for the
    bridge chunk of a two-hop question, whose whole text is evidence)."""

    passage: Passage
    marks: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class ReviewItem:
    question: Question
    sources: list[SourceChunk]
    missing: list[str]  # source passage ids the corpus no longer holds

    @property
    def answer(self) -> str:
        return self.question.answers[0] if self.question.answers else ""

    @property
    def kind(self) -> str:
        return str(self.question.metadata.get("kind") or "")

    @property
    def generator(self) -> dict:
        found = self.question.metadata.get("generator")
        return found if isinstance(found, dict) else {}


def reviewable(workspace) -> list[str]:
    """The benchmarks a person can review: generated ones and reviewed versions of them."""
    from playground.store.datasets import list_datasets

    return [b["name"] for b in list_datasets(workspace)["benchmarks"] if b["format"] in REVIEWABLE_FORMATS]


def benchmark_metadata(workspace, benchmark: str) -> dict:
    import json

    from playground.store.datasets import get_benchmark

    raw = get_benchmark(workspace, benchmark)["metadata"]
    found = json.loads(raw) if raw else {}
    return found if isinstance(found, dict) else {}


def generation_rejections(workspace, benchmark: str) -> list[dict]:
    """The candidates the generator's filters rejected, each with its reason, detail, question, answer and sources."""
    found = benchmark_metadata(workspace, benchmark).get("rejections")
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def rejection_counts(rejections: list[dict]) -> dict[str, int]:
    """Rejections per reason, most frequent first."""
    counts: dict[str, int] = {}
    for rejection in rejections:
        reason = str(rejection.get("reason") or "unknown")
        counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _source_ids(question: Question) -> list[str]:
    ids = question.metadata.get("source_passage_ids")
    if isinstance(ids, list) and all(isinstance(i, str) for i in ids) and ids:
        return list(ids)
    return list(question.gold_passage_ids)


def _sources(workspace, corpus: Optional[str], question: Question) -> tuple[list[Chunk], list[str]]:
    from playground.store.datasets import get_passages

    ids = _source_ids(question)
    found = get_passages(workspace, corpus, ids) if corpus and ids else {}
    chunks = [as_chunk(found[i], position) for position, i in enumerate(ids) if i in found]
    return chunks, [i for i in ids if i not in found]


def _marks(chunk: Chunk, question: Question) -> list[tuple[int, int]]:
    """The gold spans that fall in this chunk, as offsets in its text; a span covering the whole chunk of a chunk the
    answer was not found in (a two-hop bridge) is not marked."""
    answer_in = question.metadata.get("answer_match")
    holding = {m.get("passage_id") for m in answer_in if isinstance(m, dict)} if isinstance(answer_in, list) else None
    if holding is not None and chunk.id not in holding:
        return []
    size = len(chunk.passage.text)
    marks = []
    for span in question.metadata.get("gold_spans") or []:
        if not isinstance(span, dict) or span.get("document") != chunk.document:
            continue
        start, end = span.get("start"), span.get("end")
        if not isinstance(start, int) or not isinstance(end, int):
            continue
        start, end = max(0, start - chunk.start), min(size, end - chunk.start)
        if start < end and not (holding is None and (start, end) == (0, size)):
            marks.append((start, end))
    return sorted(marks)


def _item(workspace, corpus: Optional[str], question: Question) -> ReviewItem:
    chunks, missing = _sources(workspace, corpus, question)
    return ReviewItem(question, [SourceChunk(chunk.passage, _marks(chunk, question)) for chunk in chunks], missing)


def reviewable_benchmark(workspace, benchmark: str) -> dict:
    """The benchmark's row, or a one-line refusal when it holds no generated questions."""
    from playground.store.datasets import get_benchmark

    row = get_benchmark(workspace, benchmark)
    if row["format"] not in REVIEWABLE_FORMATS:
        raise PlaygroundError(
            f"benchmark {benchmark!r} (format {row['format']}) holds no generated questions: "
            "only sets made by `questions generate` (and reviewed versions of them) are reviewed"
        )
    return row


def review_items(workspace, benchmark: str) -> list[ReviewItem]:
    """Every question of the benchmark with its source chunks and the answer's spans marked in them."""
    from playground.store.datasets import load_questions

    corpus = reviewable_benchmark(workspace, benchmark)["corpus"]
    return [_item(workspace, corpus, question) for question in load_questions(workspace, benchmark)]


def edited_item(workspace, benchmark: str, item: ReviewItem, decision: Decision) -> ReviewItem:
    """The item as an edit decided it: the edited text and answer, with the edited answer's span marked."""
    from playground.store.datasets import get_benchmark

    changed = edited_question(workspace, benchmark, item.question, decision.text, decision.answer)
    return _item(workspace, get_benchmark(workspace, benchmark)["corpus"], changed)


def edited_question(workspace, benchmark: str, question: Question, text: str, answer: str) -> Question:
    """The question with its text and answer replaced, its gold spans found again in its source chunks (exactly, else
    fuzzily, as the generator's filter does); a PlaygroundError in one line when the answer is not there."""
    text, answer = " ".join((text or "").split()), " ".join((answer or "").split())
    if not text:
        raise PlaygroundError(f"question {question.id}: the edited question is empty")
    if not answer:
        raise PlaygroundError(f"question {question.id}: the edited answer is empty")
    from playground.store.datasets import get_benchmark

    chunks, missing = _sources(workspace, get_benchmark(workspace, benchmark)["corpus"], question)
    if not chunks:
        raise PlaygroundError(f"question {question.id}: its source chunk(s) {', '.join(missing)} are not in the corpus")
    matches = [(chunk, found) for chunk in chunks if (found := find_answer(answer, chunk.passage.text))]
    if not matches:
        where = ", ".join(chunk.id for chunk in chunks)
        raise PlaygroundError(f"question {question.id}: the answer {answer!r} is not in its source chunk(s) {where}")
    kind = str(question.metadata.get("kind") or QuestionKind.SINGLE)
    candidate = Candidate(kind=kind, sources=chunks, question=text, answer=answer, matches=matches)
    metadata = {
        **question.metadata,
        "gold_spans": candidate.gold_spans(),
        "answer_match": [{"passage_id": chunk.id, "ratio": round(found[2], 3)} for chunk, found in matches],
    }
    return replace(question, text=text, answers=[answer], metadata=metadata)


def accept_rejection(workspace, benchmark: str, index: int, text: str, answer: str) -> Question:
    """Rejected candidate `index` of a generated benchmark, as a person edited it, added to the benchmark as a
    question: its answer must be found in the candidate's source chunk(s) (its gold span is taken there), and the
    rejection records the question it became. A PlaygroundError in one line otherwise; nothing is stored then."""
    from playground.store.datasets import get_benchmark, load_questions, save_benchmark
    from playground.store.values import now

    row = reviewable_benchmark(workspace, benchmark)
    metadata = benchmark_metadata(workspace, benchmark)
    rejections = metadata.get("rejections")
    if not isinstance(rejections, list) or not 0 <= index < len(rejections) or not isinstance(rejections[index], dict):
        raise PlaygroundError(f"benchmark {benchmark!r} has no rejected candidate number {index + 1}")
    rejection = rejections[index]
    if rejection.get("accepted_as"):
        raise PlaygroundError(
            f"rejected candidate {index + 1} of {benchmark!r} is question {rejection['accepted_as']} already"
        )
    questions = load_questions(workspace, benchmark)
    taken = {question.id for question in questions}
    number = len(questions) + 1
    while f"gen-{number:04d}" in taken:
        number += 1
    sources = [str(i) for i in rejection.get("source_passage_ids") or []]
    kind = str(rejection.get("kind") or QuestionKind.SINGLE)
    generator = metadata.get("generator") if isinstance(metadata.get("generator"), dict) else {}
    draft = Question(
        id=f"gen-{number:04d}",
        text=str(rejection.get("question") or ""),
        answers=[str(rejection.get("answer") or "")],
        gold_passage_ids=sources,
        tags={"kind": kind},
        metadata={
            "source_passage_ids": sources,
            "kind": kind,
            "generator": {"prompt_version": generator.get("prompt_version"), "model": generator.get("model")},
            "rescued": {
                "reason": rejection.get("reason"),
                "detail": rejection.get("detail"),
                "original": {"text": rejection.get("question") or "", "answer": rejection.get("answer") or ""},
                "decided_by": DECIDED_BY,
                "decided_at": now(),
            },
        },
    )
    question = edited_question(workspace, benchmark, draft, text, answer)
    rejections[index] = {**rejection, "accepted_as": question.id}
    save_benchmark(
        workspace,
        benchmark,
        row["corpus"],
        row["format"],
        get_benchmark(workspace, benchmark)["source"],
        [*questions, question],
        {**metadata, "rejections": rejections},
        replace=True,
    )
    return question


def _root(workspace, benchmark: str) -> str:
    review = benchmark_metadata(workspace, benchmark).get("review")
    root = review.get("generated") if isinstance(review, dict) else None
    return root if isinstance(root, str) and root else benchmark


def reviewed_name(workspace, benchmark: str) -> tuple[str, str, int]:
    """(name, root, version) of the next reviewed version: ROOT.reviewed-N, N one more than the highest stored."""
    from playground.store.datasets import list_datasets

    root = _root(workspace, benchmark)
    pattern = re.compile(re.escape(root) + r"\.reviewed-(\d+)")
    datasets = list_datasets(workspace)
    taken = [row["name"] for row in datasets["benchmarks"] + datasets["corpora"]]
    version = 1 + max((int(m.group(1)) for name in taken if (m := pattern.fullmatch(name))), default=0)
    return f"{root}.reviewed-{version}", root, version


def _original(question: Question) -> dict:
    return {"text": question.text, "answer": question.answers[0] if question.answers else ""}


def _decide(workspace, benchmark: str, question: Question, decision: Decision) -> tuple[Optional[Question], dict]:
    """(the question as kept, or None when rejected; the decision's record)."""
    record = {
        "question_id": question.id,
        "decision": decision.decision,
        "decided_by": DECIDED_BY,
        "decided_at": decision.decided_at,
        "original": _original(question),
    }
    if decision.decision == "rejected":
        if not decision.reason.strip():
            raise PlaygroundError(f"question {question.id}: a rejection needs a reason")
        return None, {**record, "reason": decision.reason}
    if decision.decision == "edited":
        kept = edited_question(workspace, benchmark, question, decision.text, decision.answer)
        if _original(kept) == record["original"]:
            record["decision"] = "accepted"  # an edit that changed nothing
        else:
            record["edited"] = _original(kept)
    elif decision.decision == "accepted":
        kept = question
    else:
        raise PlaygroundError(f"question {question.id}: unknown decision {decision.decision!r} (one of {DECISIONS})")
    mark = {key: record[key] for key in ("decision", "decided_by", "decided_at")}
    if record["decision"] == "edited":
        mark["original"] = record["original"]
    return replace(kept, metadata={**kept.metadata, "review": mark}), record


def save_reviewed(
    workspace, benchmark: str, decisions: Mapping[str, Decision], session_id: Optional[str] = None
) -> dict:
    """Store the accepted and edited questions as the next reviewed version of `benchmark`, with every decision
    (rejections and their reasons included) in its metadata `review`. Every question needs a decision, and a review
    that rejects them all stores nothing: each is refused in one line."""
    from playground.store.datasets import load_questions, save_benchmark
    from playground.store.values import now

    corpus = reviewable_benchmark(workspace, benchmark)["corpus"]
    questions = load_questions(workspace, benchmark)
    known = {question.id for question in questions}
    unknown = sorted(set(decisions) - known)
    if unknown:
        raise PlaygroundError(f"benchmark {benchmark!r} has no question with id {unknown[0]!r}")
    undecided = [question.id for question in questions if question.id not in decisions]
    if undecided:
        shown = ", ".join(undecided[:5]) + (", ..." if len(undecided) > 5 else "")
        raise PlaygroundError(
            f"{len(undecided)} question(s) of {benchmark!r} have no decision yet ({shown}): accept, edit or reject each"
        )
    kept, records = [], []
    for question in questions:
        question_kept, record = _decide(workspace, benchmark, question, decisions[question.id])
        records.append(record)
        if question_kept is not None:
            kept.append(question_kept)
    if not kept:
        raise PlaygroundError(f"every question of {benchmark!r} was rejected: no reviewed set to save")
    name, root, version = reviewed_name(workspace, benchmark)
    counts = {what: sum(1 for r in records if r["decision"] == what) for what in DECISIONS}
    base = {k: v for k, v in benchmark_metadata(workspace, benchmark).items() if k not in ("review", "imported")}
    review = {
        "of": benchmark,
        "generated": root,
        "version": version,
        "session_id": session_id,
        "reviewed_at": now(),
        "counts": counts,
        "decisions": records,
    }
    source = f"review {version} of {benchmark}"
    save_benchmark(workspace, name, corpus, REVIEWED_FORMAT, source, kept, {**base, "review": review})
    return {"name": name, "of": benchmark, "corpus": corpus, "version": version, "questions": len(kept), **counts}
