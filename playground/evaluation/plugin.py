"""The built-in metrics and judges, registered through the plugin hooks like any other. Each metric's score function
takes a playground.evaluation.scoring.ScoringItem; the libraries behind them (sacrebleu, rouge-score) load on first
use. The registration order is the order the app and the CLI show metrics in. Each built-in judge declares its own
record (JUDGE) in its module of playground.evaluation.judges.
"""

from __future__ import annotations

from typing import Optional

from playground.plugins import Judge, Metric, hookimpl

_HERE = "playground.evaluation.plugin"


def _normalized_references(item) -> list[str]:
    from playground.data.answers import normalize_answer

    return list(dict.fromkeys(normalize_answer(reference) for reference in item.references))


def _rule(item):
    """The item's answer rule, or None for SQuAD's (scored below exactly as before languages)."""
    from playground.evaluation.answer_rules import answer_rule

    rule = answer_rule(item.answer_rule)
    return None if rule.name == "squad" else rule


def _is_hotpotqa(item) -> bool:
    from playground.evaluation.metrics import HOTPOTQA_FORMATS

    return item.benchmark_format in HOTPOTQA_FORMATS


def accuracy(item) -> Optional[float]:
    """Multiple choice: the label the answer chose is a correct one."""
    from playground.evaluation.metrics import parse_choice

    chosen = parse_choice(item.prediction, item.choices)
    return float(chosen is not None and chosen in item.correct_labels)


def exact_match(item) -> float:
    """The normalised answer equals a normalised reference, by the item's language rule."""
    rule = _rule(item)
    if rule is not None:
        return rule.exact_match(item.prediction, _text_references(item))
    from playground.data.answers import normalize_answer

    predicted = normalize_answer(item.prediction)
    return max(float(predicted == reference) for reference in _normalized_references(item))


def cover_exact_match(item) -> float:
    rule = _rule(item)
    if rule is not None:
        return rule.cover_exact_match(item.prediction, _text_references(item))
    from playground.data.answers import normalize_answer
    from playground.evaluation.metrics import covers

    predicted = normalize_answer(item.prediction)
    return max(float(covers(predicted, reference)) for reference in _normalized_references(item))


def token_f1(item) -> float:
    """SQuAD's token F1, HotpotQA's official rule on a HotpotQA benchmark, or the item's language rule."""
    rule = _rule(item)
    if rule is not None:
        return rule.f1(item.prediction, _text_references(item))
    if _is_hotpotqa(item):
        from playground.evaluation.hotpotqa import answer_prf

        return max(answer_prf(item.prediction, reference)[0] for reference in item.references)
    from playground.data.answers import normalize_answer
    from playground.evaluation.metrics import tokens_f1

    predicted = normalize_answer(item.prediction).split()
    return max(tokens_f1(predicted, reference.split()) for reference in _normalized_references(item))


def _cmrc(name: str):
    """CMRC 2018's em or f1, beside MLQA's, on a Chinese benchmark (None elsewhere)."""

    def score(item) -> Optional[float]:
        rule = _rule(item)
        if rule is None or rule.language != "zh" or rule.name == "cmrc":
            return None
        from playground.evaluation.answer_rules import AnswerRule

        cmrc = AnswerRule("cmrc", "zh")
        references = _text_references(item)
        return cmrc.exact_match(item.prediction, references) if name == "em" else cmrc.f1(item.prediction, references)

    score.__name__ = f"cmrc_{name}"
    return score


cmrc_em, cmrc_f1 = _cmrc("em"), _cmrc("f1")


def _text_references(item) -> list[str]:
    return list(dict.fromkeys(item.references))


def bleu(item) -> float:
    """sacrebleu's sentence BLEU, with the tokeniser for the item's language (13a in English)."""
    from playground.evaluation.answer_rules import answer_rule, bleu_tokenizer
    from playground.evaluation.text_metrics import sentence_bleu

    return sentence_bleu(item.prediction, _text_references(item), bleu_tokenizer(answer_rule(item.answer_rule)))


def chrf(item) -> float:
    from playground.evaluation.text_metrics import sentence_chrf

    return sentence_chrf(item.prediction, _text_references(item))


def rouge_l(item) -> float:
    """rouge-score's ROUGE-L in English; outside it, the same LCS F-measure over the item's language's tokens."""
    rule = _rule(item)
    if rule is not None:
        from playground.evaluation.answer_rules import rouge_l_tokens
        from playground.evaluation.rouge import lcs_f_measure

        predicted = rouge_l_tokens(rule, item.prediction)
        return max(lcs_f_measure(rouge_l_tokens(rule, reference), predicted) for reference in _text_references(item))
    from playground.evaluation.text_metrics import rouge_l as rouge_l_score

    return rouge_l_score(item.prediction, _text_references(item))


