"""Citation correctness for templates that cite passages as [n] (rag-citations), after ALCE (Gao et al. 2023):
- citation recall: a sentence counts when the passages it cites, together, support it (an uncited sentence does not);
- citation precision: a citation counts when its sentence is supported and the citation is needed: its passage
  alone supports the sentence, or the sentence's other citations without it do not.
Support is the judge model's yes/no (ALCE uses an NLI model; the method is named so in reports). A citation of a
passage number the prompt did not show is flagged and counts as imprecise. Each sentence is a span of the judge's
trace. The raw model output is judged (the parsed short answer has its [n] markers removed)."""

from __future__ import annotations

import re
from typing import Optional

from playground.evaluation.judges.calls import reason_of, judge_call, parse_step
from playground.evaluation.judges.replies import json_reply, numbered, truth
from playground.evaluation.judges.scrutiny import scrutinised
from playground.programs.tracing import Tracer
from playground.store.span_kinds import SpanKind
from playground.plugins.records import Judge

METHOD = "ALCE citation recall and precision (Gao et al. 2023), support judged by the judge model instead of NLI"
_CITED = re.compile(r"\[(\d+(?:\s*[,;-]\s*\d+)*)\]")
# A sentence ends at . ! ? (and the Arabic, Devanagari, Ethiopic ones) before whitespace, or at a full-width
# Chinese or Japanese 。！？ (with the closing quotes and [n] citations right after it) whether or not a space
# follows, as those scripts write.
_SENTENCE_END = re.compile(
    r"(?<=[.!?؟۔।॥።‼⁇⁈⁉])\s+|(?<=[。！？｡．﹒﹖﹗])[」』”’）]*(?:\s*\[\d+(?:\s*[,;-]\s*\d+)*\])*\s*"
)


class _Unreadable(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def sentences(answer: str) -> list[str]:
    """The answer's sentences; a piece holding only citations ("... France. [2]") joins the sentence before it."""
    parts: list[str] = []
    for piece in _pieces(" ".join((answer or "").split())):
        if parts and not _CITED.sub("", piece).strip(" .,;。，；"):
            parts[-1] = f"{parts[-1]} {piece}"
        elif piece.strip():
            parts.append(piece.strip())
    return parts


def _pieces(text: str) -> list[str]:
    """`text` cut after each sentence end (the closing quotes after a full-width stop stay with its sentence)."""
    pieces, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        if end.end() > start:
            pieces.append(text[start : end.end()].strip())
            start = end.end()
    return [piece for piece in pieces + [text[start:].strip()] if piece]


def cited_numbers(sentence: str) -> list[int]:
    """The passage numbers a sentence cites as [2], [1, 3] or [1-2], in order, once each."""
    numbers: list[int] = []
    for group in _CITED.findall(sentence):
        for part in re.split(r"[,;]", group):
            low, _, high = part.strip().partition("-")
            first, last = int(low), int(high or low)
            numbers.extend(range(first, min(last, first + 50) + 1))
    return list(dict.fromkeys(numbers))


def read_support(text: str) -> dict:
    found = json_reply(text, "supported")
    return {"supported": truth(found, "supported", text), "reason": reason_of(found, text)}


def judge_citations(workspace, judge, item, passages: list[dict], tracer: Tracer, sample_index: int = 0) -> dict:
    """One answer's sentences and citations checked: the outcome the shared loop stores."""
    shown = numbered(passages)
    checked: list[dict] = []
    for number, sentence in enumerate(sentences(item.answer), 1):
        cites = cited_numbers(sentence)
        with tracer.span(SpanKind.SENTENCE, f"sentence {number}", {"sentence": sentence, "cites": cites}) as span:
            try:
                entry = _check_sentence(workspace, judge, sentence, cites, shown, tracer, sample_index, number)
            except _Unreadable as unreadable:
                span.error = unreadable.message
                checked.append({"sentence": sentence, "cites": cites, "error": unreadable.message})
                return _outcome(None, None, None, {"sentences": checked}, f"sentence {number}: {unreadable.message}")
            span.outputs = dict(entry)
        checked.append(entry)
    if not checked:
        return _outcome(None, None, "the answer has no sentences", {"sentences": []}, None)
    supported = sum(entry["supported"] for entry in checked)
    total = sum(len(entry["cites"]) for entry in checked)
    precise = sum(len(entry["precise"]) for entry in checked)
    uncited = sum(not entry["cites"] for entry in checked)
    out_of_range = sorted({n for entry in checked for n in entry["out_of_range"]})
    details = {
        "sentences": checked,
        "uncited": uncited,
        "out_of_range": out_of_range,
        "citations": total,
        "method": METHOD,
    }
    notes = [f"{uncited} uncited sentence(s)"] if uncited else []
    notes += [f"cites passage(s) {', '.join(map(str, out_of_range))} not shown"] if out_of_range else []
    return _outcome(
        supported / len(checked),
        precise / total if total else None,
        "; ".join(notes) or "every sentence cites passages",
        details,
        None,
        f"{supported}/{len(checked)} sentences supported",
    )


def _check_sentence(
    workspace, judge, sentence: str, cites: list[int], shown: list[dict], tracer, sample_index, number: int
) -> dict:
    in_range = [n for n in cites if 1 <= n <= len(shown)]
    out_of_range = [n for n in cites if n not in in_range]

    def supports(numbers: list[int], label: str) -> bool:
        variables = {"sentence": sentence, "passages": [shown[n - 1] for n in numbers]}
        text = judge_call(workspace, judge, "citation", variables, tracer, sample_index, name=label)
        parsed, error = parse_step(
            tracer, f"parse {label}", text, scrutinised(read_support, judge.templates.get("citation"))
        )
        if error:
            raise _Unreadable(error)
        return bool(parsed["supported"])

    joint = bool(in_range) and supports(in_range, f"sentence {number} cited passages")
    precise: list[int] = []
    if joint:
        for cite in in_range:
            if len(in_range) == 1 or supports([cite], f"sentence {number} passage {cite}"):
                precise.append(cite)
            elif not supports([n for n in in_range if n != cite], f"sentence {number} without {cite}"):
                precise.append(cite)
    return {
        "sentence": sentence,
        "cites": cites,
        "supported": joint,
        "precise": precise,
        "out_of_range": out_of_range,
        "error": None,
    }


def _outcome(
    recall: Optional[float],
    precision: Optional[float],
    why,
    details: dict,
    error: Optional[str],
    verdict: Optional[str] = None,
) -> dict:
    return {
        "score": recall,
        "verdict": verdict,
        "reason": why,
        "details": details,
        "metrics": {"citation_recall": recall, "citation_precision": precision},
        "error": error,
    }


# This judge's registration: evaluation/plugin.py registers every JUDGE of this package, as a plugin would.
JUDGE = Judge(
    "citations",
    {"citation": "judge-citation"},
    "ALCE-style citation recall and precision for answers citing passages as [n]",
    judge=judge_citations,
    metrics=("citation_recall", "citation_precision"),
    needs_passages=True,
    answer_field="output",  # the parsed short answer has its [n] markers removed: judge what the model wrote
    method=METHOD,
)
