"""Side by side: two to four variants (template version, retriever, k, model, parameters) on the same question or
the same seeded sample: each variant's means with intervals, then a sortable grid with a row per question (the
variants' answers side by side, then their scores, latencies, tokens and cache hits) whose cells open their
passages, rendered prompt and trace.

Each variant is a job: "Run all variants" hands every variant's run to a worker process of its own
(`runs.variants.start_variants`: detached runs whose local-model workers share the cores) and the page follows them
from the database (ui.follow_runs: progress, Stop, Resume). Their ids are kept in st.session_state and in the address (`?runs=A:ID,B:ID`, also in the
share link), so coming back to the page, or reloading it, shows the same comparison, with the variant columns set to
the settings that made those runs; the grid is drawn from the stored runs once none is running.
"""

from __future__ import annotations

import html

import streamlit as st

from playground.app import components as ui
from playground.app import state
from playground.runs.variants import Variant, start_variants, variant_label
from playground.store.share_links import resolve_run_link

COUNT_KEY, MODE_KEY, QUESTION_KEY = "sbs_count", "sbs_mode", "sbs_question"
SAMPLE_KEY, SEED_KEY, RESULTS_KEY = "sbs_sample", "sbs_seed", "_sbs_results"
RUNS_PARAM = "runs"
ONE_QUESTION, SAMPLE = "One question", "Seeded sample"
DEFAULT_TEMPLATES = ["rag-short-answer", "direct-short-answer", "rag-citations", "rag-cot"]
DEFAULT_RETRIEVERS = ["bm25", None, "bm25", "bm25"]


def template_options(ws) -> dict[str, object]:
    """The prompt picker's choices by key (the editor's text, saved versions as NAME@ID with their messages, the
    templates); judge templates are not offered: they judge answers, they do not answer."""
    from playground.app.components.prompt_choices import prompt_choices

    return {choice.key: choice for choice in prompt_choices(ws, state.current_session_id())}


def _variant_base(ws, choice):
    """The template the editor's text was edited from, so a run records it as the parent."""
    from playground.app.components.prompt_choices import base_template

    return base_template(ws, choice.template.name, choice.base_version) if choice.is_editor_text else None


def variant_column(index: int, column, templates: dict, corpus) -> Variant | None:
    """One variant's settings in its column; None when its model spec is invalid. Variant A starts from the
    editor's text; the others from a starter each, labelled as such."""
    from playground.app.components.prompt_choices import default_choice

    label = variant_label(index)
    with column:
        st.subheader(f"Variant {label}")
        names = list(templates)
        template_key = f"sbs_{index}_template"
        if st.session_state.get(template_key) not in templates:
            default = (
                default_choice(list(templates.values()))
                if index == 0
                else DEFAULT_TEMPLATES[index % len(DEFAULT_TEMPLATES)]
            )
            st.session_state[template_key] = default if default in templates else names[0]
        name = st.selectbox("Prompt", names, key=template_key, format_func=lambda key: templates[key].label)
        default_kind = DEFAULT_RETRIEVERS[index % len(DEFAULT_RETRIEVERS)] if corpus else None
        retriever = ui.retriever_selector(f"sbs_{index}_retriever", default_kind=default_kind, default_k=3)
        model = ui.model_selector(f"sbs_{index}_model", compact=True)
    if model is None:
        return None
    choice = templates[name]
    return Variant(
        template=choice.template, retriever=retriever, model=model, base=_variant_base(state.workspace(), choice)
    )


def settings_table(variants: list[Variant]) -> list[str]:
    """An HTML table of each variant's settings with the rows that differ highlighted; returns those setting names."""
    settings = [variant.settings() for variant in variants]
    keys = list(dict.fromkeys(key for s in settings for key in s))
    differing = [key for key in keys if len({repr(s.get(key)) for s in settings}) > 1]
    header = "".join(f"<th>{variant_label(i)}</th>" for i in range(len(variants)))
    rows = []
    for key in keys:
        mark = " style='background:#fff3bf;font-weight:600'" if key in differing else ""
        cells = "".join(f"<td>{html.escape(str(s.get(key)))}</td>" for s in settings)
        rows.append(f"<tr{mark}><td>{html.escape(key)}</td>{cells}</tr>")
    st.html(
        "<table class='pg-settings' style='border-collapse:collapse;font-size:0.9rem'>"
        f"<tr><th>setting</th>{header}</tr>{''.join(rows)}</table>"
        "<style>.pg-settings td,.pg-settings th{padding:2px 10px;border-bottom:1px solid #eee;text-align:left}</style>"
    )
    return differing


