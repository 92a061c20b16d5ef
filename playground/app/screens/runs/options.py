"""A program's typed options as widgets (from its options dataclass, as `playground run --help` lists them)."""

from __future__ import annotations

from typing import Any

import streamlit as st


def program_options_form(program: Any, key: str) -> dict:
    """One widget per option of `program`; returns the options set away from their defaults (the run's options)."""
    from playground.programs.options import describe_options

    rows = describe_options(program.options)
    if not rows:
        st.caption(f"`{program.name}` has no options of its own.")
        return {}
    chosen: dict = {}
    with st.container(border=True):  # not an expander: the launch form already is one, and they do not nest
        st.caption(f"Program options of `{program.name}` (each unknown key would be an error)")
        columns = st.columns(min(3, len(rows)))
        for index, row in enumerate(rows):
            column, name = columns[index % len(columns)], row["name"]
            widget_key = f"{key}_{program.name}_{name}"
            if row["choices"]:
                value = column.selectbox(
                    name,
                    list(row["choices"]),
                    index=list(row["choices"]).index(row["default"]),
                    key=widget_key,
                    help=row["help"],
                )
            elif row["type"] == "int":
                minimum = int(row["minimum"]) if row["minimum"] is not None else None
                value = column.number_input(
                    name,
                    min_value=minimum,
                    value=row["default"],
                    step=1,
                    key=widget_key,
                    help=row["help"],
                    placeholder="default",
                )
            elif row["type"] == "float":
                value = column.number_input(
                    name, value=row["default"], step=0.1, key=widget_key, help=row["help"], placeholder="default"
                )
            else:
                value = column.text_input(name, value=row["default"] or "", key=widget_key, help=row["help"]) or None
            if value is not None and value != row["default"]:
                chosen[name] = value
    return chosen
