"""Side by side: two to four variants (template version, retriever, k, model, parameters) on the same question or
the same seeded sample: each variant's means with intervals, then a sortable grid with a row per question (the
variants' answers side by side, then their scores, latencies, tokens and cache hits) whose cells open their
passages, rendered prompt and trace.

Each variant is a job: "Run all variants" hands every variant's run to a worker process of its own
(`start_run(..., detach=True)`, through ui.start_variant) and the page follows them from the database (ui.follow_runs:
progress, Stop, Resume). Their ids are kept in st.session_state and in the address (`?runs=A:ID,B:ID`, also in the
share link), so coming back to the page, or reloading it, shows the same comparison, with the variant columns set to
the settings that made those runs; the grid is drawn from the stored runs once none is running.
"""

from __future__ import annotations

import html

import streamlit as st

from playground.app import components as ui
from playground.app import state
from playground.store.share_links import resolve_run_link

COUNT_KEY, MODE_KEY, QUESTION_KEY = "sbs_count", "sbs_mode", "sbs_question"
SAMPLE_KEY, SEED_KEY, RESULTS_KEY = "sbs_sample", "sbs_seed", "_sbs_results"
RUNS_PARAM = "runs"
ONE_QUESTION, SAMPLE = "One question", "Seeded sample"
DEFAULT_TEMPLATES = ["rag-short-answer", "direct-short-answer", "rag-citations", "rag-cot"]
DEFAULT_RETRIEVERS = ["bm25", None, "bm25", "bm25"]
# Rows tall enough for three lines of an answer: Streamlit wraps a cell's text only in rows over 4rem.
GRID_ROW_HEIGHT = 72


def template_options(ws) -> dict[str, object]:
    """The prompt picker's choices by key (the editor's text, saved versions as NAME@ID with their messages, the
    templates); judge templates are not offered: they judge answers, they do not answer."""
    from playground.app.views.prompts import prompt_choices

    return {choice.key: choice for choice in prompt_choices(ws, state.current_session_id())}


def _variant_base(ws, choice):
    """The template the editor's text was edited from, so a run records it as the parent."""
    from playground.app.views.prompts import base_template

    return base_template(ws, choice.template.name, choice.base_version) if choice.kind == "editor" else None


def variant_column(index: int, column, templates: dict, corpus) -> ui.Variant | None:
    """One variant's settings in its column; None when its model spec is invalid. Variant A starts from the
    editor's text; the others from a starter each, labelled as such."""
    from playground.app.views.prompts import default_choice

    label = ui.variant_label(index)
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
    return ui.Variant(
        template=choice.template, retriever=retriever, model=model, base=_variant_base(state.workspace(), choice)
    )


def settings_table(variants: list[ui.Variant]) -> list[str]:
    """An HTML table of each variant's settings with the rows that differ highlighted; returns those setting names."""
    settings = [variant.settings() for variant in variants]
    keys = list(dict.fromkeys(key for s in settings for key in s))
    differing = [key for key in keys if len({repr(s.get(key)) for s in settings}) > 1]
    header = "".join(f"<th>{ui.variant_label(i)}</th>" for i in range(len(variants)))
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


def rendered_prompt(ws, corpus, variant: ui.Variant, question) -> str:
    from playground.prompts.render import question_variables, render_messages

    passages = ui.retrieve_passages(ws, corpus, variant.retriever, question.text)
    return ui.messages_text(render_messages(variant.template, question_variables(question, passages)))


def prompt_diffs(ws, corpus, variants: list[ui.Variant], question) -> None:
    """The rendered prompt of variant A against each other variant's, for this question (no model call)."""
    texts = []
    for index, variant in enumerate(variants):
        text = None
        with ui.errors_as_messages(f"Variant {ui.variant_label(index)} prompt"):
            text = rendered_prompt(ws, corpus, variant, question)
        texts.append(text)
    if texts[0] is None:
        return
    tabs = st.tabs([f"A vs {ui.variant_label(i)}" for i in range(1, len(variants))])
    for index, tab in enumerate(tabs, start=1):
        if texts[index] is not None:
            with tab:
                ui.show_prompt_diff(texts[0], texts[index], "A", ui.variant_label(index))