def rendered_prompt(ws, corpus, variant: Variant, question) -> str:
    from playground.prompts.render import question_variables, render_messages

    passages = ui.retrieve_passages(ws, corpus, variant.retriever, question.text)
    return ui.messages_text(render_messages(variant.template, question_variables(question, passages)))


def prompt_diffs(ws, corpus, variants: list[Variant], question) -> None:
    """The rendered prompt of variant A against each other variant's, for this question (no model call)."""
    texts = []
    for index, variant in enumerate(variants):
        text = None
        with ui.errors_as_messages(f"Variant {variant_label(index)} prompt"):
            text = rendered_prompt(ws, corpus, variant, question)
        texts.append(text)
    if texts[0] is None:
        return
    tabs = st.tabs([f"A vs {variant_label(i)}" for i in range(1, len(variants))])
    for index, tab in enumerate(tabs, start=1):
        if texts[index] is not None:
            with tab:
                ui.show_prompt_diff(texts[0], texts[index], "A", variant_label(index))


def start_all(ws, benchmark, variants, question_ids, sample, seed) -> None:
    """Each variant as a detached run over the same questions (one, or the same seeded sample), remembered as
    {label: run id} in st.session_state[RESULTS_KEY]["runs"].

    That dict is made first and filled in place: a click elsewhere (leaving the page) stops this script run at its
    next Streamlit call, session-state writes included, and the runs started by then must still be found."""
    shown = st.session_state.setdefault(RESULTS_KEY, {})
    runs: dict[str, str] = {}

    def started(label: str, run_id: str) -> None:
        runs[label] = run_id
        shown["runs"] = dict(runs)

    start_variants(
        ws,
        benchmark,
        variants,
        state.current_session_id(),
        question_ids=question_ids,
        sample=sample,
        seed=seed,
        api_keys=state.api_keys(),
        guard=lambda label: ui.errors_as_messages(f"Variant {label}"),
        on_started=started,
    )


def runs_param(runs: dict[str, str]) -> str:
    """{label: run id} as the address keeps it: "A:ID,B:ID"."""
    return ",".join(f"{label}:{run_id}" for label, run_id in runs.items())


def linked_runs(ws, value: str) -> dict[str, str]:
    """The runs a `?runs=A:ID,B:ID` link names (an id alone takes the label of its place); {} when one is unknown."""
    from playground import PlaygroundError

    runs = {}
    for index, part in enumerate(p for p in value.split(",") if p.strip()):
        label, _, run_id = part.strip().rpartition(":")
        try:
            runs[label or variant_label(index)] = resolve_run_link(ws, run_id)
        except PlaygroundError as error:
            st.warning(ui.md_escape(f"Link: {error}"))
            return {}
    return runs


def settings_of_runs(configs: list[dict]) -> dict[str, object]:
    """The page's widget values that made these runs (variant columns in order, the question or the sample), so a
    comparison opened from its address shows its own settings rather than the page's defaults."""
    from playground.app.components.selectors import model_selector_values, retriever_selector_values
    from playground.app.screens.side_by_side.data import stored_settings

    stored = stored_settings(configs)
    values: dict[str, object] = {COUNT_KEY: min(4, max(2, len(configs)))}
    for index, variant in enumerate(stored["variants"]):
        if variant["template"]:
            values[f"sbs_{index}_template"] = variant["template"]
        values.update(retriever_selector_values(f"sbs_{index}_retriever", variant["retriever"], variant["k"]))
        values.update(model_selector_values(f"sbs_{index}_model", variant["model"], variant["params"]))
    if stored["sample"]:
        values.update({MODE_KEY: SAMPLE, SAMPLE_KEY: stored["sample"], SEED_KEY: stored["seed"]})
    elif stored["question"]:
        values.update({MODE_KEY: ONE_QUESTION, QUESTION_KEY: stored["question"]})
    return values


