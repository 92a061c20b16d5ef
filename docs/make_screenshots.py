"""Screenshots of every app page for the README: the app over a workspace, Debian's Chromium, one PNG per page.

    .venv/bin/python docs/make_screenshots.py --db sessions/playground.db --run-a RUN --run-b RUN --question ID
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playground.app.launch import streamlit_command  # noqa: E402
from tests.e2e.conftest import CHROMIUM_ARGS, free_port, wait_healthy  # noqa: E402

OUT = Path(__file__).resolve().parent / "screenshots"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True)
    parser.add_argument("--run-a", required=True)
    parser.add_argument("--run-b", required=True)
    parser.add_argument("--question", required=True)
    args = parser.parse_args()
    views = {
        "playground": "page=playground",
        "side-by-side": "page=side-by-side",
        "retrievers": "page=retrievers",
        "runs": f"page=runs&run={args.run_a}",
        "ab": f"page=ab&run={args.run_a}&other={args.run_b}",
        "traces": f"page=traces&run={args.run_a}&question={args.question}",
        "experiments": "page=experiments",
        "sessions": "page=sessions",
    }
    port = free_port()
    log = Path(tempfile.mkdtemp()) / "streamlit.log"
    env = dict(os.environ, PLAYGROUND_DB=str(Path(args.db).resolve()))
    with open(log, "w") as out:
        server = subprocess.Popen(streamlit_command(args.db, port=port), env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, server, log)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(url)
            page.wait_for_timeout(4000)
            OUT.mkdir(parents=True, exist_ok=True)
            for slug, query in views.items():
                page.goto(f"{url}/?{query}")
                page.wait_for_selector("[data-testid='stApp']")
                deadline = time.monotonic() + 120
                while time.monotonic() < deadline and page.locator("[data-testid='stStatusWidget']").count():
                    page.wait_for_timeout(500)
                if slug == "retrievers":
                    page.get_by_role("button", name="Search").click()
                page.wait_for_timeout(6000)
                target = OUT / f"{slug}.png"
                page.screenshot(path=str(target), full_page=True)
                print(target)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
