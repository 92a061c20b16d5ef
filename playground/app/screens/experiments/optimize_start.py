"""The Optimise tab's two actions: start a prompt search on the current benchmark as a detached job (the engine call
`playground optimize --detach` makes), and save a finished search's winner under a name, as a template of your own
(templates/NAME.jinja and its first prompt version, whose parent is the winner's version)."""

from __future__ import annotations

from typing import Mapping, Optional

import streamlit as st

from playground import PlaygroundError
from playground.bounds import FINALISTS

SEARCH_KEY = "optimize_search"  # the Search picker's key: a started search is shown at once
SAVED_KEY = "optimize_saved_notice"
DEFAULT_SAMPLE = 30  # a first search that ends in minutes on the local model, not hours
ONE_CALL_PROGRAMS = ("direct", "rag")  # one model call per answer; others (multihop, react...) make several


def start_form(ws, benchmark: Optional[str], session_id: str, api_keys: Mapping[str, str], expanded: bool) -> None:
    """Program, prompt, retriever, model and the search's budget and seed; Start search stores it and starts its
    worker (the page follows it from the database: Refresh, Stop, Resume)."""
    from playground.app import components as ui
    from playground.app.components.prompt_picker import PROGRAM_DEFAULT
    from playground.app.screens.experiments.run_setup import run_setup

    with st.expander("Start a search", expanded=expanded):
        if benchmark is None:
            st.info("Choose a benchmark in the sidebar first: a search splits its questions.")
            return
        st.session_state.setdefault("optimize_template", PROGRAM_DEFAULT)  # the program's own main template
        setup = run_setup(ws, "optimize", "direct", "Starting prompt")
        program, prompt, retriever, model = setup.program, setup.prompt, setup.retriever, setup.model
        columns = st.columns(6)
        budget = columns[0].number_input("Budget (candidates)", 1, 50, 3, key="optimize_budget")
        seed = columns[1].number_input("Search seed", 0, 2**31 - 1, 0, key="optimize_seed")
        split = columns[2].text_input("Split (train/validation/held-out)", "30/40/30", key="optimize_split")
        rounds = columns[3].number_input(
            "Rounds", 1, 10, 1, key="optimize_rounds", help="each round after the first proposes from the best so far"
        )
        demos = columns[4].number_input(
            "Demonstrations", 0, 10, 0, key="optimize_demos", help="also try subsets of N bootstrapped on train"
        )
        finalists = columns[5].number_input(
            "Finalists",
            int(FINALISTS.low),
            int(FINALISTS.high),
            1,
            key="optimize_finalists",
            help="The top candidates on validation confirmed on the held-out questions, p-values Holm-adjusted",
        )
        sample = _sample_and_estimate(ws, benchmark, program, split, int(budget), int(rounds), int(finalists))
        if st.button("Start search", key="optimize_start", type="primary", disabled=model is None):
            with ui.errors_as_messages("Start search"):
                st.session_state[SEARCH_KEY] = _start(
                    ws,
                    benchmark,
                    program,
                    prompt,
                    retriever,
                    model,
                    int(budget),
                    int(seed),
                    split,
                    int(finalists),
                    session_id,
                    api_keys,
                    int(rounds),
                    int(demos),
                    sample,
                )
                st.rerun()


def _sample_and_estimate(ws, benchmark, program, split_text, budget, rounds, finalists) -> Optional[int]:
    """The sample size (`--sample`: a seeded sample the search splits; 0 for every question) and, before anything
    starts, what the search will cost; returns the sample (None: all)."""
    from playground.app import components as ui
    from playground.optimize.estimate import estimate_search
    from playground.optimize.splits import parse_split
    from playground.store.datasets import load_questions

    total = len(load_questions(ws, benchmark))
    sample = st.number_input(
        f"Sample size (0: all {total})",
        0,
        max(total, 1),
        min(total, DEFAULT_SAMPLE),
        key="optimize_sample",
        help="A seeded sample of this many questions is split into train, validation and held-out",
    )
    n = int(sample) or total
    try:
        estimate = estimate_search(n, parse_split(split_text), budget, rounds=rounds, finalists=finalists)
    except PlaygroundError as error:
        st.warning(ui.md_escape(f"Cannot estimate: {error}"))
    else:
        several = "" if program in ONE_CALL_PROGRAMS else f" ({program} may call the model several times an answer)"
        ui.show_text(f"Estimate: {estimate.text()}{several}", css_class="pg-optimize-estimate", muted=True)
    return int(sample) or None


def _start(
    ws,
    benchmark,
    program,
    prompt,
    retriever,
    model,
    budget,
    seed,
    split,
    finalists,
    session_id,
    api_keys,
    rounds=1,
    demos=0,
    sample=None,
) -> str:
    from playground.app.components.prompt_choices import version_to_run
    from playground.optimize.optimizer import SearchSettings, start_detached
    from playground.optimize.splits import parse_split
    from playground.runs.config import RunConfig
    from playground.runs.variants import retrieval_fields

    settings = SearchSettings(
        budget=budget, seed=seed, split=parse_split(split), finalists=finalists, rounds=rounds, demos=demos
    )
    config = RunConfig(
        dataset=benchmark,
        program=program,
        templates={"main": version_to_run(ws, prompt, session_id)} if prompt is not None else {},
        **retrieval_fields(retriever),
        model=model.spec,
        params=model.params,
        seed=seed,
        sample=sample,
    )
    optimization_id, _ = start_detached(ws, config, settings, session_id, dict(api_keys))
    return optimization_id


def save_winner_form(ws, row: Mapping, session_id: str) -> None:
    """A name for the winner's template, and Save as new template (the winner only: the start is saved already)."""
    from playground.app import components as ui

    notice = st.session_state.pop(SAVED_KEY, None)
    if notice:
        (st.success if notice[0] == "success" else st.error)(ui.md_escape(notice[1]))
    winner = (row.get("report") or {}).get("winner") or {}
    if not winner.get("index"):
        st.caption("No candidate beat the starting prompt on validation: there is no winner to save.")
        return
    name_key = f"optimize_winner_name_{row['id']}"
    st.text_input(
        "Name for the winner's template",
        key=name_key,
        placeholder="my-optimised-prompt",
        help="Letters, digits, '.', '_' or '-'; stored as templates/NAME.jinja beside the workspace",
    )
    if st.button("Save winner as new template", key=f"optimize_save_winner_{row['id']}", icon=":material/note_add:"):
        st.session_state[SAVED_KEY] = save_winner(ws, row, st.session_state.get(name_key, ""), session_id)
        st.rerun()


def save_winner(ws, row: Mapping, name: str, session_id: str) -> tuple[str, str]:
    """("success" or "error", the line to show) for saving the winner of search `row` as template `name`."""
    from playground.prompts.library import load_template
    from playground.prompts.own_templates import save_own_template

    winner = row["report"]["winner"]
    try:
        created, version = save_own_template(
            ws,
            load_template(winner["ref"], ws),
            name,
            f"the winner of prompt search {row['id']} (candidate {winner['index']})",
            parent=winner["version"],
            session_id=session_id,
        )
    except PlaygroundError as error:
        return "error", str(error)
    return "success", f"Saved the winner as new template {created.name} (version {version[:8]}, file {created.path})."
