"""Runs: a program over a seeded benchmark sample, stored question by question with full traces.

plan.py resolves a run once, executor.py answers its questions (N in flight), recorder.py is its one writer and
heartbeat, jobs.py and worker.py run it detached; execute.py is the one call that starts, resumes and repeats runs;
variants.py runs an edited template, retriever and model (the app's Playground and Side by side) through it.
"""

from playground.runs.config import RunConfig
from playground.runs.execute import repeat_run, resume_run, start_run
from playground.runs.summary import RunSummary, run_summary
from playground.runs.plan import Execution

__all__ = ["RunConfig", "RunSummary", "Execution", "start_run", "resume_run", "repeat_run", "run_summary"]
