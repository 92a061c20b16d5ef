"""`playground runs` (stored runs with their status, settings and scores) and `playground trace` (one question's
span tree in a run): reading what runs stored."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable

from playground import PlaygroundError, bounds
from playground.cli.output import emit, text_table, timestamp, workspace_for
from playground.store.span_kinds import SpanKind
from playground.terminal_text import one_line

if TYPE_CHECKING:
    from playground.store.run_record import RunRecord


def register(subparsers, common) -> None:
    runs = subparsers.add_parser("runs", parents=[common], help="list runs with their status, settings and scores")
    runs.add_argument("--session", help="only the runs of this session id")
    runs.set_defaults(handler=handle_runs)

    trace = subparsers.add_parser(
        "trace",
        parents=[common],
        help="print one question's trace (span tree) in a run, or export a run's traces (OpenTelemetry)",
        usage="playground trace RUN_ID QUESTION_ID [--repeat-index N]\n"
        "       playground trace export RUN_ID (--otlp URL [--timeout S] | -o FILE [--force]) [--project NAME]",
        description="`trace export RUN_ID` sends every question's span tree as OpenTelemetry spans with the "
        "OpenInference conventions to an OTLP/HTTP endpoint (Phoenix, Langfuse, Jaeger; headers from "
        "$OTEL_EXPORTER_OTLP_HEADERS) or writes them as OTLP/JSON lines.",
    )
    trace.add_argument("run_id", metavar="RUN_ID")
    trace.add_argument("question_id", metavar="QUESTION_ID", nargs="?", default=None)
    trace.add_argument("--otlp", metavar="URL", default=None, help="export: the OTLP/HTTP endpoint (/v1/traces added)")
    trace.add_argument("-o", "--output", metavar="FILE", default=None, help="export: write OTLP/JSON lines here")
    trace.add_argument(
        "--project",
        default=None,
        metavar="NAME",
        help="export: the project the spans go to (resource openinference.project.name; default playground)",
    )
    trace.add_argument("--force", action="store_true", help="export: replace an existing -o FILE")
    trace.add_argument(
        "--timeout",
        type=bounds.TIMEOUT.flag("--timeout"),
        default=None,
        metavar="S",
        help="export --otlp: give up on an endpoint that does not answer within S seconds, retries included "
        "(default 15)",
    )
    trace.add_argument(
        "--repeat-index",
        type=bounds.REPEAT_INDEX.flag("--repeat-index"),
        default=0,
        help="which repeat of the question (default 0)",
    )
    trace.set_defaults(handler=handle_trace)


def run_row(run: RunRecord) -> dict:
    """One run as `playground runs` shows it: id, status, settings, counts and scores."""
    from playground.runs.config import RunConfig

    try:
        settings = RunConfig.from_dict(run.config).settings()
    except PlaygroundError:
        settings = {}
    return {
        "id": run.id,
        "run_id": run.id,
        "label": run.label,
        "status": run.status,
        "status_reason": run.status_reason,
        "worker": {
            "pid": run.worker_pid,
            "host": run.worker_host,
            "heartbeat_at": run.heartbeat_at,
        },
        "session_id": run.session_id,
        "created_at": run.created_at,
        "settings": settings,
        "n_done": run.n_done,
        "n_planned": run.n_planned,
        "errors": run.errors,
        "tokens": run.tokens,
        "seconds": run.seconds,
        "metrics": run.metrics,
    }


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):
        return ",".join(str(v) for v in value.values())
    return str(value)


def _judge_cell(summary) -> str:
    """A judge metric's mean over the scored answers, and how many answers the judge failed on (never a score)."""
    if summary is None:
        return "-"
    text = _cell(summary["mean"])
    return f"{text} ({summary['errors']} err)" if summary["errors"] else text


