"""Text the app does not control (questions, passages, predictions, labels, rationales, session names) shown as
text: escaped HTML, never Markdown, so `![x](http://host/beacon.png)` is shown, not fetched, and links stay dead.
Each block of it carries dir="auto" (an inline piece a <bdi>), so Arabic and Hebrew read right to left.

Markdown is for the app's own words only; a label mixing both escapes the stored part with `md_escape`.
"""

from __future__ import annotations

import html
import re
from typing import Callable, Iterable, Mapping, Optional

import streamlit as st

STYLE = """<style>
.pg-text {white-space: pre-wrap; word-break: break-word; margin: 0 0 0.5rem 0; font-size: 0.95rem;}
.pg-text.pg-muted {color: #666; font-size: 0.85rem;}
.pg-text.pg-strong {font-weight: 600; font-size: 1.15rem;}
.pg-label {color: #666; font-size: 0.8rem; margin-bottom: 0;}
.pg-cards {display: flex; flex-direction: column; gap: 6px;}
.pg-card {display: grid; grid-template-columns: 3.2rem 1fr; gap: 2px 8px; border: 1px solid #d0d7de;
  border-left: 5px solid #d0d7de; border-radius: 4px; padding: 4px 8px; overflow: hidden;}
.pg-card.pg-gold {border-left-color: #1a7f37;}
.pg-card .pg-rank {grid-row: span 2; font-weight: 700; font-size: 1.1rem; color: #444;}
.pg-card .pg-head {font-size: 0.85rem; overflow-wrap: anywhere;}
.pg-card .pg-body {font-size: 0.85rem; white-space: pre-wrap; word-break: break-word;}
.pg-card .pg-more summary {cursor: pointer; list-style: none;}
.pg-card .pg-more summary::-webkit-details-marker {display: none;}
.pg-card .pg-toggle {display: block; color: #0969da; font-size: 0.8rem;}
.pg-card .pg-more[open] .pg-preview, .pg-card .pg-more[open] .pg-all, .pg-card .pg-more:not([open]) .pg-less
  {display: none;}
.pg-card .pg-id {font-family: monospace; padding: 0 4px; border-radius: 6px; background: #eee;}
.pg-card .pg-goldmark {color: #1a7f37; font-weight: 700;}
.pg-card mark {background: #fff3a3; padding: 0; box-shadow: inset 1px 0 #e0c34a, inset -1px 0 #e0c34a;}
.pg-text mark.pg-span {background: #ffd54a; padding: 0 1px; border-radius: 2px;}
.pg-text mark.pg-contradicted {background: #ffb3b3; padding: 0 1px; border-radius: 2px;}
.pg-text mark.pg-notfound, .pg-text mark.pg-flagged {background: #ffd54a; padding: 0 1px; border-radius: 2px;}
</style>"""

# Code blocks (rendered prompts, traces' messages) mix the app's template words with stored text: each line takes
# the direction of its first letter, so an Arabic passage inside an English prompt reads right to left.
CODE_DIRECTION_STYLE = "<style>[data-testid='stCode'] pre {unicode-bidi: plaintext; text-align: start;}</style>"
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=&])")
_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(
    "a an and are as at be by did do does for from how in is it of on or the to was were what "
    "when where which who whom whose why with".split()
)


def text_html(text) -> str:
    """Stored text as HTML: every character escaped (newlines kept by the CSS)."""
    return html.escape("" if text is None else str(text), quote=True)


def md_escape(text) -> str:
    """Stored text placed inside Markdown (a widget label, an expander title): every Markdown character escaped."""
    value = "" if text is None else str(text)
    return _MD_SPECIAL.sub(r"\\\1", value.replace("\n", " "))


def show_text(
    text, container=None, *, label: Optional[str] = None, css_class: str = "", muted: bool = False, strong: bool = False
) -> None:
    """Show stored text as plain text (optionally under a label, the app's own word)."""
    target = container if container is not None else st
    classes = " ".join(
        c for c in ("pg-text", css_class, "pg-muted" if muted else "", "pg-strong" if strong else "") if c
    )
    head = f"<p class='pg-label'>{html.escape(label)}</p>" if label else ""
    target.html(f"{STYLE}{head}<div class='{classes}' dir='auto'>{text_html(text)}</div>")


def query_terms(query: str) -> list[str]:
    """The words of a query worth highlighting (no stopwords, no one-letter words)."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query or ""):
        lowered = word.lower()
        if len(lowered) > 1 and lowered not in STOPWORDS:
            seen.setdefault(lowered, None)
    return list(seen)


def highlight_html(text, terms: Iterable[str]) -> str:
    """Escaped text with whole-word, case-insensitive matches of `terms` wrapped in <mark>."""
    value = "" if text is None else str(text)
    words = [re.escape(t) for t in terms if t]
    if not words:
        return text_html(value)
    pattern = re.compile(r"\b(" + "|".join(sorted(words, key=len, reverse=True)) + r")\b", re.IGNORECASE)
    parts, last = [], 0
    for match in pattern.finditer(value):
        parts.append(text_html(value[last : match.start()]))
        parts.append(f"<mark>{text_html(match.group(0))}</mark>")
        last = match.end()
    parts.append(text_html(value[last:]))
    return "".join(parts)


Locate = Callable[[str], list[tuple[int, int]]]  # a text -> the ranges of the query's terms in it


def located_html(text, spans: Iterable[tuple[int, int]]) -> str:
    """Escaped text with the ranges `spans` (the query's terms, as the corpus's analyser found them) in <mark>."""
    return _ranges_html(text, ((start, end, "<mark>") for start, end in spans))


def _marker(terms: Iterable[str], locate: Optional[Locate]) -> Callable[[str], str]:
    """The text -> marked HTML function: by the analyser's ranges when `locate` is given, else whole-word terms."""
    if locate is not None:
        return lambda text: located_html(text, locate(text))
    listed = list(terms)
    return lambda text: highlight_html(text, listed)


