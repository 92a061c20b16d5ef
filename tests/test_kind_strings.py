"""No code outside the judge registry compares a kind to a string literal.

A kind written as a string at the place that branches on it is a list kept twice: the set of kinds lives where
the kinds are declared (the judge registry, an enum, a dispatch table), and the code asks it. Read with `ast`,
so neither spacing, quoting nor a `match` statement hides a comparison.
"""

from __future__ import annotations

import ast
from pathlib import Path

import playground

ROOT = Path(playground.__file__).resolve().parent
ALLOWED = {ROOT / "evaluation" / "judges" / "registry.py"}


def _name(node: ast.expr) -> object:
    """The name a kind is read by: a variable's, an attribute's, a key's (`span["kind"]`, `run.get("kind")`) or a
    function's (`spec_kind(spec)`)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            return node.args[0].value if isinstance(node.args[0], ast.Constant) else None
        return _name(node.func)
    return None


def _is_kind(node: ast.expr) -> bool:
    name = _name(node)
    return isinstance(name, str) and (name == "kind" or name.endswith("_kind"))


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _is_texts(node: ast.expr) -> bool:
    return isinstance(node, (ast.Tuple, ast.List, ast.Set)) and any(_is_text(element) for element in node.elts)


def _compares_kind_to_text(node: ast.Compare) -> bool:
    operands = [node.left, *node.comparators]
    for left, op, right in zip(operands, node.ops, operands[1:], strict=False):
        if isinstance(op, (ast.Eq, ast.NotEq)) and (
            (_is_kind(left) and _is_text(right)) or (_is_text(left) and _is_kind(right))
        ):
            return True
        if isinstance(op, (ast.In, ast.NotIn)) and _is_kind(left) and _is_texts(right):
            return True
    return False


def _matches_kind_on_text(node: ast.Match) -> bool:
    def texts(pattern: ast.pattern) -> bool:
        if isinstance(pattern, ast.MatchValue):
            return _is_text(pattern.value)
        if isinstance(pattern, ast.MatchOr):
            return any(texts(alternative) for alternative in pattern.patterns)
        return isinstance(pattern, ast.MatchAs) and pattern.pattern is not None and texts(pattern.pattern)

    return _is_kind(node.subject) and any(texts(case.pattern) for case in node.cases)


def kind_string_comparisons(root: Path) -> list[str]:
    """Each `file:line` under root where a kind is compared to (or matched against) a string literal."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path in ALLOWED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        lines = sorted(
            node.lineno
            for node in ast.walk(tree)
            if (isinstance(node, ast.Compare) and _compares_kind_to_text(node))
            or (isinstance(node, ast.Match) and _matches_kind_on_text(node))
        )
        found += [f"{path.relative_to(root.parent)}:{line}" for line in lines]
    return found


def test_the_scan_finds_each_form_of_comparison(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text(
        "if kind == 'x': pass\n"
        "if 'x' != span.kind: pass\n"
        "if record.rating_kind in ('x', 'y'): pass\n"
        "if kind not in {'x'}: pass\n"
        "match self.kind:\n    case 'x' | 'y': pass\n"
        "if kind == other: pass\n"
        "if kind in KINDS: pass\n"
        "if name == 'x': pass\n"
        "if row['kind'] == 'x' or run.get('kind') != 'x' or spec_kind(spec) == 'x': pass\n"
        "if row['name'] == 'x' or run.get('name') == 'x' or kind_of(spec) == 'x': pass\n",
        encoding="utf-8",
    )
    assert kind_string_comparisons(package) == [
        "pkg/a.py:1",
        "pkg/a.py:2",
        "pkg/a.py:3",
        "pkg/a.py:4",
        "pkg/a.py:5",
        "pkg/a.py:10",
        "pkg/a.py:10",
        "pkg/a.py:10",
    ]


def test_no_kind_is_compared_to_a_string_outside_the_judge_registry() -> None:
    found = kind_string_comparisons(ROOT)
    assert not found, "a kind compared to a string literal (ask the registry, an enum or a table): " + ", ".join(found)