def handle_runs(args) -> int:
    from playground.evaluation.scoring import summary_metrics
    from playground.runs.jobs import checked_runs

    from playground.evaluation.judges.registry import answer_judge_metrics
    from playground.evaluation.judges.judge_metrics import judge_summary

    from playground.runs.passage_gaps import gap_text, passage_gaps, retriever_analyser

    with workspace_for(args, create=False) as workspace:
        runs = checked_runs(workspace, session_id=args.session)
        gaps = passage_gaps(workspace, [run.id for run in runs])
        rows = [
            {**run_row(run), "judges": judge_summary(workspace, run.id), "no_passage": _gap_record(gaps, run)}
            for run in runs
        ]
    scored = {name for row in rows for name in row["metrics"]}
    metrics = [name for name in summary_metrics() if name in scored]  # the registry's headline metrics these runs have
    judged = {name for row in rows for name in row["judges"]}
    judge_metrics = [name for name in answer_judge_metrics() if name in judged]
    header = [
        "id",
        "created",
        "status",
        "dataset",
        "program",
        "template",
        "retriever",
        "k",
        "model",
        "n",
        *metrics,
        *judge_metrics,
        "errors",
        "label",
    ]
    table = []
    for row in rows:
        s = row["settings"]
        table.append(
            [
                row["id"],
                timestamp(row["created_at"]),
                row["status"],
                _cell(s.get("dataset")),
                _cell(s.get("program")),
                _cell(s.get("templates")),
                _cell(s.get("retriever")),
                _cell(s.get("k")),
                _cell(s.get("model")),
                f"{row['n_done']}/{row['n_planned']}",
                *[_cell(row["metrics"].get(name)) for name in metrics],
                *[_judge_cell(row["judges"].get(name)) for name in judge_metrics],
                str(row["errors"]),
                row["label"] or "",
            ]
        )
    gap_lines = [
        f"run {row['id']}: {line}"
        for row, run in zip(rows, runs)
        if (line := gap_text(gaps.get(run.id), retriever_analyser(run.config or {})))
    ]
    text = (
        "\n".join([text_table(header, table), *gap_lines]) if rows else "no runs yet (start one with `playground run`)"
    )
    emit(args, rows, text)
    return 0


def _gap_record(gaps: dict, run: RunRecord):
    """{"questions", "retrieving"}: a retrieving run's answers that got no passage (None for a closed-book run)."""
    gap = gaps.get(run.id)
    return None if gap is None else {"questions": gap.without, "retrieving": gap.retrieving}


def _brief(span: dict) -> str:
    """The one thing worth seeing on a span's line: its query, answer, text or error. A span's inputs and outputs are
    free-form objects (a program's, a plugin's, an imported file's): one whose shape is not its kind's usual one is
    shown as its JSON, never an error."""
    try:
        return _usual_brief(span)
    except (TypeError, KeyError, AttributeError, ValueError):
        return _shorten(json.dumps(span["outputs"], ensure_ascii=False, default=str))


def _retrieve_brief(inputs: dict, outputs: dict) -> str:
    hits = ", ".join(f"{h['id']}({h['score']:.2f})" for h in outputs.get("hits", []))
    return f"{inputs.get('query', '')!r} -> {hits}"


def _render_brief(inputs: dict, outputs: dict) -> str:
    version = inputs.get("prompt_version") or ""
    return f"{inputs.get('template')}@{version[:8]} -> {len(outputs.get('messages', []))} message(s)"


def _claim_brief(inputs: dict, outputs: dict) -> str:
    where = f" [{outputs['passage']}]" if outputs.get("passage") else ""
    return f"{outputs.get('verdict')}{where}: {inputs.get('claim', '')!r}"


def _sentence_brief(inputs: dict, outputs: dict) -> str:
    return f"{'supported' if outputs.get('supported') else 'not supported'} {inputs.get('cites')}: " + repr(
        inputs.get("sentence", "")
    )


# Each span kind's line in `trace`: its query, answer or text; any other kind's outputs as JSON.
BRIEFS: dict[str, Callable[[dict, dict], str]] = {
    SpanKind.RETRIEVE: _retrieve_brief,
    SpanKind.RENDER: _render_brief,
    SpanKind.GENERATE: lambda inputs, outputs: repr(_shorten(outputs.get("text", ""))),
    SpanKind.PARSE: lambda inputs, outputs: f"-> {outputs.get('answer')!r}",
    SpanKind.CLAIM: _claim_brief,
    SpanKind.PASSAGE: lambda inputs, outputs: (
        f"{'relevant' if outputs.get('relevant') else 'not relevant'}: {inputs.get('passage_id')}"
    ),
    SpanKind.SENTENCE: _sentence_brief,
    SpanKind.PROGRAM: lambda inputs, outputs: f"{inputs.get('question', '')!r} -> {outputs.get('answer')!r}",
}


def _usual_brief(span: dict) -> str:
    inputs, outputs = span["inputs"], span["outputs"]
    if span["error"]:
        return f"ERROR {span['error']}"
    if span["kind"] in BRIEFS:
        return BRIEFS[span["kind"]](inputs, outputs)
    return _shorten(json.dumps(outputs, ensure_ascii=False, default=str))


def _shorten(text: str, limit: int = 100) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def format_tree(nodes: list[dict], depth: int = 0) -> list[str]:
    lines = []
    for node in nodes:
        tags = []
        if node["prompt_tokens"] or node["completion_tokens"]:
            tags.append(f"{node['prompt_tokens']}+{node['completion_tokens']} tok")
        if node["cached"]:
            tags.append("cached")
        if isinstance(node["outputs"].get("truncation"), dict):
            tags.append(f"truncated -{node['outputs']['truncation'].get('dropped_tokens')} tok")
        tag_text = f" [{', '.join(tags)}]" if tags else ""
        lines.append(
            f"{'  ' * depth}{node['kind']} {one_line(node['name'])} {node['duration_s'] * 1000:.1f}ms{tag_text}  "
            f"{one_line(_brief(node))}"
        )
        lines.extend(format_tree(node["children"], depth + 1))
    return lines


