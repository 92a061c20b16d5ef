"""Retrievers: one query against two to four retrievers side by side (gold passages marked, passages found by
several retrievers share a colour), and over a seeded sample each retriever evaluated as `playground eval-retrieval`
evaluates it (recall, MRR and nDCG at k with intervals, stored as retrieval runs), recall@k for k = 1..20 and
search latency."""

from __future__ import annotations

import streamlit as st

from playground.app import charts, resources, state
from playground.app import components as ui
from playground.app.components import comparison as comparison_views
import playground.app.screens.retrievers.data as view

TYPED = "(type a query)"
DEFAULT_KINDS = ["bm25", "dense"]
GOLD_SCORED_BY = {"spans": "their gold spans", "passages": "their gold passages", "mixed": "gold spans or passages"}


def _retrievers(ws, corpus: str, kinds: list[str]) -> dict:
    """Open each retriever once per process (an index build shows its progress the first time)."""
    return {kind: resources.retriever(ws, corpus, kind) for kind in kinds}


def _columns_of_cards(
    ws, corpus: str, ranked: dict[str, list], query: str, question, timings: dict[str, float] | None = None
) -> None:
    """One column per retriever: its ranked passages as cards; passages found by several share a badge colour. Gold
    is marked and counted as `eval-retrieval` scores it (on a documents corpus, overlapping a gold span)."""
    from playground.evaluation.retrieval import question_gold_ranks
    from playground.evaluation.span_gold import gold_among, scoring_spans
    from playground.retrieval.term_locations import corpus_term_locator
    from playground.store.datasets import get_passages

    colours = view.shared_passage_colours({label: [h.passage_id for h in hits] for label, hits in ranked.items()})
    by_id: dict[str, list[str]] = {}
    for label, hits in ranked.items():
        for hit in hits:
            by_id.setdefault(hit.passage_id, []).append(label)
    passages = get_passages(ws, corpus, sorted(by_id))
    gold = gold_among(ws, corpus, question, sorted(by_id))
    ranks = {
        label: question_gold_ranks(ws, corpus, question, [h.passage_id for h in hits]) if question is not None else {}
        for label, hits in ranked.items()
    }
    wanted = len(next(iter(ranks.values()), {}))
    what = "gold span(s)" if question is not None and scoring_spans(ws, corpus, question) else "gold passage(s)"
    st.caption(
        f"{len(colours)} passage(s) found by more than one retriever share a colour"
        + (f" · ★ marks gold: the question has {wanted} {what}" if wanted else "")
    )
    locate = corpus_term_locator(ws, corpus, query)  # Chinese words, not whole sentences; stemmed forms
    for column, (label, hits) in zip(st.columns(len(ranked)), ranked.items()):
        rows = view.hit_rows(hits, passages, gold, colours, by_id)
        with column:
            st.subheader(label)
            if timings and label in timings:
                st.caption(f"{timings[label]:.1f} ms")
            found = sum(1 for rank in ranks[label].values() if rank is not None)
            notes = {
                row["id"]: f"also found by {', '.join(x for x in row['found_by'] if x != label)}"
                for row in rows
                if len(row["found_by"]) > 1
            }
            counted = f"{found} of {wanted} {what} retrieved (★ = gold)" if wanted else None
            ui.passage_cards(rows, gold, query=query, colours=colours, notes=notes, gold_caption=counted, locate=locate)


def _query_inputs(questions: list) -> tuple[str, object]:
    """The query text and its question (None for a typed query)."""
    by_id = {q.id: q for q in questions}
    options = [TYPED] + list(by_id)
    if st.session_state.get("retrievers_question") not in options:
        st.session_state["retrievers_question"] = options[1] if len(options) > 1 else TYPED
    chosen = st.selectbox(
        "Question",
        options,
        key="retrievers_question",
        format_func=lambda qid: qid if qid == TYPED else f"{qid}: {by_id[qid].text}",
    )
    if chosen == TYPED:
        return st.text_input("Query", "", key="retrievers_query"), None
    return by_id[chosen].text, by_id[chosen]


