"""Runs with planted grades for the prediction-powered tests: 80 questions, each answer carrying the grade the judge
server (graded_server.py) will give it, one grade more generous than the people's value for most questions."""

from __future__ import annotations

import random

from playground.data.records import Dataset, Question
from playground.store.datasets import save_dataset
from tests.evaluation.judges.conftest import make_run

N_QUESTIONS = 80
GARBLED = "pq07"  # the judge server replies prose for it: a judge error


def planted(
    workspace, seed: int = 28, lift: float = 0.0, new_dataset: bool = True
) -> tuple[str, dict[str, float], dict[str, float]]:
    """A run of 80 questions; the people's value of each (0-1) and the judge's score, one grade too generous.
    `lift`: the chance each question's true grade is one higher (a better variant)."""
    rng = random.Random(seed)
    truth_grade = {f"pq{i:02d}": rng.randint(1, 4) for i in range(N_QUESTIONS)}
    truth_grade = {qid: grade + (1 if rng.random() < lift else 0) for qid, grade in truth_grade.items()}
    judge_grade = {qid: min(5, grade + (1 if rng.random() < 0.8 else 0)) for qid, grade in truth_grade.items()}
    if new_dataset:
        questions = [Question(qid, f"Planted question {qid}?", ["x"], []) for qid in truth_grade]
        save_dataset(workspace, "planted", Dataset(format="jsonl", source="test", passages=[], questions=questions))
    answers = {qid: ("garbled" if qid == GARBLED else f"answer {seed} grade {judge_grade[qid]}") for qid in truth_grade}
    run_id = make_run(workspace, answers, dataset="planted")
    people = {qid: (grade - 1) / 4 for qid, grade in truth_grade.items()}
    judge = {qid: (grade - 1) / 4 for qid, grade in judge_grade.items() if qid != GARBLED}
    return run_id, people, judge


def judged_pair(workspace, judge_spec: str) -> list[tuple[str, dict[str, float]]]:
    """Two planted runs (B better), both judged for answer relevance: [(run id, the people's values)] for A and B."""
    from playground.evaluation.judges.answers import judge_answers
    from playground.evaluation.judges.judge_config import JudgeConfig
    from playground.models.base import GenerationParams

    run_a, people_a, _ = planted(workspace, 1)
    run_b, people_b, _ = planted(workspace, 2, lift=0.6, new_dataset=False)
    for run_id in (run_a, run_b):
        config = JudgeConfig(model=judge_spec, params=GenerationParams(max_tokens=256))
        judge_answers(workspace, "answer-relevance", run_id, config)
    return [(run_a, people_a), (run_b, people_b)]


def rate_pair(workspace, pair: list[tuple[str, dict[str, float]]], n: int = 40, seed: int = 3) -> None:
    """Draw a sample of `n` in each run and rate it with the planted people's values."""
    from playground.evaluation.agreement.rated import draw_sample, import_ratings

    for run_id, people in pair:
        drawn = draw_sample(workspace, run_id, n, seed)["question_ids"]
        import_ratings(workspace, run_id, [f'{{"question_id": "{q}", "value": {people[q]}}}' for q in drawn])
