"""A registered extension's options: each with its type (that of its default), bounds and help, checked where a value
comes in (a CLI flag, the app, a stored config), so a typo fails before a long build with what and where."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from playground import PlaygroundError

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Option:
    """One option: its type is its default's (bool, int, float, str or dict); minimum/maximum bound numbers."""

    name: str
    default: Any
    help: str = ""
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    choices: tuple = ()

    @property
    def type_name(self) -> str:
        return type(self.default).__name__

    def coerce(self, value: Any, where: str) -> Any:
        """`value` as this option's type, within its bounds and choices; a PlaygroundError naming `where` else."""
        checked = _as_type(value, self.default, f"{where} {self.name!r}")
        if isinstance(checked, (int, float)) and not isinstance(checked, bool):
            low, high = self.minimum, self.maximum
            if (low is not None and checked < low) or (high is not None and checked > high):
                bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
                raise PlaygroundError(f"{where} {self.name!r}={checked} is outside {bounds}")
        if self.choices and checked not in self.choices:
            raise PlaygroundError(
                f"{where} {self.name!r}={checked!r} must be one of: {', '.join(str(c) for c in self.choices)}"
            )
        return checked

    def describe(self) -> dict:
        return {
            "name": self.name,
            "type": self.type_name,
            "default": self.default,
            "help": self.help,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "choices": list(self.choices),
        }


def _as_type(value: Any, default: Any, where: str) -> Any:
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                lowered = value.strip().lower()
                if lowered in _TRUE or lowered in _FALSE:
                    return lowered in _TRUE
                raise ValueError(value)
            return bool(value)
        if isinstance(default, int):
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, dict):
            if isinstance(value, str):
                value = json.loads(value)
            if not isinstance(value, dict):
                raise ValueError(value)
            return dict(value)
        if value is None or str(value).strip() == "":
            return default
        return str(value)
    except (TypeError, ValueError) as error:
        raise PlaygroundError(f"{where}: {value!r} is not a valid {type(default).__name__}") from error


def option_defaults(options: Iterable[Option]) -> dict[str, Any]:
    return {option.name: option.default for option in options}


def resolve_options(options: Iterable[Option], given: Optional[dict], where: str) -> dict[str, Any]:
    """The defaults overlaid with `given`, each checked by its own option; an unknown key is an error, not ignored."""
    by_name = {option.name: option for option in options}
    resolved = {name: option.default for name, option in by_name.items()}
    for key, value in (given or {}).items():
        if key not in by_name:
            raise PlaygroundError(f"{where} has no parameter {key!r} (parameters: {', '.join(by_name) or 'none'})")
        resolved[key] = by_name[key].coerce(value, f"{where} parameter")
    return resolved
