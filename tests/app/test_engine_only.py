"""The app reaches data only through engine calls: no sqlite3, no database handle and no SQL text under
playground/app/ (queries live in playground/store/, where the CLI uses them too)."""

import ast
import re
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "playground" / "app"
SQL = re.compile(
    r"\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+TABLE|PRAGMA)\b", re.I | re.S
)


def _offences(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] + (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            )
            if any(name and name.split(".")[0] in ("sqlite3", "sqlite_utils") for name in names):
                found.append(f"{path.name}:{node.lineno} imports {names}")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in ("query", "execute", "executemany")
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in ("db", "conn")
        ):
            found.append(f"{path.name}:{node.lineno} calls .{node.value.attr}.{node.attr}")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "db":
            found.append(f"{path.name}:{node.lineno} indexes .db[...]")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value):
            found.append(f"{path.name}:{node.lineno} holds SQL {node.value[:60]!r}")
    return found


def test_no_sql_or_database_handle_under_the_app():
    offences = [line for path in sorted(APP.rglob("*.py")) for line in _offences(path)]
    assert offences == []


def test_the_check_finds_sql_where_there_is_some(tmp_path):
    sample = tmp_path / "page.py"
    sample.write_text("import sqlite3\nrows = ws.db.query('SELECT id FROM runs WHERE x = ?', [1])\n", encoding="utf-8")
    assert len(_offences(sample)) == 3
