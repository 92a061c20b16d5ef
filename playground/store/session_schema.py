"""The checks run before anything is written: types first (session_types), then what needs this import's limits
(lengths, counts, depth) or several records (references, unique ids, span trees, content ids, the digest).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from playground.store.content_ids import check_payload_content_ids
from playground.store.judgments import JUDGMENT_KINDS
from playground.store.ratings import RATING_KINDS
from playground.store.session_decode import check_part, check_text_and_numbers, convert_payload
from playground.store.session_types import RunConfig, project
from playground.store.session_format import ImportLimits, SessionFormatError, _type_name, check_digest


# field -> (kind, required). Kinds: id, name, short, text, int, number, object, json, strlist; "?" allows null.
# A ranking's kinds, capped at ImportLimits.max_ranking_items entries: idlist (ids), numlist (finite numbers) and
# ranks (an object of id -> rank, an integer from 1, or null); numbers is an object of finite numbers (metrics).
SESSION_FIELDS = {
    "id": ("id", True),
    "name": ("name", True),
    "notes": ("notes?", False),
    "created_at": ("short?", False),
    "updated_at": ("short?", False),
    "origin": ("json", False),
}
RUN_FIELDS = {
    "id": ("id", True),
    "session_id": ("id", True),
    "config": ("object", True),
    "label": ("text?", False),
    "status": ("short?", False),
    "n_planned": ("int?", False),
    "n_done": ("int?", False),
    "metrics": ("object?", False),
    "errors": ("int?", False),
    "tokens": ("int?", False),
    "seconds": ("number?", False),
    "created_at": ("short?", False),
    "finished_at": ("short?", False),
    "benchmark": ("name?", False),
}
RESULT_FIELDS = {
    "run_id": ("id", True),
    "question_id": ("id", True),
    "repeat": ("int", True),
    "position": ("int?", False),
    "prediction": ("text?", False),
    "output": ("text?", False),
    "scores": ("object?", False),
    "error": ("text?", False),
    "prompt_tokens": ("int?", False),
    "completion_tokens": ("int?", False),
    "latency_s": ("number?", False),
    "cached": ("int?", False),
    "created_at": ("short?", False),
}
SPAN_FIELDS = {
    "id": ("id", True),
    "run_id": ("id", True),
    "question_id": ("id", True),
    "repeat": ("int", True),
    "parent_id": ("id?", False),
    "position": ("int?", False),
    "kind": ("short", True),
    "name": ("short?", False),
    "inputs": ("json", False),
    "outputs": ("json", False),
    "started_at": ("short?", False),
    "duration_s": ("number?", False),
    "prompt_tokens": ("int?", False),
    "completion_tokens": ("int?", False),
    "cached": ("int?", False),
    "error": ("text?", False),
}
PROMPT_VERSION_FIELDS = {
    "id": ("id", True),
    "template": ("name", True),
    "content": ("text", True),
    "parent": ("id?", False),
    "message": ("text?", False),
    "session_id": ("id?", False),
    "created_at": ("short?", False),
}
TEMPLATE_FIELDS = {
    "name": ("name", True),
    "description": ("text?", False),
    "technique": ("short?", False),
    "variables": ("strlist?", False),
    "latest_version": ("id?", False),
    "created_at": ("short?", False),
    "updated_at": ("short?", False),
}
RATING_FIELDS = {
    "id": ("id", True),
    "run_id": ("id", True),
    "question_id": ("id", True),
    "kind": ("short", True),
    "value": ("number", True),
    "other_run_id": ("id?", False),
    "rater": ("short?", False),
    "note": ("text?", False),
    "session_id": ("id?", False),
    "created_at": ("short?", False),
}
BENCHMARK_FIELDS = {
    "name": ("name", True),
    "corpus": ("name?", False),
    "format": ("short?", False),
    "source": ("text?", False),
    "metadata": ("object?", False),
    "corpus_metadata": ("object?", False),  # a documents corpus's chunking (its passages carry their spans)
    "questions": ("list", True),
    "passages": ("list", True),
}
QUESTION_FIELDS = {
    "id": ("id", True),
    "text": ("text", True),
    "answers": ("strlist", True),
    "gold_passage_ids": ("strlist", True),
    "choices": ("list", True),
    "tags": ("object", True),
    "metadata": ("object", True),
}
PASSAGE_FIELDS = {"id": ("id", True), "title": ("text", True), "text": ("text", True), "metadata": ("object", True)}
CHOICE_FIELDS = {"label": ("short", True), "text": ("text", True)}
JUDGE_FIELDS = {
    "id": ("id", True),
    "kind": ("short", True),
    "model": ("text", True),
    "model_fingerprint": ("text?", False),
    "params": ("object?", False),
    "templates": ("object?", False),
    "prompt_versions": ("object?", False),
    "created_at": ("short?", False),
}
JUDGE_STEP_FIELDS = {
    "judge_id": ("id", True),
    "criterion": ("text", True),
    "criterion_name": ("text?", False),
    "steps": ("strlist", True),
    "output": ("text?", False),
    "model_id": ("text?", False),
    "prompt_tokens": ("int?", False),
    "completion_tokens": ("int?", False),
    "created_at": ("short?", False),
}
JUDGMENT_FIELDS = {
    "id": ("id", True),
    "judge_id": ("id", True),
    "kind": ("short", True),
    "run_id": ("id", True),
    "other_run_id": ("id?", False),
    "question_id": ("id", True),
    "result_repeat": ("int", True),
    "sample_index": ("int", True),
    "score": ("number?", False),
    "verdict": ("text?", False),
    "reason": ("text?", False),
    "details": ("object?", False),
    "error": ("text?", False),
    "prompt_tokens": ("int?", False),
    "completion_tokens": ("int?", False),
    "cached": ("int?", False),
    "created_at": ("short?", False),
}
JUDGE_SPAN_FIELDS = {**SPAN_FIELDS, "judgment_id": ("id", True)}
DEMONSTRATION_SET_FIELDS = {
    "id": ("id", True),
    "name": ("name", True),
    "version": ("int", True),
    "program": ("text?", False),
    "source_run_id": ("id?", False),
    "session_id": ("id?", False),
    "examples": ("list", True),
    "n": ("int?", False),
    "metadata": ("object?", False),
    "created_at": ("short?", False),
}
RETRIEVAL_RUN_FIELDS = {
    "id": ("id", True),
    "session_id": ("id", True),
    "label": ("text?", False),
    "config": ("object", True),
    "metrics": ("object?", False),
    "created_at": ("short?", False),
    "benchmark": ("name?", False),
}
# The ranking columns are required and never null: comparing and showing a retrieval run reads every one of them.
RETRIEVAL_RESULT_FIELDS = {
    "run_id": ("id", True),
    "question_id": ("id", True),
    "position": ("int?", False),
    "ranked_ids": ("idlist", True),
    "scores": ("numlist", True),
    "gold_ids": ("idlist", True),
    "gold_ranks": ("ranks", True),
    "latency_ms": ("number?", False),
    "metrics": ("numbers", True),
}


class _Checker:
    def __init__(self, limits: ImportLimits):
        self.limits = limits

    def value(self, where: str, kind: str, value: Any) -> None:
        nullable = kind.endswith("?")
        kind = kind.rstrip("?")
        if value is None:
            if nullable or kind == "json":
                return
            raise SessionFormatError(where, f"expected {self._expected(kind)}, got null")
        limits = self.limits
        if kind in ("id", "name", "short", "text"):
            if not isinstance(value, str):
                raise SessionFormatError(where, f"expected a string, got {_type_name(value)}")
            cap = {
                "id": limits.max_id_chars,
                "name": limits.max_name_chars,
                "short": limits.max_name_chars,
                "text": limits.max_text_chars,
            }[kind]
            if len(value) > cap:
                raise SessionFormatError(where, f"string of {len(value)} characters is longer than the limit of {cap}")
            if kind in ("id", "name") and not value.strip():
                raise SessionFormatError(where, "must not be empty")
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise SessionFormatError(where, f"expected an integer, got {_type_name(value)}")
        elif kind == "number":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise SessionFormatError(where, f"expected a number, got {_type_name(value)}")
            if not math.isfinite(value):
                raise SessionFormatError(where, "expected a finite number")
        elif kind == "object":
            if not isinstance(value, dict):
                raise SessionFormatError(where, f"expected an object, got {_type_name(value)}")
            self.depth(where, value)
        elif kind == "list":
            if not isinstance(value, list):
                raise SessionFormatError(where, f"expected a list, got {_type_name(value)}")
        elif kind == "strlist":
            if not isinstance(value, list):
                raise SessionFormatError(where, f"expected a list of strings, got {_type_name(value)}")
            for i, item in enumerate(value):
                self.value(f"{where}[{i}]", "text", item)
        elif kind in ("idlist", "numlist"):
            self.items(where, value, "id" if kind == "idlist" else "number")
        elif kind in ("numbers", "ranks"):
            self.entries(where, value, "number" if kind == "numbers" else "rank", capped=kind == "ranks")
        elif kind == "rank":
            self.value(where, "int", value)
            if value < 1:
                raise SessionFormatError(where, f"expected a rank (1 or more), got {value}")
        elif kind == "notes":
            if not isinstance(value, list):
                raise SessionFormatError(where, f"expected a list of notes, got {_type_name(value)}")
            for i, note in enumerate(value):
                self.record(f"{where}[{i}]", note, {"text": ("text", True), "created_at": ("short?", False)})
        elif kind == "json":
            self.depth(where, value)
        else:  # pragma: no cover - a typo in the schema tables above
            raise AssertionError(kind)

    @staticmethod
    def _expected(kind: str) -> str:
        return {
            "id": "a string",
            "name": "a string",
            "short": "a string",
            "text": "a string",
            "int": "an integer",
            "number": "a number",
            "object": "an object",
            "list": "a list",
            "strlist": "a list of strings",
            "notes": "a list of notes",
            "idlist": "a list of ids",
            "numlist": "a list of numbers",
            "numbers": "an object of numbers",
            "ranks": "an object of ranks",
            "rank": "a rank",
        }.get(kind, kind)

    def items(self, where: str, value: Any, item_kind: str) -> None:
        """A list of `item_kind` values no longer than a ranking may be (a retrieval result's columns)."""
        if not isinstance(value, list):
            raise SessionFormatError(where, f"expected a list of {item_kind}s, got {_type_name(value)}")
        self.cap_items(where, len(value))
        for i, item in enumerate(value):
            self.value(f"{where}[{i}]", item_kind, item)

    def entries(self, where: str, value: Any, item_kind: str, capped: bool = False) -> None:
        """An object of name -> `item_kind` (a null allowed for ranks: a gold passage not retrieved); `capped` when
        it is a ranking's (one entry per gold passage), not a handful of named metrics."""
        if not isinstance(value, dict):
            raise SessionFormatError(where, f"expected an object of {item_kind}s, got {_type_name(value)}")
        if capped:
            self.cap_items(where, len(value))
        for key, item in value.items():
            self.value(f"{where}[{key!r}]", "id", key)
            self.value(f"{where}[{key!r}]", item_kind + ("?" if item_kind == "rank" else ""), item)

    def cap_items(self, where: str, count: int) -> None:
        if count > self.limits.max_ranking_items:
            raise SessionFormatError(
                where, f"{count} entries, over the import limit of {self.limits.max_ranking_items}"
            )

    def depth(self, where: str, value: Any) -> None:
        stack = [(value, 1)]
        while stack:
            item, level = stack.pop()
            if level > self.limits.max_depth:
                raise SessionFormatError(where, f"nested deeper than {self.limits.max_depth} levels")
            if isinstance(item, dict):
                stack.extend((v, level + 1) for v in item.values())
            elif isinstance(item, list):
                stack.extend((v, level + 1) for v in item)

    def record(self, where: str, record: Any, fields: dict) -> dict:
        if not isinstance(record, dict):
            raise SessionFormatError(where, f"expected an object, got {_type_name(record)}")
        for name, (kind, required) in fields.items():
            if name not in record:
                if required:
                    raise SessionFormatError(f"{where}.{name}", "missing")
                continue
            self.value(f"{where}.{name}", kind, record[name])
        return record

    def section(self, payload: dict, name: str, fields: dict, cap: int) -> list:
        records = payload[name]
        if not isinstance(records, list):
            raise SessionFormatError(name, f"expected a list, got {_type_name(records)}")
        self.cap(name, len(records), cap)
        for i, record in enumerate(records):
            self.record(f"{name}[{i}]", record, fields)
        return records

    @staticmethod
    def cap(where: str, count: int, cap: int) -> None:
        if count > cap:
            raise SessionFormatError(where, f"{count} records, over the import limit of {cap}")


def _unique(records: list, section: str, key) -> dict:
    seen: dict = {}
    for i, record in enumerate(records):
        value = key(record)
        if value in seen:
            raise SessionFormatError(f"{section}[{i}]", f"duplicate of {section}[{seen[value]}] ({value!r})")
        seen[value] = i
    return seen


def _reference(where: str, value: Optional[str], known, what: str) -> None:
    if value is not None and value not in known:
        raise SessionFormatError(where, f"refers to {what} {value!r}, which is not in the file")


def validate(payload: Any, limits: Optional[ImportLimits] = None) -> dict:
    """Check a parsed session file (format version 1 to 4); returns it unchanged, or raises SessionFormatError."""
    limits = limits or ImportLimits.from_env()
    check = _Checker(limits)
    if not isinstance(payload, dict):
        raise SessionFormatError("", f"expected a JSON object at the top, got {_type_name(payload)}")
    convert_payload(payload)  # every field's type, nullability and range (session_types)
    file_version = payload["version"]
    check_text_and_numbers(payload)

    session = check.record("session", payload["session"], SESSION_FIELDS)
    runs = check.section(payload, "runs", RUN_FIELDS, limits.max_runs)
    results = check.section(payload, "results", RESULT_FIELDS, limits.max_results)
    spans = check.section(payload, "spans", SPAN_FIELDS, limits.max_spans)
    versions = check.section(payload, "prompt_versions", PROMPT_VERSION_FIELDS, limits.max_prompt_versions)
    templates = check.section(payload, "templates", TEMPLATE_FIELDS, limits.max_templates)
    ratings = check.section(payload, "ratings", RATING_FIELDS, limits.max_ratings)
    benchmarks = check.section(payload, "benchmarks", BENCHMARK_FIELDS, limits.max_benchmarks)

    run_ids = _unique(runs, "runs", lambda r: r["id"])
    benchmark_names = _unique(benchmarks, "benchmarks", lambda b: b["name"])
    for i, run in enumerate(runs):
        if run["session_id"] != session["id"]:
            raise SessionFormatError(
                f"runs[{i}].session_id", f"is {run['session_id']!r}, not the file's session {session['id']!r}"
            )
        _reference(f"runs[{i}].benchmark", run.get("benchmark"), benchmark_names, "benchmark")
        check_part(f"runs[{i}].config", run["config"], RunConfig)
    _unique(results, "results", lambda r: (r["run_id"], r["question_id"], r["repeat"]))
    for i, result in enumerate(results):
        _reference(f"results[{i}].run_id", result["run_id"], run_ids, "run")
    span_ids = _unique(spans, "spans", lambda s: s["id"])
    for i, span in enumerate(spans):
        _reference(f"spans[{i}].run_id", span["run_id"], run_ids, "run")
        _check_parent(f"spans[{i}]", span, spans, span_ids, "run_id", "span", "run")
    _check_tree("spans", spans, span_ids)
    version_ids = _unique(versions, "prompt_versions", lambda v: v["id"])
    for i, version in enumerate(versions):
        _reference(f"prompt_versions[{i}].parent", version.get("parent"), version_ids, "prompt version")
    _unique(templates, "templates", lambda t: t["name"])
    for i, template in enumerate(templates):
        _reference(f"templates[{i}].latest_version", template.get("latest_version"), version_ids, "prompt version")
    _unique(ratings, "ratings", lambda r: r["id"])
    for i, rating in enumerate(ratings):
        _reference(f"ratings[{i}].run_id", rating["run_id"], run_ids, "run")
        _reference(f"ratings[{i}].other_run_id", rating.get("other_run_id"), run_ids, "run")
        _check_kind(f"ratings[{i}]", rating, RATING_KINDS, "rating")
    n_questions = n_passages = 0
    for b, benchmark in enumerate(benchmarks):
        where = f"benchmarks[{b}]"
        n_questions += len(benchmark["questions"])
        n_passages += len(benchmark["passages"])
        check.cap("benchmarks[].questions", n_questions, limits.max_questions)
        check.cap("benchmarks[].passages", n_passages, limits.max_passages)
        for q, question in enumerate(benchmark["questions"]):
            check.record(f"{where}.questions[{q}]", question, QUESTION_FIELDS)
            for c, choice in enumerate(question["choices"]):
                check.record(f"{where}.questions[{q}].choices[{c}]", choice, CHOICE_FIELDS)
        for p, passage in enumerate(benchmark["passages"]):
            check.record(f"{where}.passages[{p}]", passage, PASSAGE_FIELDS)
        _unique(benchmark["questions"], f"{where}.questions", lambda q: q["id"])
        _unique(benchmark["passages"], f"{where}.passages", lambda p: p["id"])
    _validate_judgments(check, payload, run_ids)
    _validate_demonstration_sets(check, payload, run_ids)
    _validate_retrieval_runs(check, payload, session["id"], benchmark_names)
    check_payload_content_ids(payload)
    # From version 5 the digest covers what the schema reads (the file's other keys are skipped, not digested).
    check_digest(payload if file_version < 5 else project(payload))
    return payload


def _check_kind(where: str, record: dict, kinds: tuple, noun: str) -> None:
    """A rating's or judgment's kind is known, and a pairwise one names the other run."""
    if record["kind"] not in kinds:
        raise SessionFormatError(f"{where}.kind", f"expected one of {', '.join(kinds)}, got {record['kind']!r}")
    if record["kind"] == "pairwise" and not record.get("other_run_id"):
        raise SessionFormatError(f"{where}.other_run_id", f"a pairwise {noun} needs the other run")


def _check_parent(where: str, span: dict, spans: list, span_ids: dict, owner: str, noun: str, owner_noun: str) -> None:
    """A span's parent exists and belongs to the same run (or judgment), question and repeat: a trace is drawn per
    question, so a parent elsewhere would leave the span out of every tree."""
    parent = span.get("parent_id")
    _reference(f"{where}.parent_id", parent, span_ids, noun)
    if parent is None:
        return
    other = spans[span_ids[parent]]
    for key, what in ((owner, owner_noun), ("question_id", "question"), ("repeat", "repeat")):
        if other[key] != span[key]:
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
            parent = spans[i].get("parent_id")
            i = span_ids[parent] if parent is not None else None
        done.update(path)


def _optional_section(check: _Checker, payload: dict, name: str, fields: dict, cap: int) -> list:
    return check.section(payload, name, fields, cap) if name in payload else []


def _validate_judgments(check: _Checker, payload: dict, run_ids: dict) -> None:
    limits = check.limits
    judges = _optional_section(check, payload, "judges", JUDGE_FIELDS, limits.max_judges)
    steps = _optional_section(check, payload, "judge_steps", JUDGE_STEP_FIELDS, limits.max_judge_steps)
    judgments = _optional_section(check, payload, "judgments", JUDGMENT_FIELDS, limits.max_judgments)
    spans = _optional_section(check, payload, "judge_spans", JUDGE_SPAN_FIELDS, limits.max_judge_spans)
    judge_ids = _unique(judges, "judges", lambda j: j["id"])
    _unique(steps, "judge_steps", lambda s: (s["judge_id"], s["criterion"]))
    for i, step in enumerate(steps):
        _reference(f"judge_steps[{i}].judge_id", step["judge_id"], judge_ids, "judge")
    judgment_ids = _unique(judgments, "judgments", lambda j: j["id"])
    _unique(
        judgments,
        "judgments",
        lambda j: (
            j["judge_id"],
            j["kind"],
            j["run_id"],
            j.get("other_run_id"),
            j["question_id"],
            j["result_repeat"],
            j["sample_index"],
        ),
    )
    for i, judgment in enumerate(judgments):
        where = f"judgments[{i}]"
        _reference(f"{where}.judge_id", judgment["judge_id"], judge_ids, "judge")
        _reference(f"{where}.run_id", judgment["run_id"], run_ids, "run")
        _reference(f"{where}.other_run_id", judgment.get("other_run_id"), run_ids, "run")
        _check_kind(where, judgment, JUDGMENT_KINDS, "judgment")
    span_ids = _unique(spans, "judge_spans", lambda s: s["id"])
    for i, span in enumerate(spans):
        where = f"judge_spans[{i}]"
        _reference(f"{where}.judgment_id", span["judgment_id"], judgment_ids, "judgment")
        _reference(f"{where}.run_id", span["run_id"], run_ids, "run")
        _check_parent(where, span, spans, span_ids, "judgment_id", "judge span", "judgment")
    _check_tree("judge_spans", spans, span_ids)


def _validate_demonstration_sets(check: _Checker, payload: dict, run_ids: dict) -> None:
    sets = _optional_section(
        check, payload, "demonstration_sets", DEMONSTRATION_SET_FIELDS, check.limits.max_demonstration_sets
    )
    _unique(sets, "demonstration_sets", lambda s: s["id"])
    _unique(sets, "demonstration_sets", lambda s: (s["name"], s["version"]))
    for i, demo in enumerate(sets):
        where = f"demonstration_sets[{i}]"
        if "@" in demo["name"]:
            raise SessionFormatError(f"{where}.name", "must not contain '@'")
        _reference(f"{where}.source_run_id", demo.get("source_run_id"), run_ids, "run")
        for e, example in enumerate(demo["examples"]):
            check.record(f"{where}.examples[{e}]", example, {"question": ("text", True)})
            if "answer" not in example:
                raise SessionFormatError(f"{where}.examples[{e}].answer", "missing")
            check.depth(f"{where}.examples[{e}]", example)


def _validate_retrieval_runs(check: _Checker, payload: dict, session_id: str, benchmark_names: dict) -> None:
    """Retrieval runs belong to the file's session and name only benchmarks it holds; each per-question row belongs
    to one of them, once per question, with a score for every ranked id."""
    limits = check.limits
    runs = _optional_section(check, payload, "retrieval_runs", RETRIEVAL_RUN_FIELDS, limits.max_retrieval_runs)
    results = _optional_section(
        check, payload, "retrieval_results", RETRIEVAL_RESULT_FIELDS, limits.max_retrieval_results
    )
    run_ids = _unique(runs, "retrieval_runs", lambda r: r["id"])
    for i, run in enumerate(runs):
        where = f"retrieval_runs[{i}]"
        if run["session_id"] != session_id:
            raise SessionFormatError(
                f"{where}.session_id", f"is {run['session_id']!r}, not the file's session {session_id!r}"
            )
        benchmark = run.get("benchmark")
        _reference(f"{where}.benchmark", benchmark, benchmark_names, "benchmark")
        if benchmark is not None and run["config"].get("dataset") != benchmark:
            raise SessionFormatError(
                f"{where}.benchmark", f"is {benchmark!r}, but config.dataset is {run['config'].get('dataset')!r}"
            )
    _unique(results, "retrieval_results", lambda r: (r["run_id"], r["question_id"]))
    for i, result in enumerate(results):
        where = f"retrieval_results[{i}]"
        _reference(f"{where}.run_id", result["run_id"], run_ids, "retrieval run")
        if len(result["scores"]) != len(result["ranked_ids"]):
            raise SessionFormatError(
                f"{where}.scores", f"{len(result['scores'])} scores for {len(result['ranked_ids'])} ranked ids"
            )
