"""Judgments as the Traces and Experiments pages show them (no Streamlit here): where a faithfulness judge's
unsupported claims and a citation judge's flagged sentences sit in the answer (character ranges the page marks after
escaping), each judgment's evidence as rows, and which judgment kinds judge each answer.

A claim is the judge's own sentence, so it is found in the answer by its words: verbatim (case and spacing aside)
when it can be, else the answer's sentence sharing most of its words; a claim found nowhere is listed, not marked.
"""

from __future__ import annotations

import re
from typing import Mapping, Optional, Sequence

# The mark each verdict gets in the answer (the CSS classes of components/text.py); supported claims are not marked.
VERDICT_MARKS = {"contradicted": "pg-contradicted", "not found": "pg-notfound"}
FLAGGED_MARK = "pg-flagged"
_SENTENCE = re.compile(r"\S.*?(?:[.!?]+(?=\s|$)|$)", re.S)  # a full stop inside a word or URL ends nothing
_WORD = re.compile(r"\w+", re.UNICODE)


def _folded(text: str) -> tuple[str, list[int]]:
    """`text` lowercased with each run of whitespace as one space, and the offset in `text` of each character."""
    chars, offsets = [], []
    for index, char in enumerate(text):
        if char.isspace():
            if chars and chars[-1] == " ":
                continue
            char = " "
        chars.append(char.lower())
        offsets.append(index)
    return "".join(chars), offsets


def locate(text: str, phrase: str) -> Optional[tuple[int, int]]:
    """The character range of `phrase` in `text` (case and spacing aside, a final full stop optional), or None."""
    folded, offsets = _folded(text or "")
    wanted = _folded((phrase or "").strip().rstrip(".!?").strip())[0]
    if not wanted:
        return None
    at = folded.find(wanted)
    if at < 0:
        return None
    return offsets[at], offsets[at + len(wanted) - 1] + 1


def _words(text: str) -> set[str]:
    return {word.lower() for word in _WORD.findall(text or "")}


def closest_sentence(text: str, phrase: str, least: float = 0.5) -> Optional[tuple[int, int]]:
    """The range of the sentence of `text` holding the largest share (at least `least`) of `phrase`'s words."""
    wanted = _words(phrase)
    if not wanted:
        return None
    best, best_share = None, least
    for match in _SENTENCE.finditer(text or ""):
        share = len(wanted & _words(match.group(0))) / len(wanted)
        if share >= best_share:
            best, best_share = (match.start(), match.start() + len(match.group(0).rstrip())), share + 1e-9
    return best


def find(text: str, phrase: str) -> Optional[tuple[int, int]]:
    return locate(text, phrase) or closest_sentence(text, phrase)


def claim_marks(answer: str, claims: Sequence[Mapping]) -> tuple[list[tuple[int, int, str]], list[str]]:
    """(marks for the claims judged contradicted or not found, claims of those that could not be placed)."""
    marks, unplaced = [], []
    for claim in claims:
        mark = VERDICT_MARKS.get(str(claim.get("verdict")))
        if mark is None:
            continue
        where = find(answer, str(claim.get("claim") or ""))
        if where is None:
            unplaced.append(str(claim.get("claim") or ""))
        else:
            marks.append((where[0], where[1], mark))
    return marks, unplaced


def flagged(sentence: Mapping) -> list[str]:
    """Why a citation judge flags a sentence: unsupported by what it cites, no citation, or a passage not shown."""
    why = []
    if sentence.get("error"):
        why.append(f"error: {sentence['error']}")
    if not sentence.get("cites"):
        why.append("no citation")
    elif not sentence.get("supported") and not sentence.get("error"):
        why.append("not supported by its citations")
    if sentence.get("out_of_range"):
        why.append(f"cites passage(s) not shown: {', '.join(map(str, sentence['out_of_range']))}")
    return why


def sentence_marks(answer: str, sentences: Sequence[Mapping]) -> list[tuple[int, int, str]]:
    marks = []
    for sentence in sentences:
        where = find(answer, str(sentence.get("sentence") or "")) if flagged(sentence) else None
        if where is not None:
            marks.append((where[0], where[1], FLAGGED_MARK))
    return marks


def _shortened(text: str, chars: int = 240) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= chars else text[: chars - 1] + "…"


def claim_rows(details: Mapping, passages: Mapping[str, Mapping]) -> list[dict]:
    """A row per claim: its verdict, the deciding passage (number, id, title) and the judge's reason or error."""
    rows = []
    for number, claim in enumerate(details.get("claims") or [], 1):
        passage = passages.get(str(claim.get("passage_id") or ""), {})
        rows.append(
            {
                "#": number,
                "claim": claim.get("claim") or "",
                "verdict": claim.get("verdict") or ("error" if claim.get("error") else ""),
                "passage": f"[{claim['passage']}] {claim.get('passage_id')}" if claim.get("passage") else "",
                "passage title": passage.get("title") or "",
                "passage text": _shortened(passage.get("text") or ""),
                "reason": claim.get("error") or claim.get("reason") or "",
            }
        )
    return rows


def sentence_rows(details: Mapping) -> list[dict]:
    return [
        {
            "#": number,
            "sentence": sentence.get("sentence") or "",
            "cites": ", ".join(map(str, sentence.get("cites") or [])),
            "supported": bool(sentence.get("supported")),
            "precise": ", ".join(map(str, sentence.get("precise") or [])),
            "flagged": "; ".join(flagged(sentence)),
        }
        for number, sentence in enumerate(details.get("sentences") or [], 1)
    ]


def passage_rows(details: Mapping) -> list[dict]:
    """A context-precision judgment's verdict on each shown passage, in the order the prompt showed them."""
    return [
        {
            "#": entry.get("passage") or number,
            "passage": entry.get("passage_id") or "",
            "relevant": entry.get("relevant"),
            "gold": entry.get("gold"),
            "reason": entry.get("error") or entry.get("reason") or "",
        }
        for number, entry in enumerate(details.get("passages") or [], 1)
        if isinstance(entry, Mapping)
    ]


def metric_text(judgment: Mapping) -> str:
    """A judgment's outcome in one line: the judge's error, or each metric it gives (an unscored one as "-")."""
    if judgment.get("error"):
        return f"judge error: {judgment['error']}"
    metrics = (judgment.get("details") or {}).get("metrics") or {}
    shown = [f"{name} {'-' if value is None else f'{float(value):.2f}'}" for name, value in metrics.items()]
    if not shown:
        score = judgment.get("score")
        shown = ["-" if score is None else f"{float(score):.2f}"]
    verdict = judgment.get("verdict")
    return " · ".join(shown) + (f" ({verdict})" if verdict else "")


def judge_scores_text(result: Mapping, judged: Mapping) -> str:
    """The judge metrics an answer has beside its own scores (results_with_judge_scores), an error as an error."""
    own = set(result.get("scores") or {})
    parts = [f"{name} {float(value):.2f}" for name, value in (judged.get("scores") or {}).items() if name not in own]
    parts += [f"{name}: judge error" for name in (judged.get("judge_errors") or {})]
    return " · ".join(parts)


def answer_judge_kinds() -> tuple[str, ...]:
    """The judgment kinds of the judges of each answer (their reports and judgments show as metrics)."""
    from playground.evaluation.judges.registry import answer_judges

    return tuple(judge.kind for judge in answer_judges().values())
