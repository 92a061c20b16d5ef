"""Links between pages: in-app navigation when the page is registered, else a share link (a full page load)."""

from __future__ import annotations


import streamlit as st

from playground.app import state
from playground.app.components.text import md_escape


def page_link(slug: str, label: str, container=None, **params) -> None:
    """Link to page `slug` with query parameters (e.g. traces with run= and question=)."""
    target = container if container is not None else st
    query = {k: str(v) for k, v in params.items() if v not in (None, "")}
    label = md_escape(label)
    path = state.page_file(slug)
    if path.is_file():
        try:
            target.page_link(str(path), label=label, query_params=query)
            return
        except Exception:  # noqa: BLE001 - the page is not registered (a page run alone, as in tests)
            pass
    target.markdown(f"[{label}]({state.share_link(slug, **query)})")
