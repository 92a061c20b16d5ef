"""Readers for the benchmark formats: FORMAT -> reader(path) -> Dataset (nothing is stored here). The formats are
the registered importers (the built-ins in playground.data.plugin; plugins add theirs)."""

from __future__ import annotations

import os
from pathlib import Path

from playground import PlaygroundError
from playground.data.records import Dataset


def importer_names() -> list[str]:
    from playground.plugins import registry

    return list(registry().of("importers"))


def read_dataset(format: str, path: str | os.PathLike) -> Dataset:
    """Read PATH as FORMAT; an unknown format is a PlaygroundError naming the known ones."""
    from playground.plugins import load_ref, registry
    from playground.plugins.calls import call_plugin, instance_of

    importer = registry().of("importers").get(format)
    if importer is None:
        raise PlaygroundError(f"unknown dataset format {format!r} (known: {', '.join(importer_names())})")
    read = load_ref(importer.read, f"importer {format!r}")
    return call_plugin("importers", format, "read", read, Path(path), returns=instance_of(Dataset, "a Dataset"))
