"""LLM judges: pointwise G-Eval criteria, reference-guided checks, pairwise comparison with the swap rule, the
gold-free judges and plugin judges (registry.py lists them all), repeated judging (mean and std). Judge outputs are
stored by playground.store.judgments; their agreement with people is playground.evaluation.agreement."""

from playground.evaluation.judges.judge_config import JudgeConfig, LoadedJudge, resolve_judge, self_judging_warning
from playground.evaluation.judges.pairwise import judge_runs_pairwise
from playground.evaluation.judges.pointwise import HELPS_CRITERIA, Criterion, judge_run_pointwise, parse_criteria
from playground.evaluation.judges.reference import judge_run_reference

__all__ = [
    "Criterion",
    "HELPS_CRITERIA",
    "JudgeConfig",
    "LoadedJudge",
    "judge_run_pointwise",
    "judge_run_reference",
    "judge_runs_pairwise",
    "parse_criteria",
    "resolve_judge",
    "self_judging_warning",
]
