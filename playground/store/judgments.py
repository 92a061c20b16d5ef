"""LLM-judge records: judge versions, the evaluation steps each pointwise judge version expanded once, the
judgments themselves, and the spans of every judge call (same fields as table spans, plus the judgment's id).

Judge spans live apart from a run's spans, so judging a run never changes its trace or its token totals.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any, Iterable, Optional

from playground import PlaygroundError
from playground.redaction import redact, redact_row
from playground.store.db import Workspace
from playground.store.ids import resolve_id
from playground.store.values import now, to_json

if TYPE_CHECKING:
    from playground.plugins.records import Judge


def _judges() -> list[Judge]:
    """Every registered judge's record (playground.evaluation.judges.registry reads the same)."""
    from playground.plugins import registry

    return list(registry().of("judges").values())


def judgment_kinds() -> tuple[str, ...]:
    """The kinds judgments are stored as: every registered judge's."""
    return tuple(dict.fromkeys(judge.kind for judge in _judges()))


def judgment_kinds_comparing_runs() -> frozenset[str]:
    """The judgment kinds whose judgments compare two runs, so each names the other run."""
    return frozenset(judge.kind for judge in _judges() if judge.compares_runs)


def old_judgment_metrics() -> dict[str, tuple[str, ...]]:
    """Judgment kind -> the metrics a judgment of it scored when written before judgments named their metrics
    (details.metrics); kinds whose judgments always named them are left out."""
    found: dict[str, dict[str, None]] = {}
    for judge in _judges():
        if judge.old_judgment_metrics:
            found.setdefault(judge.kind, {}).update(dict.fromkeys(judge.old_judgment_metrics))
    return {kind: tuple(metrics) for kind, metrics in found.items()}


def _loads(value: Optional[str], default: Any) -> Any:
    return json.loads(value) if value else default


def save_judge(
    workspace: Workspace,
    judge_id: str,
    kind: str,
    model: str,
    model_fingerprint: str,
    params: dict,
    templates: dict,
    prompt_versions: dict,
) -> None:
    """Record a judge version (same id, same settings: stored once)."""
    with workspace.db.atomic():
        if not workspace.db["judges"].count_where("id = ?", [judge_id]):
            workspace.db["judges"].insert(
                {
                    "id": judge_id,
                    "kind": kind,
                    "model": redact(model),
                    "model_fingerprint": model_fingerprint,
                    "params": to_json(params),
                    "templates": to_json(templates),
                    "prompt_versions": to_json(prompt_versions),
                    "created_at": now(),
                }
            )


def _judge_row(row) -> dict:
    judge = dict(row)
    for key in ("params", "templates", "prompt_versions"):
        judge[key] = _loads(judge[key], {})
    return judge


def get_judge(workspace: Workspace, judge_id: str) -> dict:
    """A judge version by id or unique id prefix."""
    full = resolve_id(workspace, "judges", judge_id, "judge")
    return _judge_row(next(workspace.db.query("SELECT * FROM judges WHERE id = ?", [full])))


def list_judges(workspace: Workspace) -> list[dict]:
    return [_judge_row(row) for row in workspace.db.query("SELECT * FROM judges ORDER BY created_at")]


def get_steps(workspace: Workspace, judge_id: str, criterion: str) -> Optional[dict]:
    """The stored evaluation steps of a criterion under a judge version, or None."""
    row = next(
        workspace.db.query("SELECT * FROM judge_steps WHERE judge_id = ? AND criterion = ?", [judge_id, criterion]),
        None,
    )
    if row is None:
        return None
    stored = dict(row)
    stored["steps"] = _loads(stored["steps"], [])
    return stored


