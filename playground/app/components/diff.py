"""A prompt diff: two texts side by side, changed lines and the changed words in them highlighted."""

from __future__ import annotations

import difflib
import html

import streamlit as st

STYLE = """
<style>
.pg-diff {border-collapse: collapse; width: 100%; font-family: monospace; font-size: 0.85rem;}
.pg-diff th {text-align: left; padding: 4px 6px; border-bottom: 1px solid #ccc;}
.pg-diff td {vertical-align: top; padding: 1px 6px; white-space: pre-wrap; word-break: break-word; width: 50%;}
.pg-diff td.pg-del {background: #ffecec;} .pg-diff td.pg-add {background: #eaffea;}
.pg-diff td.pg-chg {background: #fff8dc;}
.pg-diff del {background: #ffb6b6; text-decoration: none;} .pg-diff ins {background: #a6f3a6; text-decoration: none;}
</style>
"""


def _inline(a: str, b: str) -> tuple[str, str]:
    """The two versions of a changed line, with the differing words wrapped in <del>/<ins>."""
    words_a, words_b = a.split(" "), b.split(" ")
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, words_a, words_b, autojunk=False).get_opcodes():
        chunk_a = html.escape(" ".join(words_a[i1:i2]))
        chunk_b = html.escape(" ".join(words_b[j1:j2]))
        if op == "equal":
            left.append(chunk_a)
            right.append(chunk_b)
        else:
            if chunk_a:
                left.append(f"<del>{chunk_a}</del>")
            if chunk_b:
                right.append(f"<ins>{chunk_b}</ins>")
    return " ".join(left), " ".join(right)


def diff_rows(a: str, b: str) -> list[tuple[str, str, str]]:
    """(kind, left html, right html) per displayed row; kind is equal, change, delete or insert."""
    lines_a, lines_b = a.splitlines(), b.splitlines()
    rows: list[tuple[str, str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, lines_a, lines_b, autojunk=False).get_opcodes():
        if op == "equal":
            rows.extend(("equal", html.escape(x), html.escape(x)) for x in lines_a[i1:i2])
            continue
        old, new = lines_a[i1:i2], lines_b[j1:j2]
        for index in range(max(len(old), len(new))):
            left = old[index] if index < len(old) else None
            right = new[index] if index < len(new) else None
            if left is not None and right is not None:
                rows.append(("change", *_inline(left, right)))
            elif left is not None:
                rows.append(("delete", f"<del>{html.escape(left)}</del>", ""))
            else:
                rows.append(("insert", "", f"<ins>{html.escape(right)}</ins>"))
    return rows


def prompt_diff_html(a: str, b: str, label_a: str = "A", label_b: str = "B") -> str:
    """An HTML table: `a` left, `b` right; identical texts say so instead."""
    if a == b:
        return f"<p class='pg-same'>{html.escape(label_a)} and {html.escape(label_b)}: identical prompts.</p>"
    classes = {"equal": ("", ""), "change": ("pg-chg", "pg-chg"), "delete": ("pg-del", ""), "insert": ("", "pg-add")}
    body = "".join(
        f"<tr><td class='{classes[kind][0]}' dir='auto'>{left}</td><td class='{classes[kind][1]}' dir='auto'>{right}</td></tr>"
        for kind, left, right in diff_rows(a, b)
    )
    return (
        f"{STYLE}<table class='pg-diff'><tr><th>{html.escape(label_a)}</th><th>{html.escape(label_b)}</th></tr>"
        f"{body}</table>"
    )


def show_prompt_diff(a: str, b: str, label_a: str = "A", label_b: str = "B") -> None:
    st.html(prompt_diff_html(a, b, label_a, label_b))
