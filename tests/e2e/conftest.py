"""A real app server over a fixture workspace, and Debian's headless Chromium driven by Playwright (a fresh profile)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Optional

import pytest

from playground.store import open_workspace
from playground.store.datasets import save_dataset
from tests.conftest import built_demo, tiny_dataset
from tests.e2e.helpers import RUN_WATCH

# Chromium's headless shell (Debian's chromium-headless-shell): the same Blink and V8 without the browser's UI layer;
# bench/browser_cost.py measures what it saves against the full browser.
CHROMIUM = Path("/usr/bin/chromium-headless-shell")
# Every tab in one renderer process: each test opens a new tab, and Chromium's default starts a renderer (V8, Blink)
# for each (bench/browser_cost.py measures the saving per page load).
ONE_RENDERER = "--renderer-process-limit=1"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    ONE_RENDERER,
]
# CSS animations and transitions (spinners, the running indicator, fades) repaint in software at 60 frames a second
# while a script runs; the tests read what pages say, not how they move (bench/browser_cost.py measures the saving).
NO_MOTION = """document.addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = "*, *::before, *::after { animation: none !important; transition: none !important; }";
  document.head.appendChild(style);
});"""
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
STARTUP_SECONDS = 90
APP_DB: dict = {}  # "path": the workspace file the session's app server opens (tests may add stored runs to it)


@pytest.fixture(scope="session")
def demo_copy(tmp_path_factory):
    """A function making a fresh copy of the demo workspace with its default indexes, under a new folder named for
    the caller: built once per test run (tests.conftest.built_demo, shared by the xdist workers and by
    tests/data/test_demo.py), so each module that needs the demo pays a file copy. Returns the copy's database path."""
    built = built_demo(tmp_path_factory)

    def copy(name: str) -> Path:
        root = tmp_path_factory.mktemp(name)
        shutil.copytree(built, root, dirs_exist_ok=True)
        return root / "sessions" / "playground.db"

    return copy


@pytest.fixture(scope="session")
def app_url(tmp_path_factory):
    """`streamlit run` (the command `playground app` uses) on a free 127.0.0.1 port over the tiny dataset."""
    root = tmp_path_factory.mktemp("e2e")
    db = root / "sessions" / "playground.db"
    workspace = open_workspace(db)
    save_dataset(workspace, "tiny", tiny_dataset())
    workspace.close()
    APP_DB["path"] = db
    from tests.e2e.servers import app_server

    log = root / "streamlit.log"
    try:
        with app_server(db, log) as url:
            yield url
    finally:
        print(f"\nstreamlit log: {log}")


def launch_context(
    playwright, profile: Path, executable: Path = CHROMIUM, motion: bool = False, args: Optional[list[str]] = None
):
    """Chromium on a fresh profile as the browser tests drive it (also bench/app_rerun.py and browser_cost.py):
    CHROMIUM_ARGS unless `args`, 1500x1500, 60 s timeouts, RUN_WATCH in every page, and NO_MOTION unless `motion`."""
    context = playwright.chromium.launch_persistent_context(
        str(profile),
        executable_path=str(executable),
        headless=True,
        args=CHROMIUM_ARGS if args is None else args,
        viewport={"width": 1500, "height": 1500},
    )
    context.set_default_timeout(60_000)
    if not motion:
        context.add_init_script(NO_MOTION)
    context.add_init_script(RUN_WATCH)
    return context


@pytest.fixture(scope="session")
def browser_context(tmp_path_factory):
    """Chromium from Debian; a missing browser fails the tests (`make test` installs it)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium-headless-shell (`make browser`, run by `make test`)"
        )
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        context = launch_context(playwright, profile)
        try:
            yield context
        finally:
            context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call":
        item.e2e_failed = report.failed


@pytest.fixture
def page(browser_context, app_url, request):
    """A new tab: a new Streamlit browser session. A failing test leaves a screenshot of it."""
    tab = browser_context.new_page()
    yield tab
    if getattr(request.node, "e2e_failed", False):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"FAILED-{request.node.name}.png"
        tab.screenshot(path=str(path), full_page=True)
        print(f"screenshot of the failure: {path}")
    tab.close()


@pytest.fixture(scope="session")
def screenshot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(tab, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        tab.screenshot(path=str(path), full_page=True)
        print(f"screenshot: {path}")
        return path

    return take


@pytest.fixture(scope="session")
def runs_app(tmp_path_factory, browser_context):
    """(url, built): an app over a workspace with two real runs (direct and rag) on the same 3 tiny questions."""
    from tests.e2e.servers import app_server, shared_runs_workspace

    root = tmp_path_factory.mktemp("e2e-runs")
    built = shared_runs_workspace(tmp_path_factory, root)
    with app_server(built["db"], root / "streamlit.log") as url:
        yield url, built


@pytest.fixture(scope="session")
def beacon_app(tmp_path_factory):
    """(url, built, beacon): an app whose stored texts all carry Markdown images and links to a local beacon."""
    from tests.e2e.servers import Beacon, app_server, build_runs_workspace

    beacon = Beacon()
    root = tmp_path_factory.mktemp("e2e-beacon")
    try:
        built = build_runs_workspace(root / "sessions" / "playground.db", beacon)
        with app_server(built["db"], root / "streamlit.log") as url:  # no warm-up: its one test opens the root first
            yield url, built, beacon
    finally:
        beacon.close()
