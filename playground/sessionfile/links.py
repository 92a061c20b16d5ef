"""What a session file's records say about each other, checked before anything is written: ids are unique, every
reference names a record of the same file, runs belong to the file's session, span parents form trees within one
run (or judgment), question and repeat, and kinds and statuses are known. What a record says is held to the rules the
tool writes it by (a rating to store.ratings.check_rating, a status to the store's list, a rating sample to the
questions its run answered and a metric its run was judged on, a search's splits to its benchmark's questions and
its candidates to parents tried before them). The records are typed (records)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from playground import PlaygroundError
from playground.models.base import GenerationParams
from playground.store.judgments import judgment_kinds, judgment_kinds_comparing_runs, old_judgment_metrics
from playground.store.optimizations import SEARCH_STATUSES
from playground.store.ratings import RATING_KINDS, check_rating, rating_compares_runs
from playground.store.runs import RUN_STATUSES
from playground.sessionfile.decode import check_part
from playground.sessionfile.labels import check_label_moves
from playground.sessionfile.messages import SessionFormatError
from playground.sessionfile.records import (
    Example,
    OptimizationCandidate,
    OptimizationConfig,
    RunConfig,
    SessionFileV1,
    given,
    records_of,
    value_of,
)


def check_links(file: SessionFileV1) -> None:
    session = file.session
    run_ids = _unique(file.runs, "runs", lambda r: r.id)
    benchmark_names = _unique(file.benchmarks, "benchmarks", lambda b: b.name)
    for i, run in enumerate(file.runs):
        _same_session(f"runs[{i}]", run, session.id)
        _known(f"runs[{i}].status", given(run.status), RUN_STATUSES)
        _reference(f"runs[{i}].benchmark", given(run.benchmark), benchmark_names, "benchmark")
        check_part(f"runs[{i}].config", run.config, RunConfig)
        _check_params(f"runs[{i}].config.params", value_of(run.config).get("params"))
    _unique(file.results, "results", lambda r: (r.run_id, r.question_id, r.repeat))
    answered: set[tuple[str, str]] = set()  # (run id, question id) of every result
    for i, result in enumerate(file.results):
        _reference(f"results[{i}].run_id", result.run_id, run_ids, "run")
        answered.add((result.run_id, result.question_id))
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
        _check_rating(f"ratings[{i}]", rating, answered)
    for b, benchmark in enumerate(file.benchmarks):
        _unique(benchmark.questions, f"benchmarks[{b}].questions", lambda q: q.id)
        _unique(benchmark.passages, f"benchmarks[{b}].passages", lambda p: p.id)
    _check_judgments(file, run_ids)
    _check_demonstration_sets(file, run_ids)
    _check_retrieval_runs(file, session.id, benchmark_names)
    _check_rating_samples(file, run_ids, answered)
    _check_optimizations(file, session.id, version_ids, benchmark_names)
    check_label_moves(file, {version.id: version for version in file.prompt_versions})


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


def _check_params(where: str, params: Any) -> None:
    """Generation parameters (a run's, a judge's) as every reader builds them (models.base.GenerationParams: known
    keys, numbers in range, stop sequences as strings)."""
    if params is None:
        return
    stop = params.get("stop") if isinstance(params, dict) else None
    if stop is not None and not (isinstance(stop, list) and all(isinstance(item, str) for item in stop)):
        raise SessionFormatError(f"{where}.stop", "expected a list of strings")
    try:
        GenerationParams.from_dict(params)
    except PlaygroundError as error:
        raise SessionFormatError(where, str(error)) from None
    except (TypeError, ValueError) as error:  # a value of a type no parameter takes
        raise SessionFormatError(where, f"not generation parameters: {error}") from None


def _known(where: str, value: Optional[str], known: tuple) -> None:
    if value is not None and value not in known:
        raise SessionFormatError(where, f"expected one of {', '.join(known)}, got {value!r}")


def _check_rating(where: str, rating: Any, answered: set) -> None:
    """A rating by the rules every stored rating follows (store.ratings.check_rating), of a question its run (and a
    pairwise one's other run) answered."""
    _check_kind(where, rating, tuple(RATING_KINDS), "rating", rating_compares_runs)
    other = given(rating.other_run_id)
    try:
        check_rating(
            rating.kind,
            rating.value,
            given(rating.metric),
            rating.run_id,
            other,
            given(rating.rater),
            given(rating.note),
        )
    except PlaygroundError as error:
        raise SessionFormatError(where, str(error)) from None
    for run_id in (rating.run_id, other):
        if run_id is not None and (run_id, rating.question_id) not in answered:
            raise SessionFormatError(
                f"{where}.question_id", f"run {run_id!r} has no answer to question {rating.question_id!r} in the file"
            )


def _judged_metrics(file: SessionFileV1) -> set[tuple[str, str]]:
    """(run id, metric) for each metric the file's judgments scored a run on: each metric a judgment's details name
    (details.metrics), and those a judgment of its kind scored before judgments named them (old_judgment_metrics)."""
    judged, unnamed = set(), old_judgment_metrics()
    for judgment in records_of(file, "judgments"):
        judged.update((judgment.run_id, metric) for metric in unnamed.get(judgment.kind, ()))
        metrics = (value_of(judgment.details) or {}).get("metrics")
        if isinstance(metrics, dict):
            judged.update((judgment.run_id, metric) for metric in metrics)
    return judged


def _check_rating_samples(file: SessionFileV1, run_ids: dict, answered: set) -> None:
    """A rating sample (`rate sample`) is drawn from the questions its run answered, for a metric its run was judged
    on, each question once."""
    samples = records_of(file, "rating_samples")
    _unique(samples, "rating_samples", lambda s: (s.run_id, s.metric))
    judged = _judged_metrics(file) if samples else set()
    for i, sample in enumerate(samples):
        where = f"rating_samples[{i}]"
        _reference(f"{where}.run_id", sample.run_id, run_ids, "run")
        if (sample.run_id, sample.metric) not in judged:
            raise SessionFormatError(
                f"{where}.metric", f"run {sample.run_id!r} was never judged on {sample.metric!r} in the file"
            )
        _unique(sample.question_ids, f"{where}.question_ids", lambda qid: qid)
        for q, question_id in enumerate(sample.question_ids):
            if (sample.run_id, question_id) not in answered:
                raise SessionFormatError(
                    f"{where}.question_ids[{q}]", f"run {sample.run_id!r} has no answer to question {question_id!r}"
                )


def _check_kind(where: str, record: Any, kinds: tuple, noun: str, compares_runs: Callable[[str], bool]) -> None:
    """A rating's or judgment's kind is known, and one of a kind that compares two runs names the other run."""
    if record.kind not in kinds:
        raise SessionFormatError(f"{where}.kind", f"expected one of {', '.join(kinds)}, got {record.kind!r}")
    if compares_runs(record.kind) and not given(record.other_run_id):
        raise SessionFormatError(f"{where}.other_run_id", f"a {record.kind} {noun} needs the other run")


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
    for i, judge in enumerate(judges):
        _check_params(f"judges[{i}].params", value_of(judge.params))
    _unique(steps, "judge_steps", lambda s: (s.judge_id, s.criterion))
    for i, step in enumerate(steps):
        _reference(f"judge_steps[{i}].judge_id", step.judge_id, judge_ids, "judge")
    judgment_ids = _unique(judgments, "judgments", lambda j: j.id)
    _unique(
        judgments,
        "judgments",
        lambda j: (j.judge_id, j.kind, j.run_id, given(j.other_run_id), j.question_id, j.result_repeat, j.sample_index),
    )
    kinds, comparing = judgment_kinds(), judgment_kinds_comparing_runs()
    for i, judgment in enumerate(judgments):
        where = f"judgments[{i}]"
        _reference(f"{where}.judge_id", judgment.judge_id, judge_ids, "judge")
        _reference(f"{where}.run_id", judgment.run_id, run_ids, "run")
        _reference(f"{where}.other_run_id", given(judgment.other_run_id), run_ids, "run")
        _check_kind(where, judgment, kinds, "judgment", comparing.__contains__)
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
    """Prompt searches belong to the file's session, have a status a search can have, start from and try prompt
    versions it holds, each candidate built on the start or a candidate tried before it (so parents never loop), and
    split their benchmark's questions into disjoint train, validation and held-out sets."""
    searches = records_of(file, "optimizations")
    _unique(searches, "optimizations", lambda o: o.id)
    questions = {b.name: {q.id for q in b.questions} for b in file.benchmarks} if searches else {}
    for i, search in enumerate(searches):
        where = f"optimizations[{i}]"
        _same_session(where, search, session_id)
        _known(f"{where}.status", search.status, SEARCH_STATUSES)
        check_part(f"{where}.config", search.config, OptimizationConfig)
        _check_params(f"{where}.config.run.params", value_of(search.config)["run"].get("params"))
        benchmark = given(search.benchmark)
        _reference(f"{where}.benchmark", benchmark, benchmark_names, "benchmark")
        _reference(f"{where}.start_version", search.start_version, version_ids, "prompt version")
        tried = {search.start_version}
        for c, candidate in enumerate(value_of(search.candidates)):
            check_part(f"{where}.candidates[{c}]", candidate, OptimizationCandidate)
            _reference(f"{where}.candidates[{c}].version", candidate["version"], version_ids, "prompt version")
            parent = candidate.get("parent")
            if parent is not None and (not isinstance(parent, str) or parent not in tried):
                raise SessionFormatError(
                    f"{where}.candidates[{c}].parent",
                    f"{parent!r} is neither the start nor a candidate tried before this one",
                )
            tried.add(candidate["version"])
        seen: dict[str, str] = {}
        for split in ("train", "validation", "test"):
            for q, question_id in enumerate(getattr(search.splits, split)):
                if question_id in seen:
                    raise SessionFormatError(
                        f"{where}.splits.{split}[{q}]",
                        f"question {question_id!r} is also in split {seen[question_id]!r}",
                    )
                if benchmark is not None and question_id not in questions[benchmark]:
                    raise SessionFormatError(
                        f"{where}.splits.{split}[{q}]", f"question {question_id!r} is not in benchmark {benchmark!r}"
                    )
                seen[question_id] = split