def _side_by_side(ws, corpus: str, kinds: list[str], query: str, k: int, question) -> None:
    request = (corpus, tuple(kinds), query, k)
    if st.button("Search", key="retrievers_search", type="primary", disabled=not query.strip()):
        with ui.errors_as_messages("Search"):
            searches = view.search_all(_retrievers(ws, corpus, kinds), query, k)
            st.session_state["retrievers_searches"] = (request, searches)
    held = st.session_state.get("retrievers_searches")
    if not held or held[0] != request:
        st.caption("Press Search to compare the retrievers on this query.")
        return
    searches = held[1]
    _columns_of_cards(
        ws,
        corpus,
        {label: found["hits"] for label, found in searches.items()},
        query,
        question,
        {label: found["ms"] for label, found in searches.items()},
    )


def _evaluate(
    ws, benchmark: str, corpus: str, kinds: list[str], k: int, size: int, seed: int, questions_by_id: dict
) -> dict:
    """Each retriever evaluated and stored as `playground eval-retrieval` does it, then the stored sample searched
    once more at depth MAX_K for the recall curves and gold ranks (a stored run ranks only its top k)."""
    from playground.store.retrieval_runs import get_retrieval_run

    bar = st.progress(0.0, text="Evaluating")
    run_ids = view.evaluate_sample(
        ws,
        benchmark,
        kinds,
        k,
        size,
        seed,
        state.current_session_id(),
        on_progress=lambda share, text: bar.progress(share / 2, text=f"Evaluating {text}"),
    )
    sampled = get_retrieval_run(ws, next(iter(run_ids.values())))["config"]["question_ids"]
    chosen = [questions_by_id[qid] for qid in sampled]

    def on_curves(done: int, total: int, message: str = "") -> None:
        bar.progress(
            0.5 + (done / total if total else 0.0) / 2, text=f"Recall@1..{view.MAX_K}: {done}/{total} {message}"
        )

    curves = view.recall_curves(ws, corpus, _retrievers(ws, corpus, kinds), chosen, view.MAX_K, on_progress=on_curves)
    bar.empty()
    return {"runs": run_ids, "curves": curves}


def _sample_evaluation(ws, benchmark: str, corpus: str, kinds: list[str], k: int, questions: list) -> None:
    from playground.evaluation.span_gold import SpanGold

    st.subheader("Over a sample")
    has_gold = SpanGold(ws, corpus).has_gold  # the questions `eval-retrieval` samples from
    with_gold = [q for q in questions if has_gold(q)]
    if not with_gold:
        st.info(ui.md_escape(f"Benchmark {benchmark!r} has no gold passages: recall cannot be measured."))
        return
    columns = st.columns(3)
    size = columns[0].number_input("Sample size", 1, len(with_gold), min(50, len(with_gold)), key="retrievers_sample")
    seed = columns[1].number_input("Seed", 0, 2**31 - 1, 0, key="retrievers_seed")
    request = (benchmark, corpus, tuple(kinds), k, int(size), int(seed))
    columns[2].write("")
    questions_by_id = {q.id: q for q in with_gold}
    if columns[2].button("Evaluate", key="retrievers_evaluate"):
        with ui.errors_as_messages("Evaluation"):
            evaluation = _evaluate(ws, benchmark, corpus, kinds, k, int(size), int(seed), questions_by_id)
            st.session_state["retrievers_evaluation"] = (request, evaluation)
    held = st.session_state.get("retrievers_evaluation")
    runs = view.stored_runs(ws, held[1]["runs"]) if held and held[0] == request else None
    if not runs:
        st.caption(
            f"Evaluate recall, MRR and nDCG at k={k} of each retriever on {int(size)} sampled question(s), "
            "as `playground eval-retrieval` does: each retriever's evaluation is stored as a retrieval run in "
            f"the current session; recall@1..{view.MAX_K} is drawn as a curve."
        )
        return
    curves = held[1]["curves"]
    _stored_evaluation(ws, runs)
    left, right = st.columns(2)
    left.plotly_chart(charts.recall_at_k_figure(curves["recall"], curves["ks"]), key="retrievers_recall")
    right.plotly_chart(charts.latency_figure(view.run_latencies(runs)), key="retrievers_latency")
    if curves.get("ranked"):
        _per_question(ws, corpus, curves, questions_by_id=questions_by_id)


