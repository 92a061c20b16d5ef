"""The app is laid out by page: playground/app/screens/<page>/ holds one page whole (its entry, its Streamlit-free data
modules, its drawing), shared widgets live in components/ and charts in charts/. A page never imports another page's
modules, nothing shared reaches into a page, the data modules stay Streamlit-free (so they are unit-tested without a
browser) and a page's __init__ draws only when Streamlit runs it, never when a module of its own is imported.
Every import counts, lazy ones too."""

from __future__ import annotations

import ast
import sys

from playground.app.state import PAGE_SLUGS, SCREENS_DIR, page_file
from tests.test_package_borders import imports, inside, sources

PAGES = "playground.app.screens"
# Streamlit-free modules outside a page's data.py: they shape engine data for display and are unit-tested.
STREAMLIT_FREE = {
    "playground.app.screens.playground.drafts",
    "playground.app.screens.playground.templates",
    "playground.app.screens.side_by_side.grid_rows",
    "playground.app.components.judgment_marks",
    "playground.app.components.prompt_choices",
    "playground.app.components.prompt_labels",
    "playground.app.components.run_labels",
    "playground.app.components.trace_spans",
}
# What a Streamlit-free module may import from the app besides the others of its kind: the charts (Altair figures).
STREAMLIT_FREE_APP_IMPORTS = ("playground.app.charts",)


def page_of(module: str) -> str | None:
    """playground.app.screens.runs.data -> playground.app.screens.runs; None outside the pages."""
    parts = module.split(".")
    return ".".join(parts[:4]) if inside(module, PAGES) and len(parts) > 3 else None


def cross_page_imports(code: dict[str, tuple[str, bool]]) -> list[str]:
    """Imports of another page's package or modules from a page, and of any page from outside the pages."""
    found = []
    for module, (text, is_init) in code.items():
        own = page_of(module)
        for target, name, line in imports(module, text, is_init):
            imported = f"{target}.{name}" if target == PAGES and name else target
            other = page_of(imported)
            if other is not None and other != own and inside(module, "playground"):
                found.append(f"{module}:{line}: {imported}")
    return found


def streamlit_free_modules(code: dict[str, tuple[str, bool]]) -> set[str]:
    return {m for m in code if inside(m, PAGES) and m.endswith(".data")} | STREAMLIT_FREE


def streamlit_imports(code: dict[str, tuple[str, bool]], modules: set[str]) -> list[str]:
    """Imports of Streamlit, or of an app module that is neither Streamlit-free nor a chart, from `modules`."""
    found = []
    for module in sorted(modules):
        text, is_init = code[module]
        for target, name, line in imports(module, text, is_init):
            imported = f"{target}.{name}" if f"{target}.{name}" in code else target
            if inside(imported, "streamlit") or (
                inside(imported, "playground.app")
                and imported not in modules
                and not any(inside(imported, allowed) for allowed in STREAMLIT_FREE_APP_IMPORTS)
            ):
                found.append(f"{module}:{line}: {imported}")
    return found


def draws_when_imported(text: str) -> list[int]:
    """Lines of the top-level statements that would run page code on import: calls and `with` blocks outside
    `if __name__ == "__main__":` (a module of the page imports its package, so this runs again); `if TYPE_CHECKING:`
    runs nothing."""
    found = []
    for node in ast.parse(text).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("__name__ == '__main__'", "TYPE_CHECKING"):
            continue
        if isinstance(node, (ast.With, ast.If, ast.For, ast.While, ast.Try)) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        ):
            found.append(node.lineno)
    return found


def test_no_pages_folder_sits_beside_the_entry_script():
    """With one, Streamlit's first script run takes its v1 multipage path: "Page not found" over a deep link."""
    from playground.app.launch import APP_ENTRY

    assert not (APP_ENTRY.parent / "pages").exists()


def test_every_page_is_a_package_and_every_package_a_page():
    folders = {path.name for path in SCREENS_DIR.iterdir() if (path / "__init__.py").is_file()}
    assert folders == {slug.replace("-", "_") for slug in PAGE_SLUGS}
    assert all(page_file(slug).is_file() for slug in PAGE_SLUGS)


def test_no_page_imports_another_page():
    found = cross_page_imports(sources())
    assert not found, "a page imports another page (share it through components/ instead): " + "; ".join(found)


def test_the_data_modules_never_import_streamlit():
    code = sources()
    modules = streamlit_free_modules(code)
    assert {f"{PAGES}.runs.data", f"{PAGES}.ab.data", f"{PAGES}.experiments.data"} <= modules
    assert modules <= set(code), f"listed but missing: {sorted(modules - set(code))}"
    found = streamlit_imports(code, modules)
    assert not found, "a Streamlit-free module imports Streamlit or a drawing module: " + "; ".join(found)


def test_a_page_draws_only_when_streamlit_runs_it():
    found = {
        slug: lines
        for slug in PAGE_SLUGS
        if (lines := draws_when_imported(page_file(slug).read_text(encoding="utf-8")))
    }
    assert not found, f'page code run on import (put it under `if __name__ == "__main__":`): {found}'


def test_no_page_module_shadows_the_standard_library():
    """AppTest runs a page's __init__ as its script, which puts the page's folder first on sys.path."""
    found = [
        str(path.relative_to(SCREENS_DIR)) for path in SCREENS_DIR.rglob("*.py") if path.stem in sys.stdlib_module_names
    ]
    assert not found, f"page modules named like standard modules: {found}"


def test_the_walks_find_each_kind_of_breach():
    code = {
        "playground.app.screens.ab.data": (
            "import streamlit as st\nfrom playground.app.components import errors\n",
            False,
        ),
        "playground.app.screens.ab": ("from playground.app.screens.runs.data import outcome\n", True),
        "playground.app.screens.runs.data": ("from playground.app.charts import scores\n", False),
        "playground.app.components.jobs": ("def f():\n    from playground.app.screens import runs\n", False),
        "playground.app.components.errors": ("import streamlit\n", False),
        "playground.app.charts": ("", True),
    }
    assert cross_page_imports(code) == [
        "playground.app.screens.ab:1: playground.app.screens.runs.data",
        "playground.app.components.jobs:2: playground.app.screens.runs",
    ]
    assert streamlit_imports(code, {"playground.app.screens.ab.data", "playground.app.screens.runs.data"}) == [
        "playground.app.screens.ab.data:1: streamlit",
        "playground.app.screens.ab.data:2: playground.app.components.errors",
    ]
    assert draws_when_imported('def render():\n    pass\n\n\nrender()\nif __name__ == "__main__":\n    render()\n') == [
        5
    ]
    assert draws_when_imported("if TYPE_CHECKING:\n    import x\nif DEBUG:\n    render()\n") == [3]
