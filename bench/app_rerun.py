"""What Streamlit's file watcher costs the app's server: a real `streamlit run` (playground's streamlit_command) over a
workspace holding the tiny benchmark, driven by a real headless Chromium through Playwright (as tests/e2e does),
with the watcher on (Streamlit's default, `--server.fileWatcherType auto`: watchdog, which rescans sys.modules after
script runs) and off (`none`).

    .venv/bin/python bench/app_rerun.py [--reruns 10] [--loads 4] [--rounds 5] [--page /] [--title Playground]

Each round starts both servers in turn (order alternating); on each, one tab reruns the page `--reruns` times (the
"r" key, waiting for each run to end), then `--loads` new tabs open it (a new browser session each). Printed: the
server process's CPU seconds (/proc/PID/stat, user + system) per rerun and per page load, the median of the rounds,
and the ratio none / auto. (Each new browser session makes its own watcher, which scans all of sys.modules once; a
rerun rescans only when sys.modules changed.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from playground.app.launch import streamlit_command  # noqa: E402
from playground.store import open_workspace  # noqa: E402
from playground.store.datasets import save_dataset  # noqa: E402
from tests.conftest import tiny_dataset  # noqa: E402
from tests.e2e.conftest import launch_context  # noqa: E402
from tests.e2e.helpers import open_page, wait_until_idle  # noqa: E402
from tests.processes import free_port, served  # noqa: E402

WATCHERS = ("auto", "none")
OPTION = "--server.fileWatcherType"
TICKS = os.sysconf("SC_CLK_TCK")


def with_watcher(command: list[str], watcher: str) -> list[str]:
    """streamlit_command with the file watcher set to `watcher` (whatever it carried before)."""
    split = command.index("--")
    head = list(command[:split])
    if OPTION in head:
        at = head.index(OPTION)
        del head[at : at + 2]
    return head + [OPTION, watcher] + command[split:]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def server_pid(port: int) -> int:
    """The process listening on `port` (the `streamlit run` started for it)."""
    inode = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            parts = line.split()
            if int(parts[1].rsplit(":", 1)[1], 16) == port and parts[3] == "0A":
                inode = parts[9]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if any(os.readlink(fd) == f"socket:[{inode}]" for fd in (entry / "fd").iterdir()):
                    return int(entry.name)
            except OSError:
                continue
    raise RuntimeError(f"no process listens on port {port}")


def measure(context, db: Path, folder: Path, watcher: str, args) -> tuple[float, float]:
    """(CPU seconds per rerun, per page load) of a fresh server with `watcher`."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PLAYGROUND_DB=str(db), PYTHONUNBUFFERED="1")
    command = with_watcher(streamlit_command(db, port=port), watcher)
    with served("streamlit", command, f"{url}/_stcore/health", folder / f"{watcher}.log", 90, env=env, cwd=folder):
        pid = server_pid(port)
        tab = context.new_page()
        open_page(tab, url + "/", "Playground")  # the first session on a fresh server
        open_page(tab, url + args.page, args.title)
        time.sleep(0.5)
        started = cpu_seconds(pid)
        for _ in range(args.reruns):
            tab.keyboard.press("r")
            wait_until_idle(tab, 120_000, quiet=2_000)
            if not tab.evaluate("() => window.__playgroundIdle.sawRun"):
                raise RuntimeError(f"the r key started no script run on {url}{args.page}")
        time.sleep(0.3)
        per_rerun = (cpu_seconds(pid) - started) / args.reruns
        tab.close()
        started = cpu_seconds(pid)
        for _ in range(args.loads):
            tab = context.new_page()
            open_page(tab, url + args.page, args.title)
            tab.close()
        time.sleep(0.3)
        per_load = (cpu_seconds(pid) - started) / args.loads
    return per_rerun, per_load


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reruns", type=int, default=10)
    parser.add_argument("--loads", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--page", default="/", help="the page's address under the app's URL")
    parser.add_argument("--title", default="Playground", help="the page's level-1 heading")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    samples: dict[str, list[tuple[float, float]]] = {watcher: [] for watcher in WATCHERS}
    with tempfile.TemporaryDirectory(prefix="bench-app-rerun-") as tmp, sync_playwright() as playwright:
        folder = Path(tmp)
        db = folder / "sessions" / "playground.db"
        workspace = open_workspace(db)
        save_dataset(workspace, "tiny", tiny_dataset())
        workspace.close()
        context = launch_context(playwright, folder / "profile")
        try:
            for round_ in range(args.rounds):
                for watcher in WATCHERS if round_ % 2 == 0 else WATCHERS[::-1]:
                    samples[watcher].append(measure(context, db, folder, watcher, args))
        finally:
            context.close()
    print(
        f"page {args.page} over the tiny benchmark; {args.rounds} rounds of {args.reruns} reruns and {args.loads} "
        "page loads per server; server CPU seconds, median of the rounds:"
    )
    print(f"{'fileWatcherType':<16} {'per rerun':>10} {'per load':>10}")
    medians = {}
    for watcher in WATCHERS:
        medians[watcher] = [statistics.median(s[i] for s in samples[watcher]) for i in (0, 1)]
        print(f"{watcher:<16} {medians[watcher][0]:>10.3f} {medians[watcher][1]:>10.3f}")
    auto, none = medians["auto"], medians["none"]
    print(f"{'none / auto':<16} {none[0] / auto[0]:>10.2f} {none[1] / auto[1]:>10.2f}")
    return 0


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("app_rerun", main))