MARK_CLASSES = frozenset({"pg-span", "pg-contradicted", "pg-notfound", "pg-flagged"})


def marked_html(text, marks: Iterable[tuple]) -> str:
    """Escaped text with the character ranges `marks` (offsets in the raw text) wrapped in <mark class=pg-span>: each
    piece is escaped on its own, so a span can neither cut an entity nor carry markup of its own. A mark may name
    its class as a third item (one of MARK_CLASSES: contradicted and not-found claims, flagged sentences)."""
    return _ranges_html(
        text,
        ((m[0], m[1], f"<mark class='{m[2] if len(m) > 2 and m[2] in MARK_CLASSES else 'pg-span'}'>") for m in marks),
    )


def _ranges_html(text, ranges: Iterable[tuple]) -> str:
    """Escaped text with each (start, end, opening tag) range wrapped: pieces escaped on their own, overlaps cut."""
    value = "" if text is None else str(text)
    parts, last = [], 0
    for start, end, tag in sorted(ranges):
        start, end = max(start, last), min(end, len(value))
        if start >= end:
            continue
        parts.append(text_html(value[last:start]))
        parts.append(f"{tag}{text_html(value[start:end])}</mark>")
        last = end
    parts.append(text_html(value[last:]))
    return "".join(parts)


PREVIEW_CHARS = 200  # about five lines of a card in a third of a 1400-pixel page


def passage_body_html(
    text: str, terms: Iterable[str], preview_chars: int = PREVIEW_CHARS, locate: Optional[Locate] = None
) -> str:
    """A passage's text with query terms marked; a long one shows its first few lines and opens to all of it (a
    <details>, so no script is needed)."""
    mark = _marker(terms, locate)
    if len(text) <= preview_chars:
        return mark(text)
    cut = text.rfind(" ", 0, preview_chars)
    preview = text[: cut if cut > preview_chars // 2 else preview_chars].rstrip()
    return (
        f"<details class='pg-more'><summary><span class='pg-preview'>{mark(preview)} …</span>"
        f"<span class='pg-toggle pg-all'>show all {len(text)} characters</span>"
        f"<span class='pg-toggle pg-less'>show less</span></summary>{mark(text)}</details>"
    )


def passage_card_html(
    passage: Mapping,
    gold: bool,
    terms: Iterable[str] = (),
    colour: Optional[str] = None,
    note: str = "",
    locate: Optional[Locate] = None,
) -> str:
    """One passage as a fixed-layout card: rank, id, title, retriever score, gold mark, text with query terms
    marked; everything stored is escaped, so a passage cannot break the card or the page. The head wraps rather
    than cutting the score and note off in a narrow column."""
    score = passage.get("score")
    score_text = f" · score {float(score):.3f}" if isinstance(score, (int, float)) and score == score else ""
    badge = f" style='background:{html.escape(colour)}'" if colour else ""
    terms = list(terms)
    mark = _marker(terms, locate)
    return (
        f"<div class='pg-card{' pg-gold' if gold else ''}' data-passage='{text_html(passage.get('id'))}' "
        f"data-gold='{str(bool(gold)).lower()}'>"
        f"<div class='pg-rank'>#{text_html(passage.get('rank', ''))}</div>"
        f"<div class='pg-head'>{'<span class=pg-goldmark>★ gold</span> ' if gold else ''}"
        f"<bdi class='pg-id'{badge}>{text_html(passage.get('id'))}</bdi> "
        f"<b><bdi>{mark(str(passage.get('title') or ''))}</bdi></b>{score_text}"
        f"{' · ' + text_html(note) if note else ''}</div>"
        f"<div class='pg-body' dir='auto'>"
        f"{passage_body_html(str(passage.get('text') or ''), terms, locate=locate)}</div></div>"
    )


def passage_cards(
    passages: list[Mapping],
    gold_ids: Iterable[str] = (),
    query: str = "",
    container=None,
    colours: Optional[Mapping[str, str]] = None,
    notes: Optional[Mapping[str, str]] = None,
    gold_caption: Optional[str] = None,
    locate: Optional[Locate] = None,
) -> None:
    """Ranked passages as cards (see passage_card_html); a caption says how many gold passages were found (or
    `gold_caption`, when gold is counted otherwise, e.g. by span). `locate` finds the query's terms in a text as
    the corpus's analyser does; without it, the query's words are marked where they occur whole."""
    target = container if container is not None else st
    gold = set(gold_ids)
    if not passages:
        target.caption("No passages.")
        return
    if gold_caption:
        target.caption(gold_caption)
    elif gold:
        found = sum(1 for p in passages if p.get("id") in gold)
        target.caption(f"{found} of {len(gold)} gold passage(s) retrieved (★ = gold)")
    terms = query_terms(query)
    cards = "".join(
        passage_card_html(
            p,
            p.get("id") in gold,
            terms,
            (colours or {}).get(p.get("id")),
            (notes or {}).get(p.get("id"), ""),
            locate,
        )
        for p in passages
    )
    target.html(f"{STYLE}<div class='pg-cards'>{cards}</div>")
