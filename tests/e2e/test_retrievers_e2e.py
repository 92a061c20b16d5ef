"""The Retrievers page in a real Chromium at 1400x900, done as a person does it: its sample evaluation is
`eval-retrieval`'s (stored as a retrieval run per retriever, MRR and nDCG shown), its cards read whole in three
columns, and its recall chart's legend stays off the axis labels."""

from __future__ import annotations

import re

import pytest

from playground.evaluation.retrieval import metric_cell
from playground.store import open_workspace
from playground.store.retrieval_runs import list_retrieval_runs
from playground.store.sessions import current_session
from tests.e2e.conftest import APP_DB
from tests.e2e.helpers import open_page, wait_until_idle

pytestmark = pytest.mark.e2e

RETRIEVERS = "Retrievers (2 to 4)"
LEGEND_PLACE = """(plot) => {
  const box = (el) => el.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const legend = box(plot.querySelector('.legend'));
  const area = box(plot.querySelector('.nsewdrag'));
  const labels = [...plot.querySelectorAll('.xtitle, .ytitle, .xtick text, .ytick text, .gtitle')];
  return {above: legend.bottom <= area.top + 1,
          covers: labels.filter((label) => meets(legend, box(label))).map((label) => label.textContent)};
}"""


def _chips(box) -> list[str]:
    return [tag.get_attribute("aria-label") for tag in box.locator("[data-tag]").all()]


def pick_retrievers(page, wanted: list[str]) -> None:
    """Set the retriever multiselect to `wanted`: remove the others' chips, then choose the missing ones."""
    box = page.get_by_test_id("stMultiSelect").filter(has_text=RETRIEVERS)
    box.locator("[data-tag]").first.wait_for()  # the page's default pair, once drawn
    chosen = _chips(box)
    for kind in chosen:
        if kind not in wanted:
            box.get_by_role("button", name=f"Remove {kind}").click()
            wait_until_idle(page)
    for kind in wanted:
        if kind not in chosen:
            page.get_by_label(RETRIEVERS).click()
            page.get_by_role("option", name=kind, exact=True).click()
            wait_until_idle(page)
    page.keyboard.press("Escape")
    assert sorted(_chips(box)) == sorted(wanted)


def test_the_sample_evaluation_is_stored_as_eval_retrieval_runs(page, app_url, screenshot):
    page.set_viewport_size({"width": 1400, "height": 900})
    ws = open_workspace(APP_DB["path"])
    try:
        before = {run["id"] for run in list_retrieval_runs(ws, "tiny")}
    finally:
        ws.close()
    open_page(page, app_url + "/retrievers", "Retrievers")
    pick_retrievers(page, ["bm25", "bm25-rank"])
    page.get_by_role("button", name="Evaluate").click()
    wait_until_idle(page)

    ws = open_workspace(APP_DB["path"])
    try:
        session = current_session(ws)["id"]
        new = {run["config"]["retriever"]: run for run in list_retrieval_runs(ws, "tiny") if run["id"] not in before}
    finally:
        ws.close()
    assert sorted(new) == ["bm25", "bm25-rank"]  # a retrieval run per retriever, in the current session
    for run in new.values():
        assert run["session_id"] == session
        assert {key: run["config"][key] for key in ("k", "sample", "seed")} == {"k": 5, "sample": 6, "seed": 0}
        assert {"mrr@k", "ndcg@k"} <= set(run["metrics"]) and set(run["metrics"]["intervals"]) >= {"mrr@k", "ndcg@k"}

    table = page.get_by_test_id("stTable")
    shown = table.inner_text()
    assert "MRR@5" in shown and "nDCG@5" in shown
    for kind, run in new.items():
        row = table.locator("tr").filter(has=page.get_by_role("rowheader", name=kind, exact=True)).inner_text()
        assert run["id"] in row
        for name in ("recall", "mrr", "ndcg"):
            assert metric_cell(run["metrics"], name) in row, (kind, name, row)

    recall = page.locator(".js-plotly-plot").filter(has_text="Recall@k on the sample")
    recall.locator(".legend").wait_for()
    # above the plot area, clear of the title: not in the band of the x axis's labels, where plotly puts it
    assert recall.evaluate(LEGEND_PLACE) == {"above": True, "covers": []}
    recall.scroll_into_view_if_needed()
    screenshot(page, "retrievers-evaluation")


def test_cards_in_three_columns_show_their_whole_head(page, app_url, screenshot):
    page.set_viewport_size({"width": 1400, "height": 900})
    open_page(page, app_url + "/retrievers", "Retrievers")
    pick_retrievers(page, ["bm25", "bm25-rank", "dense"])
    page.get_by_test_id("stBaseButton-primary").filter(has_text="Search").click()
    wait_until_idle(page)
    heads = page.locator(".pg-card .pg-head")
    heads.first.wait_for()
    assert page.get_by_text(re.compile("also found by")).count() > 0
    cut = heads.evaluate_all(
        "(heads) => heads.filter((h) => h.scrollWidth > h.clientWidth + 1).map((h) => h.textContent)"
    )
    assert cut == [], f"card heads cut off: {cut}"
    screenshot(page, "retrievers-cards")
