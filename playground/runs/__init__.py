"""Runs: a program over a seeded benchmark sample, stored question by question with full traces."""

from playground.runs.config import RunConfig
from playground.runs.execute import RunSummary, repeat_run, resume_run, run_summary, start_run

__all__ = ["RunConfig", "RunSummary", "start_run", "resume_run", "repeat_run", "run_summary"]
