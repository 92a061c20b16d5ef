"""TemplateError: one line naming the part, line and column, built from Jinja2's exceptions (never a traceback)."""

from __future__ import annotations

import re
import traceback
from typing import Iterator, Optional

from jinja2 import TemplateSyntaxError, UndefinedError
from jinja2.exceptions import SecurityError

from playground import PlaygroundError
from playground.prompts.limits import BudgetExceeded

_TAG = re.compile(r"\{\{.*?(?:\}\}|$)|\{%.*?(?:%\}|$)", re.S)
_OPENER = re.compile(r"\{\{|\{%|\{#")
_CLOSER_OF = {"{{": "}}", "{%": "%}", "{#": "#}"}
_BLOCK_TAG = re.compile(r"\{%[-+]?\s*(\w+)")
_BLOCKS = {"for", "if", "macro", "call", "filter", "set", "block", "with", "raw", "autoescape", "trans"}


class TemplateError(PlaygroundError):
    """A template that cannot be parsed or rendered: where (part, line, column) and what, on one line.

    `line` counts within the part (1 = its first line); `file_line` is the same line in the whole template file
    when known. Header errors have part "header" and count lines in the file.
    """

    def __init__(
        self,
        problem: str,
        part: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        template: Optional[str] = None,
        file_line: Optional[int] = None,
    ):
        self.problem = " ".join(str(problem).split())
        self.part = part
        self.line = line
        self.column = column
        self.template = template
        self.file_line = file_line
        super().__init__(self._message())

    def _message(self) -> str:
        where = []
        if self.template:
            where.append(f"template {self.template!r}")
        if self.part:
            where.append("header" if self.part == "header" else f"{self.part} part")
        if self.line is not None:
            in_file = self.part != "header" and self.file_line is not None and self.file_line != self.line
            where.append(f"line {self.line}" + (f" (file line {self.file_line})" if in_file else ""))
        if self.column is not None:
            where.append(f"column {self.column}")
        return f"{', '.join(where)}: {self.problem}" if where else self.problem

    def to_dict(self) -> dict:
        return {
            "message": str(self),
            "problem": self.problem,
            "part": self.part,
            "line": self.line,
            "column": self.column,
            "file_line": self.file_line,
            "template": self.template,
            "over_budget": isinstance(self, RenderBudgetError),
        }


class RenderBudgetError(TemplateError):
    """A render that went over its budget (time, memory, output, steps, depth, or an operation too large)."""


def _line_text(source: str, line: int) -> str:
    lines = source.split("\n")
    return lines[line - 1] if 1 <= line <= len(lines) else ""


