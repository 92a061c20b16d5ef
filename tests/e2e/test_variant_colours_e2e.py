"""Three variants on the Side by side page in Chromium at 1400x900 (issue 34 item 8: A and C shared a colour): each
variant's bars in the means chart have a colour of their own, read from the chart's Plotly data; the grid and the
chart are saved as a screenshot set under artifacts/screenshots/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.helpers import open_page, set_text, wait_until_idle

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

VARIANTS = ("A", "B", "C")


def test_three_variants_have_three_colours_in_the_chart_and_a_screenshot_set(page, app_url, screenshot):
    from tests.openai_server import OpenAIServer

    server = OpenAIServer().start()  # answers at once: the colours are under test, not the model
    try:
        page.set_viewport_size({"width": 1400, "height": 900})
        open_page(page, app_url + "/side-by-side", "Side by side")  # max_tokens left as is: the server answers at once
        page.get_by_text("Seeded sample", exact=True).click()
        wait_until_idle(page)
        set_text(page, "Sample size", 3)
        page.get_by_label("Variants", exact=True).fill("3")
        page.get_by_label("Variants", exact=True).press("Enter")
        wait_until_idle(page)
        page.get_by_role("heading", name="Variant C").wait_for()
        for nth in range(len(VARIANTS)):
            page.get_by_label("Model", exact=True).nth(nth).click()
            page.keyboard.type(server.spec())
            page.keyboard.press("Enter")
            wait_until_idle(page)
        page.get_by_role("button", name="Run all variants").click()
        page.get_by_text("Open a cell", exact=True).wait_for(timeout=240_000)
        wait_until_idle(page)
    finally:
        server.close()

    chart = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Mean per metric with 95% intervals")
    chart.scroll_into_view_if_needed()
    plot = chart.locator(".js-plotly-plot").first
    plot.wait_for()
    traces = plot.evaluate("plot => plot.data.map(trace => [trace.name, trace.marker.color])")
    names = [name for name, _ in traces]
    assert [re.match(r"[A-D]\b", name).group(0) for name in names] == list(VARIANTS), names
    colours = [colour for _, colour in traces]
    assert len(set(colours)) == len(VARIANTS), traces  # A and C no longer share a colour
    drawn = plot.evaluate(
        "plot => Array.from(plot.querySelectorAll('.barlayer .trace')).map(t => t.querySelector('path').style.fill)"
    )
    assert len(set(drawn)) == len(VARIANTS), drawn  # and the bars are drawn in them
    element_shot(chart, "three-variants-chart")

    grid = page.locator('[data-testid="stDataFrame"]').filter(has_text="A answer")
    grid.scroll_into_view_if_needed()
    for label in VARIANTS:
        expect(grid).to_contain_text(f"{label} answer")  # its cells are drawn a moment after the frame
    element_shot(grid, "three-variants-grid")
    screenshot(page, "three-variants-page")


def element_shot(locator, name: str) -> None:
    """One element's screenshot beside the page shots of the `screenshot` fixture (artifacts/screenshots/)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