def start_all(ws, benchmark, variants, question_ids, sample, seed) -> None:
    """Each variant as a detached run over the same questions (one, or the same seeded sample), remembered as
    {label: run id} in st.session_state[RESULTS_KEY]["runs"].

    That dict is made first and filled in place: a click elsewhere (leaving the page) stops this script run at its
    next Streamlit call, session-state writes included, and the runs started by then must still be found."""
    session_id, api_keys = state.current_session_id(), state.api_keys()
    shown = st.session_state.setdefault(RESULTS_KEY, {})
    runs: dict[str, str] = {}
    for index, variant in enumerate(variants):
        label = ui.variant_label(index)
        with ui.errors_as_messages(f"Variant {label}"):
            runs[label] = ui.start_variant(
                ws,
                benchmark,
                variant,
                session_id,
                question_ids=question_ids,
                sample=sample,
                seed=seed,
                api_keys=api_keys,
                label=f"side by side {label}",
            )
            shown["runs"] = dict(runs)


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
            runs[label or ui.variant_label(index)] = resolve_run_link(ws, run_id)
        except PlaygroundError as error:
            st.warning(ui.md_escape(f"Link: {error}"))
            return {}
    return runs


def settings_of_runs(configs: list[dict]) -> dict[str, object]:
    """The page's widget values that made these runs (variant columns in order, the question or the sample), so a
    comparison opened from its address shows its own settings rather than the page's defaults."""
    from playground.app.components.selectors import model_selector_values, retriever_selector_values
    from playground.app.views.side_by_side import stored_settings

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
    show_grid(ws, corpus, runs, questions)


def _cell_detail(ws, corpus, run_id: str, question, label: str) -> None:
    """One cell opened: the passages the variant retrieved, the prompt it rendered, and a link to its trace."""
    from playground.app.views.side_by_side import cell_detail

    detail = cell_detail(ws, corpus, run_id, question.id)
    passages_tab, prompt_tab = st.tabs([f"Passages ({label})", f"Rendered prompt ({label})"])
    with passages_tab:
        if not detail["retrievals"]:
            st.caption("This variant retrieves no passages.")
        for retrieval in detail["retrievals"]:
            ui.question_passages(ws, corpus, retrieval["passages"], question, query=retrieval["query"])
    with prompt_tab:
        for messages in detail["prompts"]:
            st.code(ui.messages_text(messages), language=None, wrap_lines=True)
    ui.page_link("traces", f"Open the trace of {label} on {question.id}", run=run_id, question=question.id)


def _follow_cell_click(event, shown: list[dict], labels: list[str]) -> None:
    """A cell clicked in the grid opens below: its question and its variant (a new click only, so the pickers
    stay free to change)."""
    cells = list(getattr(getattr(event, "selection", None), "cells", None) or [])
    if not cells or cells == st.session_state.get("_sbs_cell_clicked"):
        return
    st.session_state["_sbs_cell_clicked"] = cells
    row, column = cells[0]
    if 0 <= int(row) < len(shown):
        st.session_state["sbs_cell_question"] = shown[int(row)]["question_id"]
    label = str(column).split(" ", 1)[0]
    if label in labels:
        st.session_state["sbs_cell_variant"] = label


def _grid_metric(results: dict) -> tuple[str | None, float]:
    """The metric the grid scores by and the threshold at which a score counts as correct (the Runs page's)."""
    from playground.app.views import grid as view
    from playground.app.views.runs import default_threshold

    names = view.metric_names(results)
    if not names:
        return None, 1.0
    if st.session_state.get("sbs_grid_metric") not in names:
        st.session_state["sbs_grid_metric"] = view.main_metric(results)
    picks = st.columns([1, 2, 3])
    metric = picks[0].selectbox("Score by", names, key="sbs_grid_metric")
    threshold = picks[1].slider(
        "Correct at", 0.0, 1.0, default_threshold(metric), 0.05, key=f"sbs_grid_threshold_{metric}"
    )
    return metric, float(threshold)


