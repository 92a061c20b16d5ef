"""Model and retriever selectors: a spec and its generation parameters; a retriever kind and k."""

from __future__ import annotations

from typing import Optional

import streamlit as st

from playground import bounds
from playground.app.components.errors import show_error
from playground.models.base import GenerationParams
from playground.runs.variants import ModelChoice, RetrieverChoice

NO_RETRIEVER = "none (no passages)"


def model_presets() -> list[str]:
    from playground.models.registry import DEFAULT_MODEL_SPEC, providers

    return [DEFAULT_MODEL_SPEC] + [p.example for name, p in providers().items() if name != "local"]


def _stop_sequences(text: str) -> tuple[str, ...]:
    """Comma-separated stop strings; \\n in one means a newline."""
    return tuple(part.replace("\\n", "\n") for part in (p.strip() for p in text.split(",")) if part)


def first_value(key: str, value) -> dict:
    """A widget's `value` argument for its first draw only: a widget whose key the page (or a stored run's settings,
    model_selector_values) has already put in session state takes that value, and Streamlit logs a warning with a
    stack trace when such a widget is given a default too."""
    return {} if key in st.session_state else {"value": value}


def _number_field(column, key: str, name: str, bound, kind, step, first):
    """The generation parameter `name` within the engine's bound, its widget keyed `{key}_{name}`."""
    field = f"{key}_{name}"
    return column.number_input(
        name, kind(bound.low), kind(bound.high), step=step, key=field, **first_value(field, first)
    )


def model_selector(
    key: str, default_spec: Optional[str] = None, container=None, compact: bool = False, max_tokens: int = 64
) -> Optional[ModelChoice]:
    """Spec (pick a preset or type any spec) and parameters; a bad spec shows its error here and returns None.
    `max_tokens`: the field's first value."""
    from playground.models.registry import parse_spec, providers

    target = container if container is not None else st
    presets = model_presets()
    spec_key = f"{key}_spec"
    if default_spec and spec_key not in st.session_state:
        st.session_state[spec_key] = default_spec
    if st.session_state.get(spec_key) and st.session_state[spec_key] not in presets:
        presets.append(st.session_state[spec_key])
    spec = target.selectbox(
        "Model",
        presets,
        key=spec_key,
        accept_new_options=True,
        help="local:smollm2 | local:/path.gguf | "
        + " | ".join(p.pattern for n, p in providers().items() if n != "local"),
    )
    columns = target.columns(3 if compact else 5)
    # The limits are the engine's (playground.bounds), the ones the CLI's flags and GenerationParams check.
    temperature = _number_field(columns[0], key, "temperature", bounds.TEMPERATURE, float, 0.1, 0.0)
    max_tokens = _number_field(columns[1], key, "max_tokens", bounds.MAX_TOKENS, int, 8, max_tokens)
    seed = _number_field(columns[2], key, "seed", bounds.SEED, int, 1, 0)
    top_p, stop = 1.0, ""
    if not compact:
        top_p = _number_field(columns[3], key, "top_p", bounds.TOP_P, float, 0.05, 1.0)
        stop_key = f"{key}_stop"
        stop = columns[4].text_input(
            "stop", key=stop_key, help="comma-separated; \\n for a newline", **first_value(stop_key, "")
        )
    try:
        parse_spec(spec or "")
    except Exception as error:  # noqa: BLE001 - ModelSpecError names the spec and what was expected
        show_error(error, "Model", container)
        return None
    params = GenerationParams(
        temperature=float(temperature),
        top_p=float(top_p),
        max_tokens=int(max_tokens),
        stop=_stop_sequences(stop),
        seed=int(seed),
    )
    return ModelChoice(spec.strip(), params)


def model_selector_values(key: str, spec: str, params: dict) -> dict[str, object]:
    """The session-state values that make `model_selector(key)` show `spec` and the GenerationParams dict `params`
    (to draw the settings a stored run was made with)."""
    values: dict[str, object] = {f"{key}_spec": spec}
    for name, kind in (("temperature", float), ("max_tokens", int), ("seed", int), ("top_p", float)):
        if params.get(name) is not None:
            values[f"{key}_{name}"] = kind(params[name])
    if params.get("stop"):
        values[f"{key}_stop"] = ", ".join(s.replace("\n", "\\n") for s in params["stop"])
    return values


def retriever_selector_values(key: str, kind: Optional[str], k: int) -> dict[str, object]:
    """The session-state values that make `retriever_selector(key)` show `kind` (None: no retriever) and `k`."""
    return {f"{key}_kind": kind or NO_RETRIEVER, f"{key}_k": int(k)}


def retriever_selector(
    key: str, allow_none: bool = True, default_kind: Optional[str] = "bm25", default_k: int = 3, container=None
) -> RetrieverChoice:
    """Kind (or none) and k; index parameters are the kind's defaults (the Retrievers page tunes them)."""
    from playground.retrieval.registry import retriever_kinds

    target = container if container is not None else st
    options = ([NO_RETRIEVER] if allow_none else []) + retriever_kinds()
    kind_key = f"{key}_kind"
    if kind_key not in st.session_state:
        st.session_state[kind_key] = default_kind if default_kind in options else options[0]
    columns = target.columns([3, 1])
    kind = columns[0].selectbox("Retriever", options, key=kind_key)
    k = columns[1].number_input("k", 1, 20, default_k, 1, key=f"{key}_k", disabled=kind == NO_RETRIEVER)
    from playground.app.components.rerank_selector import rerank_selector

    stages = rerank_selector(key, target) if kind != NO_RETRIEVER else {}
    return RetrieverChoice(None if kind == NO_RETRIEVER else kind, int(k), stages=stages)