def handle_trace(args) -> int:
    from playground.programs.tracing import span_tree

    if args.run_id == "export":
        return handle_trace_export(args)
    given = [flag for flag, value in (("--otlp", args.otlp), ("-o", args.output), ("--project", args.project),
             ("--timeout", args.timeout)) if value is not None] + (["--force"] if args.force else [])  # fmt: skip
    if given:
        raise PlaygroundError(f"{', '.join(given)} only apply to `trace export RUN_ID`")
    if args.question_id is None:
        raise PlaygroundError("`trace RUN_ID QUESTION_ID` needs the question's id (see `playground runs`)")
    from playground.store.runs import get_result, get_run, get_spans

    with workspace_for(args, create=False) as workspace:
        run = get_run(workspace, args.run_id)
        result = get_result(workspace, run.id, args.question_id, args.repeat_index)
        spans = get_spans(workspace, run.id, args.question_id, args.repeat_index)
        judgments = judgment_trees(workspace, run.id, args.question_id, args.repeat_index)
    tree = span_tree(spans)
    payload = {
        "run_id": run.id,
        "question_id": args.question_id,
        "repeat": args.repeat_index,
        "result": result,
        "spans": tree,
        "judgments": judgments,
    }
    head = (
        f"run {run.id} question {args.question_id}: prediction {result['prediction']!r}"
        + (f"  error: {result['error']}" if result["error"] else "")
        + f"  scores: {', '.join(f'{k}={v:.2f}' for k, v in sorted(result['scores'].items()))}"
    )
    lines = [head, *format_tree(tree)]
    for judgment in judgments:
        outcome = f"ERROR {judgment['error']}" if judgment["error"] else f"score {_cell(judgment['score'])}"
        lines.append(
            f"judged {judgment['kind']} by judge {judgment['judge_id']} (sample {judgment['sample_index']}): "
            f"{one_line(outcome)}" + (f"  {one_line(judgment['verdict'])}" if judgment["verdict"] else "")
        )
        lines.extend(format_tree(judgment["spans"], 1))
    emit(args, payload, "\n".join(lines))
    return 0


def judgment_trees(workspace, run_id: str, question_id: str, repeat: int) -> list[dict]:
    """The judgments of one answer of a run (not pairwise ones it is the other side of), each with its span tree:
    how each judge score was reached."""
    from playground.programs.tracing import span_tree
    from playground.store.judgments import get_judge_spans, list_judgments

    found = [
        j
        for j in list_judgments(workspace, run_id=run_id, question_id=question_id)
        if j["run_id"] == run_id and int(j["result_repeat"]) == repeat
    ]
    keys = ("id", "kind", "judge_id", "sample_index", "score", "verdict", "reason", "error", "created_at")
    return [{**{k: j[k] for k in keys}, "spans": span_tree(get_judge_spans(workspace, j["id"]))} for j in found]


def handle_trace_export(args) -> int:
    """`trace export RUN_ID --otlp URL | -o FILE`: every question's spans as OpenTelemetry/OpenInference spans."""
    from playground.traces import DEFAULT_PROJECT, send_otlp, write_otlp_json

    if args.question_id is None:
        raise PlaygroundError("`trace export` needs the RUN_ID of the run to export (see `playground runs`)")
    if args.repeat_index:
        raise PlaygroundError("--repeat-index does not apply to `trace export` (every repeat is exported)")
    if args.timeout is not None and args.otlp is None:
        raise PlaygroundError("--timeout only applies to `trace export --otlp`")
    if (args.otlp is None) == (args.output is None):
        raise PlaygroundError("`trace export RUN_ID` needs exactly one of --otlp URL and -o FILE")
    project = args.project or DEFAULT_PROJECT
    with workspace_for(args, create=False) as workspace:
        if args.otlp is not None:
            summary = send_otlp(workspace, args.question_id, args.otlp, project, args.timeout or 15.0)
        else:
            summary = write_otlp_json(workspace, args.question_id, args.output, project, force=args.force)
    payload = {"run_id": summary.run_id, "traces": summary.traces, "spans": summary.spans, "to": summary.target}
    if args.output == "-":
        return 0
    emit(args, payload, f"exported {summary.spans} spans of {summary.traces} traces of run {summary.run_id} "
         f"to {summary.target}")  # fmt: skip
    return 0