def _position(source: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset."""
    before = source[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def _find_on_line(line_text: str, needle: str) -> Optional[int]:
    """1-based column of `needle` on the line, preferring a match inside a {{ }} or {% %} tag."""
    if not needle:
        return None
    pattern = re.compile(rf"(?<![\w]){re.escape(needle)}(?![\w])" if re.match(r"\w", needle) else re.escape(needle))
    for tag in _TAG.finditer(line_text):
        found = pattern.search(line_text, tag.start(), tag.end())
        if found:
            return found.start() + 1
    found = pattern.search(line_text)
    return found.start() + 1 if found else None


def _first_tag_column(line_text: str) -> int:
    found = _OPENER.search(line_text)
    return found.start() + 1 if found else 1


def _unclosed_opener(source: str) -> Optional[int]:
    """Offset of the first {{, {% or {# that is never closed."""
    position = 0
    while True:
        opener = _OPENER.search(source, position)
        if opener is None:
            return None
        closer = source.find(_CLOSER_OF[opener.group()], opener.end())
        if closer < 0:
            return opener.start()
        position = closer + 2


def _unclosed_block(source: str) -> Optional[int]:
    """Offset of the innermost block tag ({% for %}, {% if %}, ...) left without its end tag."""
    stack: list[int] = []
    for tag in _BLOCK_TAG.finditer(source):
        name = tag.group(1)
        if name in _BLOCKS:
            if name == "set" and "=" in source[tag.end() : source.find("%}", tag.end())]:
                continue
            stack.append(tag.start())
        elif name.startswith("end") and name[3:] in _BLOCKS and stack:
            stack.pop()
    return stack[-1] if stack else None


def _quoted(message: str) -> list[str]:
    return re.findall(r"'([^']*)'", message)


def _located_tokens(source: str, starts: list, failed: list) -> Iterator[tuple[int, str, str]]:
    """Jinja's raw tokens of `source`, noting where each starts (`starts`) and, when the lexer itself fails, the
    offset it stopped at (`failed`). A token's text is found searching on from the last one: whitespace the
    environment strips around block tags is the only text between them that no token carries."""
    from playground.prompts.environment import get_environment

    position = 0
    tokens = get_environment().lexer.tokeniter(source, None)
    while True:
        try:
            lineno, kind, value = next(tokens)
        except StopIteration:
            return
        except TemplateSyntaxError:
            rest = source[position:]
            failed.append(position + len(rest) - len(rest.lstrip()))  # the first text it could not read
            raise
        found = source.find(value, position)
        if found < 0:  # text the lexer rewrote (line endings): positions from here on are unknown
            return
        starts.append(found)
        position = found + len(value)
        yield lineno, kind, value


def _failing_offset(source: str, message: str) -> Optional[int]:
    """Offset of the token Jinja's parser stopped at (or of the text its lexer could not read), from a second
    parse over a token stream that knows where each token starts; None at the end of the template or when the
    source parses (an error found after parsing). "expected name or number" is about the token after a dot,
    which the parser has already read past."""
    from jinja2.lexer import TokenStream
    from jinja2.parser import Parser

    from playground.prompts.environment import get_environment

    environment = get_environment()
    starts: list[int] = []
    failed: list[int] = []
    located: list[tuple[object, int]] = []

    def tokens():
        for token in environment.lexer.wrap(_located_tokens(source, starts, failed)):
            located.append((token, starts[-1]))
            yield token

    parser = Parser(environment, source)
    parser.stream = TokenStream(tokens(), None, None)
    try:
        parser.parse()
    except TemplateSyntaxError:
        if failed:
            return failed[0] if failed[0] < len(source) else None
        current = parser.stream.current
        at_end = len(located) if current.type == "eof" else None
        index = next((i for i, (token, _) in enumerate(located) if token is current), at_end)
        if index is not None and message == "expected name or number":
            index -= 1
        return located[index][1] if index is not None and 0 <= index < len(located) else None
    return None


def _syntax_location(error: TemplateSyntaxError, source: str) -> tuple[int, int]:
    """Where Jinja stopped: the token its parser failed on, found by position, not by searching for its text."""
    message = error.message or ""
    line = error.lineno or 1
    char = re.search(r"unexpected char .* at (\d+)$", message)
    if char:
        return _position(source, int(char.group(1)))
    failing = _failing_offset(source, message)
    unclosed = _unclosed_opener(source)
    if unclosed is not None and (failing is None or failing > unclosed):  # the tag left open is the cause
        return _position(source, unclosed)
    if failing is not None:
        return _position(source, failing)
    if message.lower().startswith("unexpected end of template"):
        block = _unclosed_block(source)
        if block is not None:
            return _position(source, block)
    line_text = _line_text(source, line)
    got = re.search(r"got '([^']*)'", message)
    needles = [got.group(1)] if got else _quoted(message)[:1]
    for needle in needles:
        column = _find_on_line(line_text, needle)
        if column:
            return line, column
    return line, _first_tag_column(line_text)


def _runtime_line(error: BaseException, filename: str) -> Optional[int]:
    """The template line a render error came from: Jinja rewrites its traceback to frames named after the template."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename == filename]
    return frames[-1].lineno if frames else None


def _runtime_needle(error: BaseException) -> Optional[str]:
    message = str(error)
    for pattern in (
        r"^'([^']+)' is undefined",
        r"has no attribute '([^']+)'",
        r"access to attribute '([^']+)'",
        r"has no element '?([^']+?)'?$",
    ):
        found = re.search(pattern, message)
        if found:
            return found.group(1)
    return None


def _first_use(source: str, needle: str) -> Optional[tuple[int, int]]:
    for number, text in enumerate(source.split("\n"), start=1):
        column = _find_on_line(text, needle)
        if column and _TAG.search(text):
            return number, column
    return None


def _describe(error: BaseException) -> str:
    if isinstance(error, SecurityError):
        return f"refused by the sandbox: {error}"
    if isinstance(error, (UndefinedError, TemplateSyntaxError)):
        return str(getattr(error, "message", None) or error)
    return f"{type(error).__name__}: {error}"


def template_error(
    error: BaseException,
    source: str,
    part: str,
    template: Optional[str] = None,
    first_line: Optional[int] = None,
    filename: Optional[str] = None,
) -> TemplateError:
    """Map a Jinja2 (or render-time Python) exception on one part's `source` to a TemplateError.

    `first_line` is the file line the part starts on, so the error can also name the file line.
    """
    line: Optional[int]
    column: Optional[int]
    if isinstance(error, TemplateSyntaxError):
        line, column = _syntax_location(error, source)
    else:
        line = _runtime_line(error, filename or f"<{part}>")
        needle = _runtime_needle(error)
        column = None
        if line is not None:
            text = _line_text(source, line)
            column = (_find_on_line(text, needle) if needle else None) or _first_tag_column(text)
        elif needle:
            line, column = _first_use(source, needle) or (None, None)
    file_line = first_line + line - 1 if first_line is not None and line is not None else None
    kind = RenderBudgetError if isinstance(error, (BudgetExceeded, MemoryError, RecursionError)) else TemplateError
    return kind(_describe(error), part=part, line=line, column=column, template=template, file_line=file_line)
