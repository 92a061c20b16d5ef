"""Text from a file, a model or a user made safe to print: a terminal never receives a control character from it.

A session name shared in a file could otherwise clear the screen, retitle the window, print fake coloured text
(escape sequences), or forge extra rows of a listing (a newline, a carriage return, a NUL). Such characters are
shown as visible escapes (`\\x1b`, `\\n`, `\\u202e`), and a lone surrogate (which no terminal encoding can write)
as `\\ud800`, so the text stays readable and one value stays on one line.
"""

from __future__ import annotations

import re

# C0 controls, DEL, C1 controls (0x9b is an 8-bit CSI), line and paragraph separators, bidirectional overrides
# and isolates (which reorder what is shown), and lone surrogates.
_BEYOND_C0 = "\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_UNSAFE_IN_CELL = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
_UNSAFE_IN_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")  # keeps \t and \n
_UNSAFE_IN_JSON = re.compile(f"[{_BEYOND_C0}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(value: object) -> str:
    """A value for one cell or one line: every control character escaped, newlines and tabs included."""
    return _UNSAFE_IN_CELL.sub(lambda m: _escape(m.group()), str(value))


def safe_text(text: str) -> str:
    """Text of several lines that a command composed: its newlines and tabs kept, every other control escaped.

    Values placed in it from files or users go through `one_line` first, so they cannot add lines of their own.
    """
    return _UNSAFE_IN_TEXT.sub(lambda m: _escape(m.group()), text)


def safe_json(text: str) -> str:
    """JSON text (from json.dumps with ensure_ascii=False) with the controls json leaves raw written as \\u escapes.

    json.dumps escapes C0 controls itself; DEL, C1 controls, separators, bidi controls and lone surrogates would
    reach the terminal raw. They only occur inside JSON strings, so the escaped text decodes to the same value.
    """
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


SHOWN_INPUT_CHARS = 200  # an input echoed in a message is cut past this (a 49 KB value would fill the screen)
ERROR_LINE_CHARS = 1_000  # a whole error line is cut past this, whatever input it echoes


def shorten(value: object, limit: int = SHOWN_INPUT_CHARS) -> str:
    """A value echoed in a one-line message: control characters escaped, cut with its length when it is long."""
    text = one_line(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit * 2 // 3]}...{text[-limit // 6 :]} ({len(text):,} characters)"
