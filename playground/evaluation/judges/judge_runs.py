"""Run any registered judge: the one entry point the CLI, the app and `run --judge` call. A judge of each answer
goes through the shared loop (answers.py); a judge with its own whole-run loop (two runs
compared: pairwise) through its record's `judge_run`. Options every judge takes are passed on; a judge's own settings
(registry: Judge.settings, e.g. criteria, no_claims) only to the judge that names them."""

from __future__ import annotations

from typing import Any, Sequence

from playground import PlaygroundError

COMMON_OPTIONS = ("repeat", "answer_field", "model", "use_cache", "on_progress", "deadline_s")


def run_judge(workspace, name: str, run_ids: Sequence[str], config=None, **options: Any) -> dict:
    """The judge `name`'s report on `run_ids` (one run, or two for a judge that compares runs)."""
    from playground.evaluation.judges.registry import judge_record
    from playground.plugins import load_ref

    record = judge_record(name)
    if len(run_ids) != record.runs:
        raise PlaygroundError(f"judge {name!r} takes {record.runs} run(s), not {len(run_ids)}")
    unknown = sorted(set(options) - set(COMMON_OPTIONS) - set(_all_settings()))
    if unknown:
        raise PlaygroundError(f"judge {name!r}: unknown option(s) {', '.join(unknown)}")
    given = {key: value for key, value in options.items() if key in COMMON_OPTIONS or key in record.settings}
    if record.scores_answers:
        from playground.evaluation.judges.answers import judge_answers

        return judge_answers(workspace, name, run_ids[0], config, **given)
    return load_ref(record.judge_run, f"judge {name!r}")(workspace, list(run_ids), config, **given)


def _all_settings() -> set[str]:
    from playground.evaluation.judges.registry import judges

    return {setting for judge in judges().values() for setting in judge.settings}
