"""Driving Streamlit pages in Chromium: open a page, wait for its script run, pick options, read sidebar text."""

from __future__ import annotations

import re

SIDEBAR = '[data-testid="stSidebar"]'


# The app root carries the script state. A widget change reaches the server and starts a run some time after the
# click, so "not running" right after an action may be the state before the run: idle means a run was seen and
# ended, or the state stayed "notRunning" for a quiet spell. (Streamlit's status widget shows only after a run has
# lasted 500 ms, so waiting for it to go hides short runs and returns early.) A run that started and ended before the
# wait began is seen through RUN_WATCH, which the browser context installs in every page: a run started after the
# page's last input (a click, a key, a fill) and after the last wait ended is the run that input caused (or one the
# page started itself), so no quiet spell is waited out for it.
RUN_WATCH = """(() => {
  const watch = {lastInput: -1, lastRunStart: -1, lastWaitEnd: -1, state: null};
  window.__playgroundRuns = watch;
  for (const type of ["pointerdown", "keydown", "input", "change"]) {
    document.addEventListener(type, () => { watch.lastInput = performance.now(); }, true);
  }
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const state = app ? app.getAttribute("data-test-script-state") : null;
    if (state !== watch.state) {
      if (state !== null && state !== "notRunning") watch.lastRunStart = performance.now();
      watch.state = state;
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-test-script-state"]});
})();"""

_IDLE = """([quiet]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app ? app.getAttribute('data-test-script-state') : 'initial';
  const watch = window.__playgroundIdle;
  const now = performance.now();
  if (state !== 'notRunning') { watch.sawRun = true; watch.idleSince = null; return false; }
  if (watch.idleSince === null) watch.idleSince = now;
  const idle = now - watch.idleSince >= (watch.sawRun ? 150 : quiet);
  if (idle && window.__playgroundRuns) window.__playgroundRuns.lastWaitEnd = now;
  return idle;
}"""

_ARM = """() => {
  const runs = window.__playgroundRuns;
  const since = runs ? Math.max(runs.lastInput, runs.lastWaitEnd) : Infinity;
  window.__playgroundIdle = {sawRun: !!runs && runs.lastRunStart > since, idleSince: null};
}"""


def wait_until_idle(tab, timeout: int = 180_000, quiet: int = 800) -> None:
    """Wait for the script run an action started (or for `quiet` ms with none) to end."""
    tab.evaluate(_ARM)
    tab.wait_for_function(_IDLE, arg=[quiet], timeout=timeout, polling=50)


def open_page(tab, url: str, title: str) -> None:
    tab.goto(url)
    tab.get_by_role("heading", name=title, level=1).wait_for()
    wait_until_idle(tab)


def go_to(tab, title: str) -> None:
    """In-app navigation through the sidebar (the same browser session, unlike a page load)."""
    tab.locator(SIDEBAR).get_by_role("link", name=title, exact=True).click()
    tab.get_by_role("heading", name=title, level=1).wait_for()
    wait_until_idle(tab)


def choose(
    tab, label: str, option: str | re.Pattern, nth: int = 0, waits_ms: tuple = (3_000, 15_000, 60_000), within=None
) -> None:
    """Pick an option of a selectbox by (the start of) its text. A rerun that replaces the box as it opens (a page
    settling after its first run) leaves no list: then close whatever opened, wait for the run to end and open it
    again, waiting longer each time (a list opens within ~0.1 s when nothing is in the way). `within`: the part of
    the page holding the box (its list opens outside it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    name = option if isinstance(option, re.Pattern) else re.compile("^" + re.escape(option))
    wanted = tab.get_by_role("option", name=name).first
    for attempt, wait_ms in enumerate(waits_ms):
        (within or tab).get_by_label(label, exact=True).nth(nth).click()
        try:
            wanted.wait_for(timeout=wait_ms)
            break
        except PlaywrightTimeout:
            if attempt == len(waits_ms) - 1:
                raise
            tab.keyboard.press("Escape")
            wait_until_idle(tab)
    wanted.click()
    wait_until_idle(tab)


def selected(tab, label: str, nth: int = 0) -> str:
    return tab.get_by_label(label, exact=True).nth(nth).input_value()


def sidebar_text(tab) -> str:
    return tab.locator(SIDEBAR).inner_text()


def set_text(tab, label: str, value: str | int, nth: int = 0) -> None:
    """Fill a text or number field and submit it (Enter), then wait for the script run it starts."""
    field = tab.get_by_label(label, exact=True).nth(nth)
    field.fill(str(value))
    field.press("Enter")
    wait_until_idle(tab)


def side_by_side_sample(tab, app_url: str, sample: int, max_tokens: int, variants: int = 2) -> None:
    """The Side by side page set to a seeded sample of `sample` questions, each variant at `max_tokens`."""
    open_page(tab, app_url + "/side-by-side", "Side by side")
    tab.get_by_text("Seeded sample", exact=True).click()
    wait_until_idle(tab)
    set_text(tab, "Sample size", sample)
    for nth in range(variants):
        set_text(tab, "max_tokens", max_tokens, nth)


def show_tab(tab, name: str) -> None:
    """Bring a tab of `st.tabs` to the front: every tab is drawn by the same script run and the browser only shows
    another (no script run starts, so there is none to wait for), so this waits until it is the selected one."""
    from playwright.sync_api import expect

    button = tab.get_by_role("tab", name=name)
    button.click()
    expect(button).to_have_attribute("aria-selected", "true", timeout=60_000)  # the context's timeout, not expect's 5 s
