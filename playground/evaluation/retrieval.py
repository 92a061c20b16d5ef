"""Retrieval quality and latency on a benchmark: recall@k, MRR@k, nDCG@k on its gold passages (or spans),
answer_recall@k on its reference answers (gold or none), and p50/p95 per query."""

from __future__ import annotations

import functools
import math
import time
from typing import Mapping, Optional

import numpy as np

from playground import PlaygroundError
from playground.progress import ProgressCallback, report

GOLD_METRICS = ("recall", "mrr", "ndcg")  # scored against the gold passages, or the gold spans
ANSWER_METRICS = ("answer_recall",)  # scored against the reference answers, with or without gold
RETRIEVAL_METRICS = tuple(f"{name}@k" for name in GOLD_METRICS + ANSWER_METRICS)  # every stored run-level name


def ranking_metrics(ranked_ids: list[str], gold_ids: list[str], k: int) -> dict[str, float]:
    """Binary-relevance metrics of one ranking: recall@k is the share of the gold passages found in the top k.

    No gold passages -> {} (nothing to measure), as for reference-free answer metrics.
    """
    gold = set(gold_ids)
    names = (f"recall@{k}", f"mrr@{k}", f"ndcg@{k}")
    if not gold:
        return {}
    top = list(dict.fromkeys(ranked_ids))[:k]
    found = [rank for rank, pid in enumerate(top, 1) if pid in gold]
    recall = len(found) / len(gold)
    mrr = 1.0 / found[0] if found else 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank in found)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold), k) + 1))
    return dict(zip(names, (recall, mrr, dcg / ideal if ideal else 0.0)))


def found_gold(ranked_ids: list[str], gold_ids: list[str], k: int) -> float:
    """1.0 when any gold passage is in the top k (the 0/1 metric whose flips say which questions one retriever
    finds and the other misses), else 0.0."""
    gold = set(gold_ids)
    return float(any(pid in gold for pid in list(dict.fromkeys(ranked_ids))[:k]))


def question_metrics(ranked_ids: list[str], gold_ids: list[str], k: int) -> dict[str, float]:
    """One question's stored scores under the run-level names (recall@k, mrr@k, ndcg@k, hit@k; k is in the
    config), so retrieval runs at different k still pair metric by metric."""
    scores = ranking_metrics(ranked_ids, gold_ids, k)
    named = {name.replace(f"@{k}", "@k"): value for name, value in scores.items()}
    return {**named, "hit@k": found_gold(ranked_ids, gold_ids, k)}


def answer_found(texts: list[str], answers: list[str], rule, tokens=None) -> float:
    """1.0 when some passage text holds some answer as a run of the answer rule's tokens (DPR's top-k accuracy,
    normalised as the benchmark's answers are: playground.evaluation.answer_rules), else 0.0: the rule's
    cover_exact_match on each text. `tokens` reads a text as the rule does; an evaluation passes one that keeps
    what it read, since the same passages come back for many questions."""
    return float(any(rule.cover_exact_match(text, answers, tokens) for text in texts))


def scorable_answers(question, rule) -> list[str]:
    """The reference answers a passage can hold: none for a multiple-choice question (its answers are labels), and
    none that the rule normalises away entirely ("the", "，")."""
    if question.choices:
        return []
    return [answer for answer in question.answers or [] if rule.tokens(answer)]


def benchmark_answer_rule(workspace, dataset: str):
    """The rule the benchmark's answers are read by, as its runs score them (its language, else its corpus's)."""
    from playground.evaluation.answer_rules import rule_for_benchmark
    from playground.store.dataset_language import dataset_language

    row = next(workspace.db.query("SELECT format FROM benchmarks WHERE name = ?", [dataset]), None)
    return rule_for_benchmark(dataset_language(workspace, dataset), row["format"] if row else None)


def _names_gold(question) -> bool:
    """Whether the question names gold of its own (passage ids or spans), usable on this corpus or not."""
    return bool(question.gold_passage_ids or (question.metadata or {}).get("gold_spans"))


def gold_ranks(ranked_ids: list[str], gold_ids: list[str]) -> dict[str, Optional[int]]:
    """Each gold passage's 1-based rank in the ranking, None when it was not retrieved."""
    ranks = {pid: rank for rank, pid in reversed(list(enumerate(dict.fromkeys(ranked_ids), 1)))}
    return {gold: ranks.get(gold) for gold in gold_ids}


