"""What a session file's records say about each other, checked before anything is written: ids are unique, every
reference names a record of the same file, runs belong to the file's session, span parents form trees within one
run (or judgment), question and repeat, and kinds are known. The records are typed (session_types)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from playground.store.judgments import judgment_kinds
from playground.store.ratings import RATING_KINDS
from playground.store.session_decode import check_part
from playground.store.session_errors import SessionFormatError
from playground.store.session_sections import SessionFileV1, given, records_of
from playground.store.session_types import Example, OptimizationCandidate, RunConfig
from playground.store.session_values import value_of


def check_links(file: SessionFileV1) -> None:
    session = file.session
    run_ids = _unique(file.runs, "runs", lambda r: r.id)
    benchmark_names = _unique(file.benchmarks, "benchmarks", lambda b: b.name)
    for i, run in enumerate(file.runs):
        _same_session(f"runs[{i}]", run, session.id)
        _reference(f"runs[{i}].benchmark", given(run.benchmark), benchmark_names, "benchmark")
        check_part(f"runs[{i}].config", run.config, RunConfig)
    _unique(file.results, "results", lambda r: (r.run_id, r.question_id, r.repeat))
    for i, result in enumerate(file.results):
        _reference(f"results[{i}].run_id", result.run_id, run_ids, "run")
    span_ids = _unique(file.spans, "spans", lambda s: s.id)
    for i, span in enumerate(file.spans):
        _reference(f"spans[{i}].run_id", span.run_id, run_ids, "run")
        _check_parent(f"spans[{i}]", span, file.spans, span_ids, "run_id", "span", "run")
    _check_tree("spans", file.spans, span_ids)
    version_ids = _unique(file.prompt_versions, "prompt_versions", lambda v: v.id)
    for i, version in enumerate(file.prompt_versions):
        _reference(f"prompt_versions[{i}].parent", given(version.parent), version_ids, "prompt version")
    _unique(file.templates, "templates", lambda t: t.name)
    for i, template in enumerate(file.templates):
        _reference(f"templates[{i}].latest_version", given(template.latest_version), version_ids, "prompt version")
    _unique(file.ratings, "ratings", lambda r: r.id)
    for i, rating in enumerate(file.ratings):
        _reference(f"ratings[{i}].run_id", rating.run_id, run_ids, "run")
        _reference(f"ratings[{i}].other_run_id", given(rating.other_run_id), run_ids, "run")
        _check_kind(f"ratings[{i}]", rating, RATING_KINDS, "rating")
    for b, benchmark in enumerate(file.benchmarks):
        _unique(benchmark.questions, f"benchmarks[{b}].questions", lambda q: q.id)
        _unique(benchmark.passages, f"benchmarks[{b}].passages", lambda p: p.id)
    _check_judgments(file, run_ids)
    _check_demonstration_sets(file, run_ids)
    _check_retrieval_runs(file, session.id, benchmark_names)
    samples = records_of(file, "rating_samples")
    _unique(samples, "rating_samples", lambda s: (s.run_id, s.metric))
    for i, sample in enumerate(samples):
        _reference(f"rating_samples[{i}].run_id", sample.run_id, run_ids, "run")
        _unique(sample.question_ids, f"rating_samples[{i}].question_ids", lambda qid: qid)
    _check_optimizations(file, session.id, version_ids, benchmark_names)


def _unique(records: list, section: str, key: Callable[[Any], Any]) -> dict:
    seen: dict = {}
    for i, record in enumerate(records):
        value = key(record)
        if value in seen:
            raise SessionFormatError(f"{section}[{i}]", f"duplicate of {section}[{seen[value]}] ({value!r})")
        seen[value] = i
    return seen


def _reference(where: str, value: Optional[str], known: dict, what: str) -> None:
    if value is not None and value not in known:
        raise SessionFormatError(where, f"refers to {what} {value!r}, which is not in the file")


def _same_session(where: str, run: Any, session_id: str) -> None:
    if run.session_id != session_id:
        raise SessionFormatError(f"{where}.session_id", f"is {run.session_id!r}, not the file's session {session_id!r}")


def _check_kind(where: str, record: Any, kinds: tuple, noun: str) -> None:
    """A rating's or judgment's kind is known, and a pairwise one names the other run."""
    if record.kind not in kinds:
        raise SessionFormatError(f"{where}.kind", f"expected one of {', '.join(kinds)}, got {record.kind!r}")
    if record.kind == "pairwise" and not given(record.other_run_id):
        raise SessionFormatError(f"{where}.other_run_id", f"a pairwise {noun} needs the other run")


def _check_parent(where: str, span: Any, spans: list, span_ids: dict, owner: str, noun: str, owner_noun: str) -> None:
    """A span's parent exists and belongs to the same run (or judgment), question and repeat: a trace is drawn per
    question, so a parent elsewhere would leave the span out of every tree."""
    parent = given(span.parent_id)
    _reference(f"{where}.parent_id", parent, span_ids, noun)
    if parent is None:
        return
    other = spans[span_ids[parent]]
    for key, what in ((owner, owner_noun), ("question_id", "question"), ("repeat", "repeat")):
        if getattr(other, key) != getattr(span, key):
            raise SessionFormatError(f"{where}.parent_id", f"{noun} {parent!r} belongs to another {what}")


def _check_tree(section: str, spans: list, span_ids: dict) -> None:
    """Parents form trees: following parent_id from any span ends at a root (a loop would hide its spans)."""
    done: set[int] = set()
    for start in range(len(spans)):
        path: dict[int, None] = {}
        i: Optional[int] = start
        while i is not None and i not in done:
            if i in path:
                raise SessionFormatError(
                    f"{section}[{i}].parent_id",
                    "spans whose parents form a loop: "
                    + " -> ".join(f"{section}[{j}]" for j in [*list(path)[list(path).index(i) :], i]),
                )
            path[i] = None
            parent = given(spans[i].parent_id)
            i = span_ids[parent] if parent is not None else None
        done.update(path)


def _check_judgments(file: SessionFileV1, run_ids: dict) -> None:
    judges, steps = records_of(file, "judges"), records_of(file, "judge_steps")
    judgments, spans = records_of(file, "judgments"), records_of(file, "judge_spans")
    judge_ids = _unique(judges, "judges", lambda j: j.id)
    _unique(steps, "judge_steps", lambda s: (s.judge_id, s.criterion))
    for i, step in enumerate(steps):
        _reference(f"judge_steps[{i}].judge_id", step.judge_id, judge_ids, "judge")
    judgment_ids = _unique(judgments, "judgments", lambda j: j.id)
    _unique(
        judgments,
        "judgments",
        lambda j: (j.judge_id, j.kind, j.run_id, given(j.other_run_id), j.question_id, j.result_repeat, j.sample_index),
    )
    for i, judgment in enumerate(judgments):
        where = f"judgments[{i}]"
        _reference(f"{where}.judge_id", judgment.judge_id, judge_ids, "judge")
        _reference(f"{where}.run_id", judgment.run_id, run_ids, "run")
        _reference(f"{where}.other_run_id", given(judgment.other_run_id), run_ids, "run")
        _check_kind(where, judgment, judgment_kinds(), "judgment")
    span_ids = _unique(spans, "judge_spans", lambda s: s.id)
    for i, span in enumerate(spans):
        where = f"judge_spans[{i}]"
        _reference(f"{where}.judgment_id", span.judgment_id, judgment_ids, "judgment")
        _reference(f"{where}.run_id", span.run_id, run_ids, "run")
        _check_parent(where, span, spans, span_ids, "judgment_id", "judge span", "judgment")
    _check_tree("judge_spans", spans, span_ids)


def _check_demonstration_sets(file: SessionFileV1, run_ids: dict) -> None:
    sets = records_of(file, "demonstration_sets")
    _unique(sets, "demonstration_sets", lambda s: s.id)
    _unique(sets, "demonstration_sets", lambda s: (s.name, s.version))
    for i, demo in enumerate(sets):
        where = f"demonstration_sets[{i}]"
        if "@" in demo.name:
            raise SessionFormatError(f"{where}.name", "must not contain '@'")
        _reference(f"{where}.source_run_id", given(demo.source_run_id), run_ids, "run")
        for e, example in enumerate(value_of(demo.examples)):
            check_part(f"{where}.examples[{e}]", example, Example)


def _check_retrieval_runs(file: SessionFileV1, session_id: str, benchmark_names: dict) -> None:
    """Retrieval runs belong to the file's session and name only benchmarks it holds; each per-question row belongs
    to one of them, once per question, with a score for every ranked id."""
    runs, results = records_of(file, "retrieval_runs"), records_of(file, "retrieval_results")
    run_ids = _unique(runs, "retrieval_runs", lambda r: r.id)
    for i, run in enumerate(runs):
        where = f"retrieval_runs[{i}]"
        _same_session(where, run, session_id)
        benchmark = given(run.benchmark)
        _reference(f"{where}.benchmark", benchmark, benchmark_names, "benchmark")
        dataset = value_of(run.config).get("dataset") if benchmark is not None else None
        if benchmark is not None and dataset != benchmark:
            raise SessionFormatError(f"{where}.benchmark", f"is {benchmark!r}, but config.dataset is {dataset!r}")
    _unique(results, "retrieval_results", lambda r: (r.run_id, r.question_id))
    for i, result in enumerate(results):
        where = f"retrieval_results[{i}]"
        _reference(f"{where}.run_id", result.run_id, run_ids, "retrieval run")
        if len(result.scores) != len(result.ranked_ids):
            raise SessionFormatError(
                f"{where}.scores", f"{len(result.scores)} scores for {len(result.ranked_ids)} ranked ids"
            )


def _check_optimizations(file: SessionFileV1, session_id: str, version_ids: dict, benchmark_names: dict) -> None:
    """Prompt searches belong to the file's session, start from and try prompt versions it holds, and split their
    questions into disjoint train, validation and held-out sets."""
    searches = records_of(file, "optimizations")
    _unique(searches, "optimizations", lambda o: o.id)
    for i, search in enumerate(searches):
        where = f"optimizations[{i}]"
        _same_session(where, search, session_id)
        _reference(f"{where}.benchmark", given(search.benchmark), benchmark_names, "benchmark")
        _reference(f"{where}.start_version", search.start_version, version_ids, "prompt version")
        for c, candidate in enumerate(value_of(search.candidates)):
            check_part(f"{where}.candidates[{c}]", candidate, OptimizationCandidate)
            _reference(f"{where}.candidates[{c}].version", candidate["version"], version_ids, "prompt version")
        seen: dict[str, str] = {}
        for split in ("train", "validation", "test"):
            for q, question_id in enumerate(getattr(search.splits, split)):
                if question_id in seen:
                    raise SessionFormatError(
                        f"{where}.splits.{split}[{q}]",
                        f"question {question_id!r} is also in split {seen[question_id]!r}",
                    )
                seen[question_id] = split