def _stored_evaluation(ws, runs: dict) -> None:
    """The stored runs' metrics with intervals, as `playground eval-retrieval` prints them, and its command lines."""
    import pandas as pd

    from playground import PlaygroundError
    from playground.store.sessions import get_session

    first = next(iter(runs.values()))
    try:
        session = get_session(ws, first["session_id"])["name"]
    except PlaygroundError:  # stored without a session, or its session is gone
        session = str(first.get("session_id") or "none")
    spec = first["metrics"].get("interval") or {}
    gold = GOLD_SCORED_BY.get(first["config"].get("gold"), GOLD_SCORED_BY["passages"])
    st.caption(
        f"{first['metrics'].get('n')} question(s) scored by {gold} at k={first['config']['k']}, stored as "
        f"retrieval runs in session {ui.md_escape(session)} (listed under Saved retrieval runs; "
        "`playground compare RUN_A RUN_B` pairs two)"
    )
    st.table(pd.DataFrame(view.run_rows(runs)).set_index("retriever"))
    st.caption(
        f"{spec.get('level', 0.95):.0%} intervals: {spec.get('method', 'percentile bootstrap')}, "
        f"{spec.get('resamples', 2000)} resamples, seed {spec.get('seed', 0)}. The same numbers from the CLI:"
    )
    st.code(view.eval_commands(runs), language="bash")


def _per_question(ws, corpus: str, curves: dict, questions_by_id: dict) -> None:
    """Each question's gold rank per retriever, how much the top-k lists overlap, and one question opened."""
    from playground.retrieval.base import Hit

    labels = list(curves["ranked"])
    rows = view.gold_rank_rows(curves)
    left, right = st.columns([3, 2])
    left.plotly_chart(charts.gold_rank_figure(rows, labels, view.MAX_K), key="retrievers_gold_rank")
    k = right.number_input("Overlap at k", 1, view.MAX_K, 5, key="retrievers_overlap_k")
    right.plotly_chart(charts.overlap_figure(view.overlap_at_k(curves, int(k))), key="retrievers_overlap")
    ids = [row["question_id"] for row in rows]
    if st.session_state.get("retrievers_open") not in ids:
        st.session_state["retrievers_open"] = ids[0]
    opened = st.selectbox(
        "Open a question: its ranked lists side by side",
        ids,
        key="retrievers_open",
        format_func=lambda qid: f"{qid}: {getattr(questions_by_id.get(qid), 'text', '')[:120]}",
    )
    question = questions_by_id.get(opened)
    if question is None:
        return
    ui.show_text(question.text, strong=True, css_class="pg-question")
    scores = curves.get("scores") or {}
    ranked = {
        label: [
            Hit(passage_id=pid, score=score, rank=rank)
            for rank, (pid, score) in enumerate(
                zip(curves["ranked"][label].get(opened, []), scores.get(label, {}).get(opened, [])), start=1
            )
        ][: int(k)]
        for label in labels
    }
    _columns_of_cards(ws, corpus, ranked, question.text, question)


def render() -> None:
    from playground.retrieval.registry import retriever_kinds
    from playground.store.datasets import corpus_of, load_questions

    st.title("Retrievers")
    ws = state.workspace()
    benchmark = state.require_benchmark()
    corpus = corpus_of(ws, benchmark)
    if not corpus:
        st.info(ui.md_escape(f"Benchmark {benchmark!r} has no corpus of passages to retrieve from."))
        return
    questions = load_questions(ws, benchmark)
    kinds_known = retriever_kinds()
    if "retrievers_kinds" not in st.session_state:
        st.session_state["retrievers_kinds"] = [kind for kind in DEFAULT_KINDS if kind in kinds_known]
    columns = st.columns([4, 1])
    kinds = columns[0].multiselect("Retrievers (2 to 4)", kinds_known, key="retrievers_kinds", max_selections=4)
    k = columns[1].number_input("k", 1, view.MAX_K, 5, key="retrievers_k")
    if len(kinds) < 2:
        st.info("Pick at least two retrievers to compare.")
        return
    st.caption(ui.md_escape(f"Corpus {corpus} · benchmark {benchmark} · default index parameters"))
    query, question = _query_inputs(questions)
    _side_by_side(ws, corpus, kinds, query, int(k), question)
    _sample_evaluation(ws, benchmark, corpus, kinds, int(k), questions)
    from playground.app.screens.retrievers.stage_panel import stage_panel

    stage_panel(ws, benchmark, kinds, int(k), state.current_session_id())
    comparison_views.show_retrieval_runs(ws, benchmark)


if __name__ == "__main__":  # run by Streamlit as the page's script; imported, it draws nothing
    with ui.errors_as_messages("Retrievers"):
        render()
