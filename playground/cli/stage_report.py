"""What `eval-retrieval` prints for a staged retrieval: each metric after each stage with the cost it added, then
per question how each gold passage moved (rank after retrieval -> after reranking)."""

from __future__ import annotations

from playground.evaluation.retrieval import RETRIEVAL_METRICS
from playground.evaluation.stage_scores import moved_gold, rank_text
from playground.terminal_text import one_line

MAX_QUESTION_LINES = 30


def _stage_line(row: dict, k: int) -> str:
    metrics = "  ".join(f"{name.replace('@k', f'@{k}')} {row[name]:.3f}" for name in RETRIEVAL_METRICS if name in row)
    cost = f"p50 {row['p50_ms']:.2f} ms  p95 {row['p95_ms']:.2f} ms"
    if row["model_calls"]:
        cost += f"  {row['model_calls']} model call(s) ({row['cached_calls']} cached)"
        cost += f", {row['prompt_tokens'] + row['completion_tokens']} tokens"
    return f"  {row['stage']:<8} {one_line(row['name']):<14} {metrics + '  ' if metrics else ''}{cost}"


def stage_lines(result: dict, k: int) -> list[str]:
    lines = ["after each stage:"] + [_stage_line(row, k) for row in result["stages"]]
    moved = [question for question in result["per_question"] if question["moves"]]
    if moved:
        counts = moved_gold(moved)
        lines.append(
            f"gold moved by reranking (rank after retrieval -> after reranking): {counts['up']} up, "
            f"{counts['down']} down, {counts['same']} unchanged"
        )
        for question in moved[:MAX_QUESTION_LINES]:
            cells = ", ".join(
                f"{one_line(gold)} {rank_text(before)} -> {rank_text(after)}"
                for gold, (before, after) in question["moves"].items()
            )
            added = " ".join(
                f"{stage['stage']} {stage['latency_ms']:.1f} ms"
                + (f"/{stage['model_calls']} call(s)" if stage["model_calls"] else "")
                for stage in question["stages"]
            )
            lines.append(f"  {one_line(question['question_id'])}: {cells}  ({added})")
        if len(moved) > MAX_QUESTION_LINES:
            lines.append(f"  ... {len(moved) - MAX_QUESTION_LINES} more (--json has every question)")
    return lines
