"""The answers of a stored run that a judge looks at: question text, the answer, the reference answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from playground import PlaygroundError

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord

ANSWER_FIELDS = ("prediction", "output")


@dataclass
class JudgedItem:
    run_id: str
    question_id: str
    repeat: int
    question: str
    answer: str
    references: list[str] = field(default_factory=list)
    record: Any = None  # the benchmark's Question (gold passage ids, gold spans) for judges that read its gold


def _answer(result: dict, answer_field: str) -> str:
    """The parsed prediction (or the raw output when asked, or when the prediction is empty)."""
    if answer_field == "output":
        return (result.get("output") or result.get("prediction") or "").strip()
    return (result.get("prediction") or result.get("output") or "").strip()


def run_items(
    workspace, run_id: str, answer_field: str = "prediction"
) -> tuple[RunRecord, list[JudgedItem], list[dict]]:
    """(the run, its judgeable items in sample order, the results left out with why)."""
    from playground.store.datasets import load_questions
    from playground.store.runs import get_results, get_run

    if answer_field not in ANSWER_FIELDS:
        raise PlaygroundError(f"answer field must be one of {', '.join(ANSWER_FIELDS)}, not {answer_field!r}")
    run = get_run(workspace, run_id)
    dataset = run.config.get("dataset")
    if not dataset:
        raise PlaygroundError(f"run {run.id} records no dataset, so its questions cannot be shown to a judge")
    questions = {question.id: question for question in load_questions(workspace, dataset)}
    items, skipped = [], []
    for result in get_results(workspace, run.id):
        where = {"question_id": result["question_id"], "repeat": result["repeat"]}
        question = questions.get(result["question_id"])
        if question is None:
            skipped.append({**where, "why": f"question not in benchmark {dataset!r}"})
        elif result["error"]:
            skipped.append({**where, "why": f"the run failed on it: {result['error']}"})
        elif not _answer(result, answer_field):
            skipped.append({**where, "why": "empty answer"})
        else:
            items.append(
                JudgedItem(
                    run.id,
                    question.id,
                    int(result["repeat"]),
                    question.text,
                    _answer(result, answer_field),
                    list(question.answers),
                    question,
                )
            )
    return run, items, skipped


def check_repeat(repeat: int) -> int:
    from playground.bounds import REPEATS

    if isinstance(repeat, float):  # 2.0 is not a count of repeats a user typed
        raise REPEATS.refusal(repeat, "--repeat")
    return int(REPEATS.check(repeat, "--repeat"))


def run_model(run: RunRecord) -> Optional[str]:
    return (run.config or {}).get("model")


def reference_text(references: list[str]) -> str:
    """Several acceptable answers are shown as alternatives."""
    return references[0] if len(references) == 1 else " OR ".join(f'"{ref}"' for ref in references)