def question_gold_ranks(workspace, corpus: Optional[str], question, ranked_ids: list[str]) -> dict[str, Optional[int]]:
    """Each of the question's gold -> its first rank in the ranking, as evaluate_retriever stores it: its gold spans
    on a documents corpus (the first passage overlapping each), else its gold passage ids. span_ranking_metrics
    scores either at any k as evaluation does, so pages ranking to another depth count the same gold."""
    from playground.evaluation.span_gold import span_ranks

    by_spans = span_ranks(workspace, corpus, question, ranked_ids)
    return by_spans if by_spans is not None else gold_ranks(ranked_ids, question.gold_passage_ids)


def metric_cell(result: Mapping, name: str) -> str:
    """A mean with its 95% interval as `eval-retrieval` prints it, "0.833 [0.500, 1.000]" (no interval under two
    questions); the CLI and the Retrievers page both print with it, so their numbers read the same."""
    value = result.get(f"{name}@k")
    if value is None:  # not measured: answer_recall on questions without answers, recall without gold
        return "n/a"
    interval = (result.get("intervals") or {}).get(f"{name}@k")
    return f"{value:.3f}" + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")


def evaluate_retriever(
    workspace,
    dataset: str,
    kind: str,
    k: int,
    sample: Optional[int],
    seed: int,
    params: Optional[dict] = None,
    on_progress: Optional[ProgressCallback] = None,
    store: bool = False,
    session_id: Optional[str] = None,
    corpus: Optional[str] = None,
    label: Optional[str] = None,
    sweep: Optional[dict] = None,
    spans_only: bool = False,
    stages=None,
) -> dict:
    """Search every sampled question of benchmark `dataset` that has gold; mean metrics and latency.

    A question with gold spans (playground.evaluation.spans) is scored by span overlap when the searched corpus is
    a documents corpus, any other by its gold passage ids, as before. `corpus` searches another chunking of the
    benchmark's documents instead of its own corpus (refused unless both chunk the same document set); only
    questions with gold spans are scored there, since passage ids mean nothing across chunkings, and with
    `spans_only` on the own corpus too (a chunking sweep scores the same questions at every point).
    Questions without gold are left out before sampling, so `sample` counts evaluated questions.
    Latency is one `search(question, k)` call, after the index is opened (built if needed). With `store`, the
    run is saved as a retrieval run (each question's ranked ids, scores, gold ranks, latency; the config with the
    index manifest and embedder) and its id returned as "run_id", so it can be compared later; `label` and `sweep`
    (a chunking sweep's id, parameter and value, runs/chunk_sweeps.py) are stored with it.
    `stages` (playground.retrieval.stages.StageSettings) puts query rewriting before the retriever and a reranker
    after it: each metric is then also reported after each stage ("stages"), with each question's gold moves and
    stage costs ("per_question", evaluation/stage_scores.py), and latency is the whole chain's.
    """
    from playground.data.sampling import sample_questions
    from playground.evaluation.span_gold import SpanGold, checked_corpus, chunking
    from playground.retrieval.index import open_retriever
    from playground.store.datasets import corpus_of, get_passages, load_questions

    from playground.bounds import SAMPLE, SEARCH_K, SEED, optional_count

    k = SEARCH_K.count(k)
    sample, seed = optional_count(SAMPLE, sample), SEED.count(seed)  # before the index is built or a run stored
    own_corpus = corpus_of(workspace, dataset)
    if not own_corpus and not corpus:
        raise PlaygroundError(
            f"benchmark {dataset!r} has no corpus to retrieve from (name one with --corpus: its answers are then "
            "looked for in the passages retrieved)"
        )
    searched = checked_corpus(workspace, dataset, own_corpus, corpus) if own_corpus else str(corpus)
    gold = SpanGold(workspace, searched, by_spans_only=spans_only or searched != own_corpus)
    rule = benchmark_answer_rule(workspace, dataset)
    every = load_questions(workspace, dataset)
    questions = [q for q in every if gold.has_gold(q)]
    if not questions and (not own_corpus or not spans_only and not any(_names_gold(q) for q in every)):
        questions = [q for q in every if scorable_answers(q, rule)]  # no gold: scored by the answers retrieved
    if not questions:
        raise PlaygroundError(gold.nothing_to_score(dataset) + ", nor answers to look for in the passages")
    chosen = sample_questions(questions, sample, seed)
    from playground.evaluation.stage_scores import question_stages, stage_summary
    from playground.retrieval.stages import staged

    retriever = staged(
        open_retriever(workspace, searched, kind, params, on_progress=on_progress), stages, workspace, searched
    )
    staged_search = getattr(retriever, "search_stages", None)
    passage_tokens = functools.lru_cache(maxsize=4096)(rule.tokens)  # a passage is read once per evaluation

    def scored(
        question, ranked: list[str], carried: Optional[dict[str, str]] = None
    ) -> tuple[list[str], dict[str, Optional[int]], dict[str, float]]:
        """Gold ranks and metrics of one ranking; `carried`: the text of hits that brought their own passage."""
        gold_ids: list[str] = []
        ranks: dict[str, Optional[int]] = {}
        metrics: dict[str, float] = {}
        if gold.has_gold(question):
            by_spans = gold.score(question, ranked, k)
            gold_ids, ranks, metrics = by_spans or (
                list(question.gold_passage_ids),
                gold_ranks(ranked, question.gold_passage_ids),
                question_metrics(ranked, question.gold_passage_ids, k),
            )
        answers = scorable_answers(question, rule)
        if answers:
            found = get_passages(workspace, searched, ranked[:k])
            texts = [_text_read(pid, carried or {}, found) for pid in ranked[:k]]
            metrics = {**metrics, "answer_recall@k": answer_found(texts, answers, rule, passage_tokens)}
        return gold_ids, ranks, metrics

    rows, per_question = [], []
    for position, question in enumerate(chosen):
        started = time.perf_counter()
        found = staged_search(question.text, k) if staged_search else None
        hits = found.hits if found else retriever.search(question.text, k)
        latency_ms = (time.perf_counter() - started) * 1000.0
        ranked = [hit.passage_id for hit in hits]
        gold_ids, ranks, metrics = scored(question, ranked, {h.passage_id: h.text for h in hits if h.text is not None})
        if found:
            per_question.append(question_stages(question.id, found.stages, functools.partial(scored, question)))
        rows.append(
            {
                "question_id": question.id,
                "position": position,
                "ranked_ids": ranked,
                "scores": [float(hit.score) for hit in hits],
                "gold_ids": gold_ids,
                "gold_ranks": ranks,
                "latency_ms": latency_ms,
                "metrics": metrics,
            }
        )
        report(on_progress, position + 1, len(chosen), "evaluating")
    n = len(rows)
    latencies = [row["latency_ms"] for row in rows]

    from playground.evaluation.stats import bootstrap_interval

    def values(name: str) -> list[float]:
        return [row["metrics"][name] for row in rows if name in row["metrics"]]

    present = [name for name in RETRIEVAL_METRICS if values(name)]
    result = {
        **{name: sum(values(name)) / len(values(name)) for name in present},
        "p50_ms": float(np.percentile(latencies, 50)) if latencies else 0.0,
        "p95_ms": float(np.percentile(latencies, 95)) if latencies else 0.0,
        "n": n,
        "n_answers": len(values("answer_recall@k")),
        "intervals": {name: bootstrap_interval(values(name), seed=0) for name in present},
        "interval": {
            "method": "percentile bootstrap of the mean over questions",
            "level": 0.95,
            "resamples": 2000,
            "seed": 0,
        },
    }
    if per_question:
        result["stages"] = stage_summary(per_question)
        result["per_question"] = per_question
    if store:
        from playground.store.retrieval_runs import create_retrieval_run

        manifest = dict(getattr(retriever, "manifest", None) or {})
        resolved = manifest.get("params") or dict(params or {})
        config = {
            "dataset": dataset,
            "corpus": searched,
            "benchmark_corpus": own_corpus,
            "gold": gold.kind() if any(row["gold_ids"] for row in rows) else "answers",
            "answer_rule": rule.signature,
            "chunking": chunking(workspace, searched),
            "retriever": kind,
            "params": resolved,
            "k": k,
            "sample": sample,
            "seed": seed,
            "embedder": resolved.get("embedder"),
            "index_manifest": manifest,
            "question_ids": [row["question_id"] for row in rows],
            **({"stages": stages.to_dict()} if per_question else {}),
            **({"sweep": sweep} if sweep else {}),
        }
        result["run_id"] = create_retrieval_run(workspace, config, rows, result, session_id=session_id, label=label)
    return result


def _text_read(passage_id: str, carried: dict[str, str], corpus_passages: dict) -> str:
    """The passage as the retriever gave it (a search service's or a user's collection's text), else the corpus's."""
    if passage_id in carried:
        return carried[passage_id]
    found = corpus_passages.get(passage_id)
    return found.text if found is not None else ""
