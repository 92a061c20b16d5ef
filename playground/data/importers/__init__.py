"""Readers for the benchmark formats: FORMAT -> reader(path) -> Dataset (nothing is stored here)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from playground import PlaygroundError
from playground.data.importers.beir import read_beir
from playground.data.importers.helps import read_helps
from playground.data.importers.hotpotqa import read_hotpotqa
from playground.data.importers.jsonl import read_jsonl
from playground.data.importers.obqa import read_obqa
from playground.data.importers.squad import read_squad
from playground.data.records import Dataset

IMPORTERS: dict[str, Callable[[Path], Dataset]] = {
    "hotpotqa": read_hotpotqa,
    "squad": read_squad,
    "obqa": read_obqa,
    "helps": read_helps,
    "beir": read_beir,
    "jsonl": read_jsonl,
}


def read_dataset(format: str, path: str | os.PathLike) -> Dataset:
    """Read PATH as FORMAT; an unknown format is a PlaygroundError naming the known ones."""
    reader = IMPORTERS.get(format)
    if reader is None:
        raise PlaygroundError(f"unknown dataset format {format!r} (known: {', '.join(IMPORTERS)})")
    return reader(Path(path))