def retrieval_recall(item) -> Optional[float]:
    """Share of the gold passages the program used (None when it retrieves nothing or there is no gold)."""
    from playground.evaluation.metrics import retrieval_recall as recall

    if item.used_passage_ids is None:
        return None
    return recall(item.used_passage_ids, item.gold_passage_ids)


def _supporting_fact(name: str):
    def score(item) -> Optional[float]:
        if not _is_hotpotqa(item):
            return None
        from playground.evaluation.hotpotqa import hotpotqa_scores

        return hotpotqa_scores(item.prediction, item.references, item.gold_facts, item.predicted_facts).get(name)

    score.__name__ = name
    return score


sp_em, sp_f1, joint_em, joint_f1 = (_supporting_fact(name) for name in ("sp_em", "sp_f1", "joint_em", "joint_f1"))

BUILTIN_METRICS = (
    Metric(
        "accuracy",
        f"{_HERE}:accuracy",
        "accuracy",
        binary=True,
        needs_choices=True,
        description="multiple choice: the chosen label is correct",
    ),
    Metric(
        "em",
        f"{_HERE}:exact_match",
        "exact match",
        binary=True,
        description="the normalised answer equals a reference (SQuAD v1.1; MLQA's in other languages)",
    ),
    Metric(
        "cover_em",
        f"{_HERE}:cover_exact_match",
        "cover exact match",
        binary=True,
        description="a normalised reference occurs in the answer as whole tokens",
    ),
    Metric(
        "f1",
        f"{_HERE}:token_f1",
        "token F1",
        description="token overlap F1 (HotpotQA's rule on HotpotQA; MLQA's in other languages)",
    ),
    Metric(
        "cmrc_em",
        f"{_HERE}:cmrc_em",
        "CMRC exact match",
        binary=True,
        summary=False,
        description="Chinese benchmarks: exact match by CMRC 2018's definition",
    ),
    Metric(
        "cmrc_f1",
        f"{_HERE}:cmrc_f1",
        "CMRC F1",
        summary=False,
        description="Chinese benchmarks: CMRC 2018's F1 (longest common substring of mixed segmentation)",
    ),
    Metric(
        "rougeL",
        f"{_HERE}:rouge_l",
        "ROUGE-L",
        description="rouge-score's ROUGE-L F-measure (outside English: over the language's tokens)",
    ),
    Metric("bleu", f"{_HERE}:bleu", "BLEU", summary=False, description="sacrebleu sentence BLEU / 100"),
    Metric("chrf", f"{_HERE}:chrf", "chrF", summary=False, description="sacrebleu sentence chrF / 100"),
    Metric(
        "retrieval_recall",
        f"{_HERE}:retrieval_recall",
        "retrieval recall",
        judges_answer=False,
        needs_reference=False,
        description="share of the gold passages the program used",
    ),
    Metric(
        "sp_em",
        f"{_HERE}:sp_em",
        "supporting-fact EM",
        binary=True,
        judges_answer=False,
        summary=False,
        description="HotpotQA: the named supporting facts equal the gold ones",
    ),
    Metric(
        "sp_f1",
        f"{_HERE}:sp_f1",
        "supporting-fact F1",
        judges_answer=False,
        summary=False,
        description="HotpotQA: overlap of named and gold supporting facts",
    ),
    Metric(
        "joint_em",
        f"{_HERE}:joint_em",
        "joint EM",
        binary=True,
        judges_answer=False,
        summary=False,
        description="HotpotQA: answer EM times supporting-fact EM",
    ),
    Metric(
        "joint_f1",
        f"{_HERE}:joint_f1",
        "joint F1",
        judges_answer=False,
        summary=False,
        description="HotpotQA: the joint F1 of answer and supporting facts",
    ),
)

FIRST_SHOWN = ("pointwise", "reference", "pairwise", "faithfulness", "context-precision", "answer-relevance")


def builtin_judges() -> list[Judge]:
    """The JUDGE record of every module of playground.evaluation.judges that declares one: a new built-in judge is
    its module, its template and its test. Shown in FIRST_SHOWN's order, then by name (display order only)."""
    import importlib
    import pkgutil

    import playground.evaluation.judges as package

    found = []
    for module in pkgutil.iter_modules(package.__path__):
        record = getattr(importlib.import_module(f"{package.__name__}.{module.name}"), "JUDGE", None)
        if isinstance(record, Judge):
            found.append(record)
    rank = {name: position for position, name in enumerate(FIRST_SHOWN)}
    return sorted(found, key=lambda judge: (rank.get(judge.name, len(rank)), judge.name))


@hookimpl
def register_metrics(register):
    for metric in BUILTIN_METRICS:
        register(metric)


@hookimpl
def register_judges(register):
    for judge in builtin_judges():
        register(judge)
