"""Side by side: two to four variants (template version, retriever, k, model, parameters) on the same question or
the same seeded sample; outputs next to each other with scores, differing settings and prompt texts highlighted."""

from __future__ import annotations

import html

import streamlit as st

from playground.app import components as ui
from playground.app import state

COUNT_KEY, MODE_KEY, QUESTION_KEY = "sbs_count", "sbs_mode", "sbs_question"
SAMPLE_KEY, SEED_KEY, RESULTS_KEY = "sbs_sample", "sbs_seed", "_sbs_results"
ONE_QUESTION, SAMPLE = "One question", "Seeded sample"
DEFAULT_TEMPLATES = ["rag-short-answer", "direct-short-answer", "rag-citations", "rag-cot"]
DEFAULT_RETRIEVERS = ["bm25", None, "bm25", "bm25"]


def template_options(ws) -> dict[str, object]:
    """Starter templates by name, then every saved version as NAME@ID (newest first)."""
    from playground.prompts.library import list_templates
    from playground.prompts.template import Template
    from playground.store.prompts import list_prompt_versions

    options = {t.name: t for t in list_templates()}
    for row in list_prompt_versions(ws):
        key = f"{row['template']}@{row['id']}"
        options[key] = (row["content"], row["template"])
    return {key: value if not isinstance(value, tuple) else Template.from_text(value[0], name=value[1])
            for key, value in options.items()}


def variant_column(index: int, column, templates: dict, corpus) -> ui.Variant | None:
    """One variant's settings in its column; None when its model spec is invalid."""
    label = ui.variant_label(index)
    with column:
        st.subheader(f"Variant {label}")
        names = list(templates)
        template_key = f"sbs_{index}_template"
        if st.session_state.get(template_key) not in templates:
            default = DEFAULT_TEMPLATES[index % len(DEFAULT_TEMPLATES)]
            st.session_state[template_key] = default if default in templates else names[0]
        name = st.selectbox("Template (starter or saved version)", names, key=template_key)
        default_kind = DEFAULT_RETRIEVERS[index % len(DEFAULT_RETRIEVERS)] if corpus else None
        retriever = ui.retriever_selector(f"sbs_{index}_retriever", default_kind=default_kind, default_k=3)
        model = ui.model_selector(f"sbs_{index}_model", compact=True)
    if model is None:
        return None
    return ui.Variant(template=templates[name], retriever=retriever, model=model)


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
    st.html("<table class='pg-settings' style='border-collapse:collapse;font-size:0.9rem'>"
            f"<tr><th>setting</th>{header}</tr>{''.join(rows)}</table>"
            "<style>.pg-settings td,.pg-settings th{padding:2px 10px;border-bottom:1px solid #eee;text-align:left}</style>")
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


def run_all(ws, benchmark, variants, mode, question, sample, seed) -> list:
    """Each variant as a stored run over the same question (or the same seeded sample)."""
    session_id = state.current_session_id()
    results = []
    bar = st.progress(0.0, text="Running the variants")
    for index, variant in enumerate(variants):
        label = f"side by side {ui.variant_label(index)}"

        def on_progress(done: int, total: int, message: str = "", index=index) -> None:
            part = (done / total) if total else 0.0
            bar.progress(min(1.0, (index + part) / len(variants)),
                         text=f"Variant {ui.variant_label(index)}: {done}/{total}")

        result = None
        with ui.errors_as_messages(f"Variant {ui.variant_label(index)}"):
            if mode == ONE_QUESTION:
                result = ui.run_variant(ws, benchmark, variant, session_id, question_ids=[question.id],
                                        api_keys=state.api_keys(), on_progress=on_progress, label=label)
            else:
                result = ui.run_variant(ws, benchmark, variant, session_id, sample=sample, seed=seed,
                                        api_keys=state.api_keys(), on_progress=on_progress, label=label)
        results.append(result)
    bar.empty()
    return results


def show_results(results: list, mode: str) -> None:
    columns = st.columns(len(results))
    for index, (column, result) in enumerate(zip(columns, results)):
        with column:
            st.markdown(f"**Variant {ui.variant_label(index)}**")
            if result is None:
                st.caption("No result (see the error above).")
                continue
            if mode == ONE_QUESTION:
                if result.error:
                    st.error(f"The model call failed: {result.error}")
                else:
                    st.success(result.answer or "(empty answer)")
                ui.show_scores(result.scores, limit=3)
                st.caption(f"{result.prompt_tokens}+{result.completion_tokens} tokens · {result.latency_s:.2f} s")
                ui.page_link("traces", "Trace", run=result.run_id, question=result.question_id)
            else:
                st.caption(f"{result.n} questions · run `{result.run_id}`")
                ui.show_scores(result.metrics, limit=3)
                ui.page_link("runs", "Open the run", run=result.run_id)
    run_ids = [r.run_id for r in results if r is not None and r.run_id]
    if mode == SAMPLE and len(run_ids) >= 2:
        st.markdown("Compare with intervals and per-question flips:")
        for other in run_ids[1:]:
            ui.page_link("ab", f"A/B: {run_ids[0][:8]} vs {other[:8]}", run=run_ids[0], other=other)
        from playground.app.views import comparison as compared

        compared.show_comparison(state.workspace(), run_ids, key="sbs_compare")
        compared.show_power(state.workspace(), run_ids[0], run_ids[1], key="sbs_power")


def main() -> None:
    from playground.store.datasets import corpus_of, load_questions

    st.title("Side by side")
    ws = state.workspace()
    benchmark = state.require_benchmark()
    questions = load_questions(ws, benchmark)
    corpus = corpus_of(ws, benchmark)
    if not questions:
        st.info(f"Benchmark {benchmark} has no questions.")
        st.stop()
    link_count = state.link_param("variants")
    if link_count and link_count.isdigit():
        st.session_state[COUNT_KEY] = min(4, max(2, int(link_count)))
    link_question = state.link_param("q")
    if link_question:
        st.session_state[QUESTION_KEY] = link_question

    top = st.columns([1, 2, 3])
    count = top[0].number_input("Variants", 2, 4, 2, 1, key=COUNT_KEY)
    mode = top[1].radio("Run on", [ONE_QUESTION, SAMPLE], horizontal=True, key=MODE_KEY)
    by_id = {q.id: q for q in questions}
    if st.session_state.get(QUESTION_KEY) not in by_id:
        st.session_state[QUESTION_KEY] = questions[0].id
    with top[2]:
        question = by_id[st.selectbox("Question (also used for the prompt diff)", list(by_id), key=QUESTION_KEY,
                                      format_func=lambda qid: f"{qid}: {by_id[qid].text}")]
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
        results = run_all(ws, benchmark, variants, mode, question, int(sample or 0), int(seed))
        st.session_state[RESULTS_KEY] = (mode, results)
    stored = st.session_state.get(RESULTS_KEY)
    if stored is not None:
        stored_mode, results = stored
        show_results(results, stored_mode)
    link = state.share_link("side-by-side", q=question.id, variants=int(count))
    st.caption(f"Share this view: [{link}]({link})")


main()
