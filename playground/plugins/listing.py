"""What is installed, as data: every plugin with its distribution and hooks, and every registration by kind with
where it came from (what `playground plugins` prints)."""

from __future__ import annotations

import dataclasses
from typing import Any

from playground import PlaygroundError
from playground.plugins.manager import registry
from playground.plugins.options import Option
from playground.plugins.records import KINDS, ProgramKind, load_ref


def _plain(value: Any) -> Any:
    """A record's field as JSON data: options described, implementations named by module:attribute."""
    if isinstance(value, Option):
        return value.describe()
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    module = getattr(value, "__module__", None) or type(value).__module__
    name = getattr(value, "__qualname__", None) or getattr(value, "name", None) or type(value).__qualname__
    return f"{module}:{name}"


def describe_record(record: Any) -> dict:
    described = {field.name: _plain(getattr(record, field.name)) for field in dataclasses.fields(record)}
    if isinstance(record, ProgramKind) and not record.description:  # a program describes itself (its docstring)
        try:
            described["description"] = getattr(load_ref(record.program, record.name), "description", "") or ""
        except PlaygroundError as error:
            described["description"] = f"cannot be loaded: {error}"
    return described


def installed() -> dict:
    """{"plugins": [...], KIND: [registration, with plugin, distribution, version, builtin], "problems": [...]}."""
    loaded = registry()
    report: dict[str, Any] = {
        "plugins": [
            {
                "name": info.origin.plugin,
                "distribution": info.origin.distribution,
                "version": info.origin.version,
                "builtin": info.origin.builtin,
                "hooks": list(info.hooks),
            }
            for info in loaded.plugins
        ]
    }
    for kind in KINDS:
        rows = []
        for name, record in loaded.of(kind.name).items():
            origin = loaded.origin(kind.name, name)
            rows.append(
                {
                    **describe_record(record),
                    "plugin": origin.plugin,
                    "distribution": origin.distribution,
                    "version": origin.version,
                    "builtin": origin.builtin,
                }
            )
        report[kind.name] = rows
    report["problems"] = list(loaded.problems)
    return report
