"""Scoring one answer with every registered metric, and what the registry says about metrics (their order, which
ones headline a run, which are 0/1, which decide "correct", their direction and display names): the app's lists,
the CLI's columns and the comparisons all read them from here, never from a list of their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from playground import PlaygroundError


@dataclass(frozen=True)
class ScoringItem:
    """What a metric sees of one answer.

    references: the reference answers (with choices, the correct choices' texts too); empty when reference-free.
    choices: (label, text) options of a multiple-choice question; correct_labels: the right ones.
    used_passage_ids: the passages the program used, None when it retrieves nothing; gold_passage_ids: the evidence.
    answer_rule: how em, f1 and cover_em read answers ("mlqa:zh"; playground.evaluation.answer_rules), None: SQuAD's.
    """

    prediction: str
    references: list[str]
    choices: list[tuple[str, str]] = field(default_factory=list)
    correct_labels: frozenset = frozenset()
    benchmark_format: Optional[str] = None
    gold_facts: Optional[list] = None
    predicted_facts: Optional[list] = None
    used_passage_ids: Optional[list[str]] = None
    gold_passage_ids: list[str] = field(default_factory=list)
    answer_rule: Optional[str] = None


def scoring_item(
    prediction: Optional[str],
    answers: Any,
    choices: Optional[list] = None,
    benchmark_format: Optional[str] = None,
    gold_facts: Optional[list] = None,
    predicted_facts: Optional[list] = None,
    used_passage_ids: Optional[Iterable[str]] = None,
    gold_passage_ids: Iterable[str] = (),
    answer_rule: Optional[str] = None,
) -> ScoringItem:
    """A ScoringItem from a question's parts: `answers` hold the correct label(s) when there are `choices`."""
    from playground.evaluation.metrics import choice_options, gold_labels

    references = [answers] if isinstance(answers, str) else [str(a) for a in (answers or [])]
    options, correct = [], frozenset()
    if choices and references:
        options = choice_options(choices)
        correct = frozenset(gold_labels(references, options))
        references += [text for label, text in options if label in correct and text not in references]
    return ScoringItem(
        prediction=prediction or "",
        references=references,
        choices=options,
        correct_labels=correct,
        benchmark_format=benchmark_format,
        gold_facts=gold_facts,
        predicted_facts=predicted_facts,
        used_passage_ids=None if used_passage_ids is None else list(used_passage_ids),
        gold_passage_ids=list(gold_passage_ids or []),
        answer_rule=answer_rule,
    )


def score_prediction(
    prediction: str,
    answers: Any,
    choices: Optional[list] = None,
    benchmark_format: Optional[str] = None,
    gold_facts: Optional[list] = None,
    predicted_facts: Optional[list] = None,
    answer_rule: Optional[str] = None,
) -> dict[str, float]:
    """Every registered metric for one prediction (built-ins: em, f1, cover_em, bleu, chrf, rougeL, and accuracy
    with choices; plugins add theirs).

    With choices, `answers` hold the correct label(s); the text metrics then also accept the correct choice's
    text as a reference. For a HotpotQA benchmark, f1 follows the official HotpotQA script, and the
    supporting-fact metrics are added when the program named facts (`predicted_facts`: titles or
    [title, sentence] pairs). `answer_rule` names how em, f1 and cover_em read answers in the benchmark's language
    (playground.evaluation.answer_rules; None: SQuAD's). No answers (reference-free) gives {}.
    """
    item = scoring_item(
        prediction, answers, choices, benchmark_format, gold_facts, predicted_facts, answer_rule=answer_rule
    )
    return score_item(item) if item.references else {}


def metric_records() -> dict:
    """Metric name -> its registration (playground.plugins.Metric), in registration order (built-ins first)."""
    from playground.plugins import registry

    return dict(registry().of("metrics"))


def score_item(item: ScoringItem) -> dict[str, float]:
    """Every registered metric that applies to `item` (those needing references are skipped without any)."""
    from playground.plugins import load_ref
    from playground.plugins.calls import call_plugin, optional_finite_number

    scores: dict[str, float] = {}
    for name, metric in metric_records().items():
        if (metric.needs_reference and not item.references) or (metric.needs_choices and not item.choices):
            continue
        score = load_ref(metric.score, f"metric {name!r}")
        try:
            value = call_plugin("metrics", name, "score", score, item, returns=optional_finite_number)
        except PlaygroundError:
            raise
        except Exception as error:  # noqa: BLE001 - a built-in metric's bug is named, not a bare traceback mid-run
            raise PlaygroundError(f"metric {name!r} failed on an answer: {type(error).__name__}: {error}") from error
        if value is not None:
            scores[name] = float(value)
    return scores


def metric_order(names: Iterable[str]) -> list[str]:
    """`names` in the registry's order, then any unregistered ones (from an older run or a removed plugin) sorted."""
    names = set(names)
    known = [name for name in metric_records() if name in names]
    return known + sorted(names - set(known))


def summary_metrics() -> list[str]:
    """The headline metrics: the columns of run lists and grids, the charts' defaults."""
    return [name for name, metric in metric_records().items() if metric.summary]


def answer_metrics() -> list[str]:
    """The metrics that can say an answer is correct, in the order a default is picked from."""
    return [name for name, metric in metric_records().items() if metric.judges_answer]


def general_metric() -> Optional[str]:
    """The first headline answer metric every question with a reference gets (none that needs choices): the
    default where no results say yet which metrics a benchmark has."""
    return next(
        (
            name
            for name, metric in metric_records().items()
            if metric.summary and metric.judges_answer and not metric.needs_choices
        ),
        None,
    )


def is_binary(name: Optional[str]) -> bool:
    metric = metric_records().get(name or "")
    return bool(metric and metric.binary)


def higher_is_better(name: str) -> bool:
    """A metric's direction (unregistered ones count as higher-is-better)."""
    metric = metric_records().get(name)
    return True if metric is None else bool(metric.higher_is_better)


def display_name(name: str) -> str:
    metric = metric_records().get(name)
    return metric.label if metric is not None else name


def default_metric(names: Iterable[str]) -> Optional[str]:
    """The metric "correct" is read from by default: the first answer metric present, else the first name."""
    present = metric_order(names)
    return next((name for name in answer_metrics() if name in present), present[0] if present else None)


def is_correct(name: Optional[str], value: float, threshold: float) -> bool:
    """An answer's score counts as correct at `threshold`: at least it, or at most it for lower-is-better metrics."""
    return float(value) >= threshold if name is None or higher_is_better(name) else float(value) <= threshold
