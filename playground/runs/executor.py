"""The executor: answer a plan's missing questions with up to N requests in flight, each within its deadline.

Worker threads take (position, question, repeat) items in sample order, answer each on their own read
connection, and hand the result with its spans to the recorder; the calling thread reports progress and decides
when to stop. A question whose model call finally fails gets the error on its result; any other error stops the
run. Results do not depend on the number of workers: each question's answer depends only on the plan.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import Callable, Optional

from playground.data.records import Question
from playground.progress import ProgressCallback, report
from playground.runs.plan import Bound
from playground.runs.recorder import Recorder
from playground.store.db import Workspace, connect_again
from playground.store.values import now

ShouldStop = Callable[[], bool]
Item = tuple[int, Question, int]  # (position in the sample, question, repeat)


@dataclass
class Outcome:
    """How an execution ended: status (done, stopped, interrupted, failed), why, and the error that failed it."""

    status: str
    reason: Optional[str] = None
    error: Optional[BaseException] = None
    answered: int = 0


def _score(bound: Bound, workspace: Workspace, question: Question, output) -> dict:
    """Every registered metric: the benchmark's (HotpotQA's official ones for HotpotQA, with supporting facts when
    the program names them in extra["supporting_facts"]), and the share of gold passages a retrieving program used
    (on a documents corpus, of the question's gold spans a used passage overlaps, as retrieval evaluation counts)."""
    from playground.evaluation.scoring import score_item, scoring_item
    from playground.evaluation.span_gold import span_recall_labels

    used, gold = output.used_passage_ids if bound.plan.program.needs_retriever else None, question.gold_passage_ids
    by_spans = span_recall_labels(workspace, bound.context.corpus, question, used) if used is not None else None
    if by_spans is not None:
        used, gold = by_spans
    item = scoring_item(
        output.answer,
        question.answers,
        question.choices or None,
        benchmark_format=bound.plan.benchmark_format,
        gold_facts=question.metadata.get("supporting_facts"),
        predicted_facts=output.extra.get("supporting_facts"),
        used_passage_ids=used,
        gold_passage_ids=gold,
        answer_rule=bound.plan.answer_rule,
    )
    return score_item(item)


def answer_question(
    bound: Bound, workspace: Workspace, run_id: str, item: Item, deadline_s: Optional[float] = None, cache_writer=None
) -> tuple[dict, list[dict]]:
    """Run the program on one question (within its deadline) through the programs' one answering call; returns the
    result row and its span rows."""
    import dataclasses

    from playground.deadlines import question_deadline
    from playground.programs.answer import answer

    position, question, repeat = item
    context = dataclasses.replace(bound.context, workspace=workspace, cache_writer=cache_writer)
    with question_deadline(deadline_s):
        answered = answer(bound.plan.program, context, question, repeat)
    output = answered.output
    with question_deadline(deadline_s):  # a plugin metric gets as long as the answer had
        scores = _score(bound, workspace, question, output) if output else {}
    result = {
        "run_id": run_id,
        "question_id": question.id,
        "repeat": repeat,
        "position": position,
        "prediction": output.answer if output else None,
        "output": output.output if output else None,
        "scores": scores,
        "error": answered.error,
        "prompt_tokens": answered.prompt_tokens,
        "completion_tokens": answered.completion_tokens,
        "latency_s": answered.latency_s,
        "cached": int(answered.cached),
        "created_at": now(),
    }
    return result, answered.span_rows(run_id, question.id, repeat)


def execute(
    bound: Bound,
    run_id: str,
    todo: list[Item],
    recorder: Recorder,
    workers: int,
    *,
    total: int,
    finished: int,
    deadline_s: Optional[float] = None,
    on_progress: Optional[ProgressCallback] = None,
    should_stop: Optional[ShouldStop] = None,
) -> Outcome:
    """Answer `todo` with up to `workers` in flight; returns when all are answered, a stop is asked, or one fails.

    The calling thread hands out one item per free worker, in sample order, and checks for a stop before each, so
    with one worker a stop lands exactly between two questions, as in a plain loop.
    """
    items: queue.Queue = queue.Queue()
    events: queue.Queue = queue.Queue()
    run_workspace = bound.context.workspace
    workers = max(1, min(workers, len(todo) or 1))

    def work() -> None:
        workspace = None
        try:
            workspace = connect_again(run_workspace)
            while (item := items.get()) is not None:
                result, spans = answer_question(bound, workspace, run_id, item, deadline_s, recorder.store_cache)
                recorder.save(result, spans)
                events.put(("answered", item))
        except BaseException as error:  # noqa: BLE001 - handed to the calling thread, which ends the run with it
            events.put(("error", error))
        finally:
            if workspace is not None:
                workspace.close()

    pending = list(reversed(todo))
    threads = [threading.Thread(target=work, name=f"run-{run_id}-{n}", daemon=True) for n in range(workers)]
    for thread in threads:
        thread.start()
    outcome = Outcome("done")
    in_flight = 0
    report(on_progress, finished, total, "")
    try:
        while True:
            if outcome.status == "done":
                if recorder.failure:
                    outcome = Outcome("interrupted", recorder.failure, None, outcome.answered)
                elif recorder.stop_requested or (should_stop is not None and should_stop()):
                    outcome = Outcome("stopped", "stopped on request", None, outcome.answered)
            while outcome.status == "done" and pending and in_flight < workers:
                items.put(pending.pop())
                in_flight += 1
            if not in_flight:
                break
            try:
                event = events.get(timeout=0.25)
            except queue.Empty:
                continue
            in_flight -= 1
            if event[0] == "answered":
                finished += 1
                outcome.answered += 1
                report(on_progress, finished, total, event[1][1].id)
            elif outcome.error is None:
                error = event[1]
                outcome = Outcome("failed", f"{type(error).__name__}: {error}", error, outcome.answered)
                threads = [t for t in threads if t.is_alive()]
    finally:
        for _ in threads:
            items.put(None)
    for thread in threads:
        thread.join()
    return outcome