def _grid_columns(labels: list[str]) -> dict:
    """The grid's columns: the question, the answers side by side and wide enough to read (wrapped, see
    GRID_ROW_HEIGHT), the numbers narrow after them."""
    answer_width = max(160, min(300, 600 // max(1, len(labels))))  # two variants' answers fit beside the question
    config = {
        "question_id": st.column_config.TextColumn("question_id", width="small"),
        "question": st.column_config.TextColumn("question", width=200),
    }
    for label in labels:
        config[f"{label} answer"] = st.column_config.TextColumn(f"{label} answer", width=answer_width)
        config[f"{label} score"] = st.column_config.NumberColumn(f"{label} score", format="%.2f", width="small")
        config[f"{label} ms"] = st.column_config.NumberColumn(f"{label} ms", width="small")
        config[f"{label} tokens"] = st.column_config.NumberColumn(f"{label} tokens", width="small")
        config[f"{label} cached"] = st.column_config.CheckboxColumn(
            f"{label} cached", help="answered from the cache", width="small"
        )
    return config


def show_grid(ws, corpus, runs: dict[str, str], questions: dict) -> None:
    """Variant means with intervals (retrieval recall included), then the question x variant grid and a cell."""
    from playground.app import charts
    from playground.app.views import grid as view
    from playground.evaluation.judges.judge_metrics import results_with_judge_scores
    from playground.store.runs import get_results

    # Judge metrics (Experiments page or `playground judge`) are scores like any other; a judge error is none.
    results = {label: results_with_judge_scores(ws, run_id, get_results(ws, run_id)) for label, run_id in runs.items()}
    means = view.variant_means(results, view.mean_metrics(results))
    st.subheader("Variant means (95% intervals)")
    if means:
        left, right = st.columns([3, 2])
        left.plotly_chart(charts.metric_means_figure(means), key="sbs_means")
        right.dataframe(view.means_table(means), hide_index=True, key="sbs_means_table")
    question_ids = list(dict.fromkeys(r["question_id"] for found in results.values() for r in found))
    metric, threshold = _grid_metric(results)
    rows = view.grid_rows(question_ids, questions, results, metric, threshold)
    st.subheader(f"Questions x variants ({len(rows)} question(s) · score = {metric or 'none'})")
    filters = st.columns([3, 3, 3, 2])
    disagree = filters[0].checkbox(
        "Only where they disagree",
        key="sbs_filter_disagree",
        help=f"One variant is correct by {metric or 'the metric'} (at least {threshold:g}) "
        "where another is not; an error is not correct",
    )
    differs = filters[1].checkbox(
        "Only where answers differ",
        key="sbs_filter_text",
        help="The answer text differs (compared lowercased, punctuation ignored), whatever the scores",
    )
    failing = filters[2].checkbox("Only where all variants fail", key="sbs_filter_fail")
    shown = view.filter_grid(rows, disagree, failing, differs)
    filters[3].caption(f"{len(shown)} of {len(rows)} question(s) · click a column header to sort")
    event = st.dataframe(
        shown,
        hide_index=True,
        key="sbs_grid",
        column_config=_grid_columns(list(runs)),
        on_select="rerun",
        selection_mode="single-cell",
        row_height=GRID_ROW_HEIGHT,
    )
    if not shown:
        return
    by_id = {row["question_id"]: row for row in shown}
    _follow_cell_click(event, shown, list(runs))
    st.markdown("**Open a cell** (click one in the grid, or pick it here)")
    picks = st.columns([3, 1])
    if st.session_state.get("sbs_cell_question") not in by_id:
        st.session_state["sbs_cell_question"] = shown[0]["question_id"]
    qid = picks[0].selectbox(
        "Question", list(by_id), key="sbs_cell_question", format_func=lambda q: f"{q}: {by_id[q]['question'][:120]}"
    )
    label = picks[1].radio("Variant", list(runs), key="sbs_cell_variant", horizontal=True)
    question = questions.get(qid)
    if question is None:
        return
    ui.show_text(question.text, strong=True, css_class="pg-question")
    row = by_id[qid]
    ui.show_text(
        row[f"{label} answer"] if row[f"{label} answer"] is not None else "(no answer)",
        label=f"Answer of {label}" + (" · cached" if row[f"{label} cached"] else ""),
        css_class="pg-answer",
    )
    _cell_detail(ws, corpus, runs[label], question, label)
    run_ids = list(runs.values())
    if len(run_ids) >= 2:
        st.markdown("Compare two variants with paired intervals and per-question flips:")
        for other_label, other in list(runs.items())[1:]:
            ui.page_link("ab", f"A/B: {next(iter(runs))} vs {other_label}", run=run_ids[0], other=other)
        from playground.app.views import comparison as compared

        compared.show_comparison(ws, run_ids, key="sbs_compare")
        compared.show_power(ws, run_ids[0], run_ids[1], key="sbs_power")


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

            st.session_state.update(settings_of_runs([get_run(ws, run_id)["config"] for run_id in found.values()]))
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


main()