def save_steps(
    workspace: Workspace,
    judge_id: str,
    criterion: str,
    criterion_name: str,
    steps: list[str],
    output: str,
    model_id: str,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
) -> dict:
    """Store a criterion's steps once: if they are already there, the stored ones win and are returned."""
    with workspace.db.atomic():
        existing = get_steps(workspace, judge_id, criterion)
        if existing is not None:
            return existing
        workspace.db["judge_steps"].insert(
            {
                "judge_id": judge_id,
                "criterion": criterion,
                "criterion_name": criterion_name,
                "steps": to_json(steps),
                "output": output,
                "model_id": model_id,
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "created_at": now(),
            }
        )
    stored = get_steps(workspace, judge_id, criterion)
    assert stored is not None  # written just above
    return stored


def judgment_id(
    judge_id: str,
    kind: str,
    run_id: str,
    other_run_id: Optional[str],
    question_id: str,
    result_repeat: int,
    sample_index: int,
) -> str:
    """Judging the same answer(s) again with the same judge and sample index replaces the earlier judgment."""
    key = to_json([judge_id, kind, run_id, other_run_id, question_id, int(result_repeat), int(sample_index)])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def save_judgment(workspace: Workspace, judgment: dict, spans: Iterable[dict]) -> dict:
    """Write one judgment and its spans in one transaction; `details` may be a dict. Returns the stored row."""
    if judgment.get("kind") not in judgment_kinds():
        raise ValueError(f"unknown judgment kind {judgment.get('kind')!r}")
    row, spans = redact_row(judgment), [redact_row(span) for span in spans]
    row["details"] = to_json(row.get("details") or {})
    row.setdefault("other_run_id", None)
    row.setdefault("created_at", now())
    row["id"] = judgment_id(
        row["judge_id"],
        row["kind"],
        row["run_id"],
        row["other_run_id"],
        row["question_id"],
        row.get("result_repeat", 0),
        row.get("sample_index", 0),
    )
    span_rows = [{**span, "judgment_id": row["id"]} for span in spans]
    db = workspace.db
    with db.atomic():
        db.execute("DELETE FROM judge_spans WHERE judgment_id = ?", [row["id"]])
        db["judgments"].insert(row, replace=True)
        if span_rows:
            db["judge_spans"].insert_all(span_rows)
    return get_judgment(workspace, row["id"])


def _judgment_row(row) -> dict:
    judgment = dict(row)
    judgment["details"] = _loads(judgment["details"], {})
    return judgment


def get_judgment(workspace: Workspace, judgment_id_: str) -> dict:
    row = next(workspace.db.query("SELECT * FROM judgments WHERE id = ?", [judgment_id_]), None)
    if row is None:
        raise PlaygroundError(f"no judgment {judgment_id_!r}")
    return _judgment_row(row)


def list_judgments(
    workspace: Workspace,
    run_id: Optional[str] = None,
    kind: Optional[str] = None,
    judge_id: Optional[str] = None,
    other_run_id: Optional[str] = None,
    question_id: Optional[str] = None,
) -> list[dict]:
    """Judgments filtered by what is given; `run_id` matches either side of a pairwise judgment."""
    clauses, args = [], []
    if run_id is not None:
        clauses.append("(run_id = ? OR other_run_id = ?)")
        args += [run_id, run_id]
    for column, value in (
        ("kind", kind),
        ("judge_id", judge_id),
        ("other_run_id", other_run_id),
        ("question_id", question_id),
    ):
        if value is not None:
            clauses.append(f"{column} = ?")
            args.append(value)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    return [
        _judgment_row(row)
        for row in workspace.db.query(
            f"SELECT * FROM judgments{where} ORDER BY created_at, question_id, result_repeat, sample_index", args
        )
    ]


def get_judge_spans(workspace: Workspace, judgment_id_: str) -> list[dict]:
    """The spans of one judgment in the order they were opened, inputs and outputs parsed."""
    spans = []
    for row in workspace.db.query("SELECT * FROM judge_spans WHERE judgment_id = ? ORDER BY position", [judgment_id_]):
        span = dict(row)
        span["inputs"] = _loads(span["inputs"], {})
        span["outputs"] = _loads(span["outputs"], {})
        spans.append(span)
    return spans