def follow(ws, corpus, runs: dict[str, str], questions: dict) -> None:
    """The variants' runs as they are now; the grid once none of them is running."""
    st.subheader("Runs")
    if ui.follow_runs({f"Variant {label}": run_id for label, run_id in runs.items()}, key="sbs_runs"):
        st.caption("The grid appears when every variant has finished; the runs go on if you leave this page.")
        return
    from playground.app.screens.side_by_side.grid import show_grid

    show_grid(ws, corpus, runs, questions)


def main() -> None:
    from playground.store.datasets import corpus_of, load_questions

    st.title("Side by side")
    ws = state.workspace()
    benchmark = state.require_benchmark()
    questions = load_questions(ws, benchmark)
    corpus = corpus_of(ws, benchmark)
    if not questions:
        st.info(ui.md_escape(f"Benchmark {benchmark} has no questions."))
        st.stop()
    link_count = state.link_param("variants")
    if link_count and link_count.isdigit():
        st.session_state[COUNT_KEY] = min(4, max(2, int(link_count)))
    link_question = state.link_param("q")
    if link_question:
        st.session_state[QUESTION_KEY] = link_question
    link_runs = state.link_param(RUNS_PARAM)
    if link_runs:
        found = linked_runs(ws, link_runs)
        if found and (st.session_state.get(RESULTS_KEY) or {}).get("runs") != found:
            from playground.store.runs import get_run

            st.session_state.update(settings_of_runs([get_run(ws, run_id).config for run_id in found.values()]))
        if found:
            st.session_state[RESULTS_KEY] = {"runs": found}

    top = st.columns([1, 2, 3])
    count = top[0].number_input("Variants", 2, 4, 2, 1, key=COUNT_KEY)
    mode = top[1].radio("Run on", [ONE_QUESTION, SAMPLE], horizontal=True, key=MODE_KEY)
    by_id = {q.id: q for q in questions}
    if st.session_state.get(QUESTION_KEY) not in by_id:
        st.session_state[QUESTION_KEY] = questions[0].id
    with top[2]:
        question = by_id[
            st.selectbox(
                "Question (also used for the prompt diff)",
                list(by_id),
                key=QUESTION_KEY,
                format_func=lambda qid: f"{qid}: {by_id[qid].text}",
            )
        ]
        sample, seed = None, 0
        if mode == SAMPLE:
            inner = st.columns(2)
            sample = inner[0].number_input("Sample size", 1, len(questions), min(20, len(questions)), 1, key=SAMPLE_KEY)
            seed = inner[1].number_input("Seed", 0, 2**31 - 1, 0, 1, key=SEED_KEY)

    templates = template_options(ws)
    columns = st.columns(int(count))
    variants = [variant_column(index, column, templates, corpus) for index, column in enumerate(columns)]
    if any(variant is None for variant in variants):
        st.stop()

    st.markdown("**Settings** (rows that differ are highlighted)")
    differing = settings_table(variants)
    st.caption("Differs: " + (", ".join(differing) if differing else "nothing: the variants are identical"))
    with st.expander("Prompt diff for this question", expanded=False):
        prompt_diffs(ws, corpus, variants, question)

    if st.button("Run all variants", type="primary"):
        question_ids = [question.id] if mode == ONE_QUESTION else None
        start_all(ws, benchmark, variants, question_ids, int(sample or 0) or None, int(seed))
    stored = st.session_state.get(RESULTS_KEY)
    runs = ui.stored_runs(ws, stored["runs"]) if isinstance(stored, dict) and stored.get("runs") else {}
    if runs:
        st.query_params[RUNS_PARAM] = runs_param(runs)  # a reload of this address shows the same comparison
        follow(ws, corpus, runs, by_id)
    link = state.share_link("side-by-side", q=question.id, variants=int(count), runs=runs_param(runs) if runs else None)
    st.caption("Share this view:")
    st.code(link, language=None)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    main()
