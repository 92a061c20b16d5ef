"""The first page a fresh app server serves: a share link to a page other than the Playground opens that page with
no "Page not found" (a pages/ folder beside streamlit_app.py made Streamlit's first script run a v1 multipage one)."""

from __future__ import annotations

import pytest

from playground.store import open_workspace
from playground.store.datasets import save_dataset
from tests.conftest import tiny_dataset
from tests.e2e.helpers import wait_until_idle

pytestmark = pytest.mark.e2e


def test_a_deep_link_as_a_fresh_servers_first_request_opens_its_page(browser_context, tmp_path):
    from tests.e2e.servers import app_server

    db = tmp_path / "sessions" / "playground.db"
    workspace = open_workspace(db)
    save_dataset(workspace, "tiny", tiny_dataset())
    workspace.close()
    with app_server(db, tmp_path / "streamlit.log") as url:
        tab = browser_context.new_page()
        try:
            tab.goto(f"{url}/runs")
            tab.get_by_role("heading", name="Runs", level=1).wait_for()
            wait_until_idle(tab)
            assert tab.get_by_text("Page not found").count() == 0, tab.locator("body").inner_text()[:1000]
        finally:
            tab.close()
