"""Modules stay small (CONTRIBUTING: under 400 lines, as `ruff format` leaves them): one job per module, split along
a real seam when one grows. One rule for the engine and the app (playground/app/) alike, with no waivers.

Declarations do not count, since they are read as a list, not as code: a class that holds only fields (a record type:
its docstring, annotated and assigned names, no method), a module-level name bound to literal data (the declared
tables: literals, names and the records they build, nothing computed), and an entry of the append-only migrations
history (a `@migration` function, never edited once shipped). So a module declaring one concept (the schema, the
session file's records, the history) may be long; what a module does is held to the cap."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "playground"
MAX_LINES = 400


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


DATA_NODES = (
    ast.Constant,
    ast.Name,
    ast.Attribute,
    ast.Tuple,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.Call,
    ast.keyword,
    ast.Starred,
    ast.Subscript,
    ast.Load,
    ast.UnaryOp,
    ast.USub,
)


def is_literal_data(node: ast.AST) -> bool:
    """Literals, names and calls building records from them: nothing computed (no lambda, loop or condition)."""
    return all(isinstance(part, DATA_NODES) for part in ast.walk(node))


def is_declaration(node: ast.stmt) -> bool:
    """A class holding only fields (a docstring, annotated or assigned names: no method, nothing run), a name bound to
    literal data, or a `@migration` entry of the history."""
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        return node.value is not None and is_literal_data(node.value)
    if isinstance(node, ast.FunctionDef):
        return any(isinstance(d, ast.Name) and d.id == "migration" for d in node.decorator_list)
    return isinstance(node, ast.ClassDef) and all(
        isinstance(item, (ast.AnnAssign, ast.Assign, ast.Pass))
        or (isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant) and isinstance(item.value.value, str))
        for item in node.body
    )


def code_lines(text: str) -> int:
    """A module's lines less those of its declarations."""
    declared = sum(
        node.end_lineno - min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))]) + 1
        for node in ast.parse(text).body
        if is_declaration(node) and node.end_lineno is not None
    )
    return len(text.splitlines()) - declared


def test_declarations_do_not_count_and_code_does():
    fields = "class Run:\n" + "".join(f"    field_{i}: int = {i}\n" for i in range(500))
    assert code_lines(fields) == 0
    assert code_lines(fields.replace("class Run:\n", "class Run:\n    def go(self):\n        pass\n")) == 503


def test_literal_tables_and_migrations_do_not_count_and_computed_values_do():
    tables = "TABLES = (\n" + "".join(f"    Table('t{i}', {{'id': TEXT}}, pk='id'),\n" for i in range(50)) + ")\n"
    assert code_lines(tables) == 0
    assert code_lines(tables.replace("TABLES = (", "TABLES = tuple(t for t in (").replace("\n)\n", "\n))\n")) == 52
    history = "@migration\ndef add_notes(db):\n    add_missing_columns(db, 'runs')\n"
    assert code_lines(history) == 0
    assert code_lines(history.replace("@migration\n", "")) == 2


def test_every_module_is_under_400_lines():
    sizes = {path.relative_to(PACKAGE).as_posix(): code_lines(path.read_text(encoding="utf-8")) for path in modules()}
    too_long = {name: lines for name, lines in sizes.items() if lines >= MAX_LINES}
    assert not too_long, f"modules of {MAX_LINES} lines or more (split each along a seam): {too_long}"


def test_the_walk_sees_the_engine_and_the_app():
    names = {path.relative_to(PACKAGE).as_posix() for path in modules()}
    assert {"store/schema.py", "sessionfile/load.py", "cli/runs.py", "sessionfile/records.py"} <= names
    assert {
        "app/screens/playground/__init__.py",
        "app/screens/side_by_side/grid.py",
        "app/charts/__init__.py",
        "app/state.py",
    } <= names
