"""The error a session file that does not match its format raises, naming the record and field it is about."""

from __future__ import annotations

from typing import Any

from playground import PlaygroundError


class SessionFormatError(PlaygroundError):
    """A session file that does not match the format; `where` names the record and field."""

    def __init__(self, where: str, problem: str):
        self.where = where
        self.problem = problem
        super().__init__(f"{where}: {problem}" if where else problem)


def type_name(value: Any) -> str:
    """A JSON value's kind in words ("a string"), for messages."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)
