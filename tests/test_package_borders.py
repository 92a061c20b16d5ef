"""A package entered through its `__init__` keeps its modules to itself: code outside it (the engine, the app, the
tests, the bench scripts) imports the package, never one of its modules, and no private (`_name`) name crosses from
one of its modules to another. Every import counts, lazy ones too. The layers below the session file never import it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Packages entered only through their __init__.
ENTERED_THROUGH_INIT = ("playground.sessionfile",)
# package -> the packages below it, which must never import it
BELOW = {
    "playground.sessionfile": (
        "playground.models",
        "playground.prompts",
        "playground.retrieval",
        "playground.store",
        "playground.data",
        "playground.plugins",
    )
}


@functools.cache  # read once for the module's tests
def sources() -> dict[str, tuple[str, bool]]:
    """Module name -> (its source, whether it is a package's __init__), for every Python file of the repository's
    code, tests and scripts."""
    found = {}
    for folder in ("playground", "tests", "bench", "scripts"):
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            is_init = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_init else parts)] = (path.read_text(encoding="utf-8"), is_init)
    return found


@functools.cache  # each file parsed once, whichever test walks it first
def imports(module: str, text: str, is_init: bool = False) -> list[tuple[str, str, int]]:
    """(imported module, name, line) for each `from module import name` and (module, "", line) for each `import
    module`, lazy ones included, relative ones resolved."""
    found = []
    own = module.split(".")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found.extend((alias.name, "", node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = own[: len(own) - node.level + (1 if is_init else 0)]
                base = ".".join(anchor + ([base] if base else []))
            found.extend((base, alias.name, node.lineno) for alias in node.names)
    return found


def inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def submodules(package: str, names: set[str]) -> set[str]:
    """The last part of each module directly in `package` (what `from package import x` would load)."""
    return {name[len(package) + 1 :].split(".")[0] for name in names if name.startswith(package + ".")}


def entered_around(package: str, code: dict[str, tuple[str, bool]]) -> list[str]:
    """Imports from outside `package` of one of its modules (`package.x`, or `from package import x`)."""
    modules = submodules(package, set(code))
    return [
        f"{module}:{line}: {target}{'.' + name if name else ''}"
        for module, (text, is_init) in code.items()
        if not inside(module, package)
        for target, name, line in imports(module, text, is_init)
        if target.startswith(package + ".") or (target == package and name in modules)
    ]


def private_crossings(package: str, code: dict[str, tuple[str, bool]]) -> list[str]:
    """Private names one of the package's modules imports from another of them."""
    return [
        f"{module}:{line}: {name} from {target}"
        for module, (text, is_init) in code.items()
        if inside(module, package)
        for target, name, line in imports(module, text, is_init)
        if inside(target, package) and target != module and name.startswith("_")
    ]


@pytest.mark.parametrize("package", ENTERED_THROUGH_INIT)
def test_code_outside_a_package_imports_only_the_package(package):
    code = sources()
    assert submodules(package, set(code)), f"{package} has no modules"
    found = entered_around(package, code)
    assert not found, f"import {package} itself, not its modules: " + "; ".join(found)


@pytest.mark.parametrize("package", ENTERED_THROUGH_INIT)
def test_no_private_name_crosses_between_a_packages_modules(package):
    found = private_crossings(package, sources())
    assert not found, "private names imported from another module: " + "; ".join(found)


@pytest.mark.parametrize("package", sorted(BELOW))
def test_the_layers_below_a_package_never_import_it(package):
    found = [
        f"{module}:{line}"
        for module, (text, is_init) in sources().items()
        if any(inside(module, lower) for lower in BELOW[package])
        for target, _, line in imports(module, text, is_init)
        if inside(target, package)
    ]
    assert not found, f"{package} is above these layers, which import it: " + "; ".join(found)


def test_the_walk_finds_each_kind_of_crossing():
    code = {
        "pkg": ("from pkg.inner import run\n", True),
        "pkg.inner": ("from . import other\nfrom .other import _helper\n", False),
        "pkg.other": ("def _helper(): pass\n", False),
        "app.view": ("def draw():\n    from pkg import inner\n    import pkg.other\n    from pkg import run\n", False),
    }
    assert entered_around("pkg", code) == ["app.view:2: pkg.inner", "app.view:3: pkg.other"]
    assert private_crossings("pkg", code) == ["pkg.inner:2: _helper from pkg.other"]
