"""The layers stay layered: no import cycle between the packages of playground (nor between two modules).

Every import counts, including the ones inside functions (a lazy import hides a cycle from Python, not from a
reader); only imports under `if TYPE_CHECKING:` are left out.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import playground

ROOT = Path(playground.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name == "playground" or name.startswith("playground.")}


@functools.lru_cache(maxsize=1)
def _module_graph() -> dict[str, frozenset[str]]:
    files = {_module_name(path): path for path in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for imported in _imports(ast.parse(path.read_text(encoding="utf-8")), name, path.name == "__init__.py"):
            while imported and imported not in files:  # `from pkg import function` -> pkg
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = frozenset(targets)
    return graph


def module_graph() -> dict[str, set[str]]:
    """Module -> the playground modules it imports (names resolved to existing modules); parsed once per run."""
    return {name: set(targets) for name, targets in _module_graph().items()}


def package_of(module: str) -> str:
    """playground.store.db -> playground.store; top-level modules (playground.config) are their own node."""
    return ".".join(module.split(".")[:2])


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, targets in module_graph().items():
        graph.setdefault(package_of(module), set()).update(
            package_of(t) for t in targets if package_of(t) != package_of(module)
        )
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(found)


def _explain(graph: dict[str, set[str]], component: list[str]) -> str:
    members = set(component)
    return "; ".join(f"{a} -> {b}" for a in component for b in sorted(graph[a] & members))


def test_the_graph_walker_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_imports():
    graph = module_graph()
    assert "playground.store.db" in graph["playground.store.judgments"]
    assert "playground.programs" in package_graph()["playground.runs"]


def test_no_import_cycle_between_packages():
    graph = package_graph()
    found = cycles(graph)
    assert not found, "import cycles between packages: " + " | ".join(_explain(graph, c) for c in found)


def test_no_import_cycle_between_modules():
    graph = module_graph()
    found = cycles(graph)
    assert not found, "import cycles between modules: " + " | ".join(_explain(graph, c) for c in found)
