"""What the browser of the end-to-end tests costs: Debian's full Chromium against its headless shell, each with CSS
motion (animations, transitions) as pages ship it and with tests/e2e/conftest.py's NO_MOTION style, and the headless
shell with one renderer process for every tab (ONE_RENDERER, as the tests launch it), over a real `streamlit run`
(playground's streamlit_command) on a workspace holding the tiny benchmark.

    .venv/bin/python bench/browser_cost.py [--loads 4] [--searches 3] [--rounds 3]

Each round launches every browser configuration in turn (order rotating) with a fresh profile; it opens the Runs
page `--loads` times, each in a new tab as each browser test does, then the Retrievers page, and runs its Search
`--searches` times (each a script run with a spinner). Printed: the browser's CPU seconds (every process under
Playwright's driver, with the children they reaped: /proc/PID/stat) per page load and per search, the median of the
rounds, and each configuration's ratio to the full browser with motion.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from playground.app.launch import streamlit_command  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from tests.conftest import tiny_dataset  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, ONE_RENDERER, launch_context  # noqa: E402
from tests.e2e.helpers import open_page, wait_until_idle  # noqa: E402
from tests.processes import free_port, served  # noqa: E402

BROWSERS = {"chromium": Path("/usr/bin/chromium"), "headless shell": Path("/usr/bin/chromium-headless-shell")}
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Configuration:
    browser: str  # a key of BROWSERS
    motion: bool  # CSS animations and transitions as pages ship them (False: NO_MOTION)
    own_renderers: bool  # Chromium's default, a renderer process per tab (False: ONE_RENDERER)


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def browser_cpu_seconds() -> float:
    """CPU of every process under this one that is not a Streamlit server (Playwright's driver, the browser and its
    helpers), with the CPU of the children each has reaped (closed renderers)."""
    total = 0.0
    for pid in descendants(os.getpid()):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            if "streamlit" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                continue
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        total += sum(int(value) for value in fields[11:15]) / TICKS  # utime, stime, cutime, cstime
    return total


def measure(playwright, configuration: "Configuration", url: str, profile: Path, args) -> tuple[float, float]:
    """(browser CPU seconds per page load, per search) of one fresh browser."""
    shared_renderer = [] if configuration.own_renderers else [ONE_RENDERER]
    launch_args = [arg for arg in CHROMIUM_ARGS if arg != ONE_RENDERER] + shared_renderer
    context = launch_context(playwright, profile, BROWSERS[configuration.browser], configuration.motion, launch_args)
    try:
        context.set_default_timeout(120_000)
        tab = context.new_page()
        open_page(tab, url + "/runs", "Runs")  # the browser's first page: its start-up is not measured
        started = browser_cpu_seconds()
        for _ in range(args.loads):
            tab.close()
            tab = context.new_page()
            open_page(tab, url + "/runs", "Runs")
        per_load = (browser_cpu_seconds() - started) / args.loads
        open_page(tab, url + "/retrievers", "Retrievers")
        started = browser_cpu_seconds()
        for _ in range(args.searches):
            tab.get_by_role("button", name="Search").click()
            wait_until_idle(tab)
        per_search = (browser_cpu_seconds() - started) / args.searches
    finally:
        context.close()
    return per_load, per_search


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=4)
    parser.add_argument("--searches", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    missing = [str(path) for path in BROWSERS.values() if not path.exists()]
    if missing:
        print(f"missing: {', '.join(missing)} (Debian's chromium and chromium-headless-shell)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    configurations = [Configuration(browser, motion, True) for browser in BROWSERS for motion in (True, False)]
    configurations.append(Configuration("headless shell", False, False))
    samples: dict[Configuration, list[tuple[float, float]]] = {c: [] for c in configurations}
    with tempfile.TemporaryDirectory(prefix="bench-browser-cost-") as tmp, sync_playwright() as playwright:
        folder = Path(tmp)
        db = folder / "sessions" / "playground.db"
        workspace = open_workspace(db)
        save_dataset(workspace, "tiny", tiny_dataset())
        workspace.close()
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        env = dict(os.environ, PLAYGROUND_DB=str(db), PYTHONUNBUFFERED="1")
        command = streamlit_command(db, port=port)
        with served("streamlit", command, f"{url}/_stcore/health", folder / "streamlit.log", 90, env=env, cwd=folder):
            for round_ in range(args.rounds):
                shift = round_ % len(configurations)
                for n, configuration in enumerate(configurations[shift:] + configurations[:shift]):
                    profile = folder / f"profile-{round_}-{n}"
                    samples[configuration].append(measure(playwright, configuration, url, profile, args))
    print(
        f"Runs page loads ({args.loads} per browser) and Retrievers searches ({args.searches}) over the tiny "
        f"benchmark; {args.rounds} rounds; browser CPU seconds, median of the rounds:"
    )
    print(
        f"{'browser':<16} {'CSS motion':<11} {'renderers':<10} {'per load':>9} {'per search':>11} {'load ratio':>11} "
        f"{'search ratio':>13}"
    )
    medians = {c: [statistics.median(s[i] for s in samples[c]) for i in (0, 1)] for c in configurations}
    reference = medians[configurations[0]]
    for configuration, (load, search) in medians.items():
        print(
            f"{configuration.browser:<16} {'on' if configuration.motion else 'off':<11} "
            f"{'per tab' if configuration.own_renderers else 'one':<10} {load:>9.2f} {search:>11.2f} "
            f"{load / reference[0]:>11.2f} {search / reference[1]:>13.2f}"
        )
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("browser_cost", main))
