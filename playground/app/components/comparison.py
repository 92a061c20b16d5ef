"""Panels the A/B, Side by side and Retrievers pages share: playground.evaluation.compare's comparison of stored
runs (the same numbers `playground compare` prints), how many questions a difference needs, and saved retrieval
runs. Each page calls one function; the numbers all come from the engine."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

import streamlit as st

from playground.app.components.text import md_escape

SEED = 0
RESAMPLES = 2000


def _stamp(ws, run_ids: Sequence[str]) -> tuple:
    """What changes when a run gains results, judgments or ratings: their counts per run (keys the cache)."""
    from playground import PlaygroundError
    from playground.store.rating_samples import review_stamp
    from playground.store.runs import run_totals

    counts: list = []
    for run_id in run_ids:
        try:
            counts.append((run_totals(ws, run_id)["n"], *review_stamp(ws, run_id)))
        except PlaygroundError:
            counts.append(0)
    return tuple(counts)


@st.cache_data(show_spinner="Comparing the runs (paired bootstrap)...", max_entries=32)
def _cached_compare(_ws, path: str, run_ids: tuple, stamp: tuple, seed: int, n_resamples: int) -> dict:
    from playground.evaluation.compare import compare_runs

    return compare_runs(_ws, list(run_ids), seed=seed, n_resamples=n_resamples)


def compare(ws, run_ids: Sequence[str], seed: int = SEED, n_resamples: int = RESAMPLES) -> dict:
    """compare_runs, kept per set of runs and their result counts: a click elsewhere does not resample."""
    return _cached_compare(ws, str(ws.path), tuple(run_ids), _stamp(ws, run_ids), seed, n_resamples)


def interval_caption(report: Mapping) -> str:
    """The sentence under every table of intervals: method, level, resamples, seed, tests and any adjustment."""
    from playground.evaluation.compare import describe_interval

    text = (
        f"{report['n']} question(s) answered by all runs (repeats averaged per question) · "
        f"{describe_interval(report['interval'])} · exact McNemar for 0/1 metrics, a paired permutation test "
        "otherwise"
    )
    if report.get("p_adjustment") == "holm":
        text += f" · p-values Holm-adjusted over the {len(report['comparisons'])} comparisons with A"
    return text


def comparison_rows(report: Mapping) -> list[dict]:
    """One row per compared run and metric: means, difference, interval, test, p (Holm-adjusted when so), W/T/L."""
    adjusted = report.get("p_adjustment") == "holm"
    baseline = report["runs"][0]["label"]
    rows = []
    for comparison in report["comparisons"]:
        for metric, m in comparison["metrics"].items():
            ci = m.get("ci95")
            label = "" if adjusted else f" {comparison['label']}"
            row = {
                "metric": metric,
                "n": m["n"],
                f"mean {baseline}": None if m["mean_a"] is None else round(m["mean_a"], 4),
                f"mean{label}": None if m["mean_b"] is None else round(m["mean_b"], 4),
                f"{comparison['label']} - {baseline}" if not adjusted else "diff": None
                if m["diff"] is None
                else round(m["diff"], 4),
                "95% interval": f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if ci else "",
                "test": m.get("test") or "",
                "p": None if m.get("p_value") is None else round(m["p_value"], 4),
                f"{label.strip()} wins".strip(): m["wins"],
                "ties": m["ties"],
                f"{label.strip()} losses".strip(): m["losses"],
            }
            if "judge_errors_dropped" in m:
                row["judge errors dropped"] = m["judge_errors_dropped"]["n"]
            if adjusted:
                row = {
                    "run": comparison["label"],
                    **row,
                    "p (Holm)": None if m.get("p_holm") is None else round(m["p_holm"], 4),
                }
            rows.append(row)
    return rows


def relabelled(report: Mapping, names: Sequence[str]) -> dict:
    """The report with its runs called by `names` (a sweep's "k=3", "k=5") instead of A, B, C, in the same order."""
    letters = [run["label"] for run in report["runs"]]
    by_letter = dict(zip(letters, names))
    return {
        **report,
        "runs": [{**run, "label": by_letter.get(run["label"], run["label"])} for run in report["runs"]],
        "comparisons": [{**c, "label": by_letter.get(c["label"], c["label"])} for c in report["comparisons"]],
    }


def show_comparison(ws, run_ids: Sequence[str], key: str, names: Optional[Sequence[str]] = None) -> Optional[dict]:
    """The comparison table of two or more runs (the first is the baseline) with its interval caption; `names`
    call the runs by what they are (a sweep's values) instead of A, B, C."""
    from playground import PlaygroundError

    try:
        report = compare(ws, run_ids)
    except PlaygroundError as error:
        st.warning(str(error))
        return None
    if names:
        report = relabelled(report, names)
    for warning in report["warnings"]:
        st.caption(f"⚠ {warning}")
    if report["n"] == 0:
        return report
    st.dataframe(comparison_rows(report), hide_index=True, key=f"{key}_table")
    st.caption(interval_caption(report))
    return report


def power_rows(plans: Mapping[str, Mapping]) -> list[dict]:
    """The power table: per metric, the questions needed and the smallest difference detectable now, in words
    where a number would mislead (none detectable in the metric's range, a sample beyond any practical size)."""
    from playground.evaluation.power import detectable_text, plan_needed_text

    return [
        {
            "metric": metric,
            "method": plan["method"],
            "n": plan["n"],
            "target": round(plan["target_diff"], 4),
            "questions needed": plan_needed_text(plan),
            "detectable now": detectable_text(plan),
        }
        for metric, plan in plans.items()
    ]


def small_sample_warning(plans: Mapping[str, Mapping]) -> Optional[str]:
    """One line naming every metric the sample is too small for (not the first few), with each one's verdict."""
    small = [
        f"{metric} ({plan['verdict']})"
        for metric, plan in plans.items()
        if plan.get("not_estimated") or plan["verdict"].startswith("too small")
    ]
    if not small:
        return None
    return f"Too small a sample for {len(small)} of {len(plans)} metric(s): " + "; ".join(small)


def show_power(ws, run_a: str, run_b: str, key: str, metrics: Optional[Sequence[str]] = None, n_runs: int = 2) -> None:
    """How many questions? From the two runs (A and B) as pilots: per metric, the questions needed to detect a
    difference at 80% power and the smallest difference this sample detects; says plainly when it is too small to
    conclude, and, among `n_runs` > 2 variants, that it covers A vs B only."""
    from playground.evaluation.compare import question_scores
    from playground.evaluation.power import plan_from_scores
    from playground.evaluation.stored_runs import load_runs

    runs = load_runs(ws, [run_a, run_b])
    scores = [question_scores(run["results"])[0] for run in runs]
    with st.expander("How many questions? (power, A vs B)", expanded=True):
        if n_runs > 2:
            st.caption(
                f"Computed from A and B only, of the {n_runs} variants: for another pair, open the two runs on the "
                "A/B page."
            )
        wanted = st.number_input(
            "Difference to detect (0 = the observed one)", 0.0, 1.0, 0.0, 0.01, key=f"{key}_difference", format="%.2f"
        )
        plans = plan_from_scores(scores[0], scores[1], metrics, difference=wanted or None)
        if not plans:
            st.caption("No metric scored in both runs.")
            return
        st.dataframe(power_rows(plans), hide_index=True, key=f"{key}_table")
        small = small_sample_warning(plans)
        if small:
            st.warning(md_escape(small), icon=":material/warning:")
        else:
            st.caption("The sample is large enough for the differences shown.")
        st.caption(
            "80% power, two-sided alpha 0.05: McNemar sample size by Connor (1987) for 0/1 metrics, the "
            "paired t-test's with Guenther's (1981) correction otherwise; `playground power` prints the same."
        )


def show_retrieval_runs(ws, benchmark: str, key: str = "retrieval_runs") -> None:
    """Saved retrieval runs of this benchmark (`playground eval-retrieval`), and two of them compared with
    intervals, a permutation/McNemar test and the questions one finds the gold for and the other misses."""
    from playground.store.retrieval_runs import list_retrieval_runs

    st.subheader("Saved retrieval runs")
    runs = list_retrieval_runs(ws, benchmark)
    if not runs:
        st.caption(
            f"No saved retrieval run of {benchmark!r}: `playground eval-retrieval --dataset {benchmark} "
            "--retriever bm25 -k 5` stores one."
        )
        return
    labels = {
        run["id"]: f"{run['id']} · {run['config'].get('retriever')} k={run['config'].get('k')} · "
        f"n={run['metrics'].get('n')} · {run['created_at'][:16]}"
        for run in runs
    }
    st.dataframe(
        [
            {
                "run": run["id"],
                "retriever": run["config"].get("retriever"),
                "k": run["config"].get("k"),
                "n": run["metrics"].get("n"),
                "recall@k": round(run["metrics"].get("recall@k", 0.0), 3),
                "mrr@k": round(run["metrics"].get("mrr@k", 0.0), 3),
                "ndcg@k": round(run["metrics"].get("ndcg@k", 0.0), 3),
                "p50 ms": round(run["metrics"].get("p50_ms", 0.0), 2),
                "created": run["created_at"][:19],
            }
            for run in runs
        ],
        hide_index=True,
        key=f"{key}_list",
    )
    if len(runs) < 2:
        st.caption("Store a second retrieval run to compare two.")
        return
    ids = list(labels)
    columns = st.columns(2)
    run_a = columns[0].selectbox("Retrieval run A", ids, index=1, key=f"{key}_a", format_func=labels.get)
    run_b = columns[1].selectbox("Retrieval run B", ids, index=0, key=f"{key}_b", format_func=labels.get)
    if run_a == run_b:
        st.info("Pick two different retrieval runs.")
        return
    report = show_comparison(ws, [run_a, run_b], key=f"{key}_compare")
    if not report or report["n"] == 0:
        return
    for metric, row in report["metrics"].items():
        if metric.startswith("hit@"):
            st.markdown(
                f"**Gold found by B only** ({len(row['flipped']['improved'])}): "
                f"{', '.join(row['flipped']['improved']) or '—'}  \n"
                f"**Gold found by A only** ({len(row['flipped']['regressed'])}): "
                f"{', '.join(row['flipped']['regressed']) or '—'}"
            )
