"""CONTRIBUTING cannot drift from the code: where it says a migration goes is where the newest one is."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_contributing_names_the_module_holding_the_newest_migration():
    from playground.store.migrations import MIGRATIONS

    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    named = re.search(r"appended at the end of\s+`(playground/[\w/]+\.py)`", text)
    assert named, "CONTRIBUTING must say which file a new migration is appended to"
    newest = MIGRATIONS[-1].__module__.replace(".", "/") + ".py"
    assert named.group(1) == newest, f"CONTRIBUTING says {named.group(1)}, the newest migration is in {newest}"


def test_every_package_named_in_the_layers_exists():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    block = text.split("## Layers", 1)[1].split("```", 2)[1]
    named = set(re.findall(r"(?:^|\s)([a-z_]+)/", block))
    missing = sorted(name for name in named if not (ROOT / "playground" / name).is_dir())
    assert named and not missing, f"CONTRIBUTING's layers name packages that do not exist: {missing}"


def test_every_path_contributing_names_exists():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:playground|tests)/[\w/.]+)`", text))
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert named and not missing, f"CONTRIBUTING names paths that do not exist: {missing}"
