"""Modules stay small (CONTRIBUTING: under 400 lines, as `ruff format` leaves them): one job per module, split along
a real seam when one grows. One rule for the engine and the app (playground/app/) alike, with no waivers."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "playground"
MAX_LINES = 400


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_is_under_400_lines():
    sizes = {
        path.relative_to(PACKAGE).as_posix(): len(path.read_text(encoding="utf-8").splitlines()) for path in modules()
    }
    too_long = {name: lines for name, lines in sizes.items() if lines >= MAX_LINES}
    assert not too_long, f"modules of {MAX_LINES} lines or more (split each along a seam): {too_long}"


def test_the_walk_sees_the_engine_and_the_app():
    names = {path.relative_to(PACKAGE).as_posix() for path in modules()}
    assert {"store/db.py", "store/session_import.py", "cli/runs.py", "store/session_types.py"} <= names
    assert {"app/screens/editor.py", "app/screens/side_by_side.py", "app/charts/__init__.py", "app/state.py"} <= names
