"""The run option that judges (`playground run ... --judge faithfulness`): once the run has answered, in the same
call, each named gold-free judge scores its answers, so the scores are metrics of the run from the start (read back
by evaluation.judges.judge_metrics, as `playground judge KIND RUN` would leave them). A judge's failure is a recorded
judge error, never a score; a judge that cannot start leaves the run stored and says how to judge it later."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from playground import PlaygroundError
from playground.progress import ProgressCallback


@dataclass(frozen=True)
class RunJudges:
    """Judges of a run's answers (registry.answer_judges(): faithfulness, context-precision, ..., plugin judges) to score a run with, and the
    judge's settings (a JudgeConfig; None: the default judge). `model` is an already loaded judge model (tests, app)."""

    kinds: tuple[str, ...]
    config: Any = None
    model: Any = None
    deadline_s: Optional[float] = None
    no_claims: str = "skip"

    def __post_init__(self) -> None:
        check_judge_kinds(self.kinds)


def check_judge_kinds(kinds: Sequence[str]) -> tuple[str, ...]:
    """The kinds, each a judge of a run's answers (the gold-free ones and plugin judges), named once; else one line naming the unknown one and the known ones."""
    from playground.evaluation.judges.registry import answer_judges

    known = answer_judges()
    for kind in kinds:
        if kind not in known:
            raise PlaygroundError(f"--judge {kind!r}: no such judge (known: {', '.join(known)})")
    return tuple(dict.fromkeys(kinds))


def check_passages_shown(judges: Optional[RunJudges], config: Any) -> None:
    """A judge that checks answers against the passages their prompt showed needs a run that shows some: refused in
    one line, before anything runs, for a program that retrieves none (closed book) or a run with -k 0."""
    if judges is None:
        return
    from playground.evaluation.judges.registry import answer_judges
    from playground.programs.registry import get_program

    needing = [kind for kind in check_judge_kinds(judges.kinds) if answer_judges()[kind].needs_passages]
    if not needing:
        return
    if not get_program(config.program).needs_retriever:
        shown = f"program {config.program!r} retrieves none (closed book)"
    elif config.k == 0:
        shown = "-k 0 retrieves none"
    else:
        return
    raise PlaygroundError(
        f"--judge {', '.join(needing)} checks each answer against the passages its prompt showed, and {shown}: "
        "run a program that retrieves (e.g. --program rag), or judge with answer-relevance"
    )


def judge_run(
    workspace, run_id: str, judges: RunJudges, on_progress: Optional[ProgressCallback] = None
) -> dict[str, dict]:
    """Judge a stored run with each of `judges` in turn; {kind: the judge's report}."""
    from playground.evaluation.judges.answers import judge_answers

    reports = {}
    for kind in check_judge_kinds(judges.kinds):
        try:
            reports[kind] = judge_answers(
                workspace,
                kind,
                run_id,
                judges.config,
                model=judges.model,
                on_progress=on_progress,
                deadline_s=judges.deadline_s,
                no_claims=judges.no_claims,  # a setting of the judges that take it (registry: Judge.settings)
            )
        except PlaygroundError as error:
            raise PlaygroundError(
                f"run {run_id} answered and is stored, but judging it for {kind} failed: {error} "
                f"(judge it again: playground judge {kind} {run_id} --judge-model SPEC)"
            ) from error
    return reports
