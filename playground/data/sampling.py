"""Seeded sampling: the same benchmark, N and seed pick the same questions every time."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Optional

from playground.data.records import Question


def _stratum(question: Question) -> tuple:
    return tuple(sorted(question.tags.items()))


def sample_questions(questions: list[Question], n: Optional[int], seed: int = 0) -> list[Question]:
    """Pick n questions with a private RNG; stratified by tags (proportional, largest remainder) when they exist.

    The result keeps the benchmark's order, so a larger sample with the same seed is easy to read against a smaller one.
    A sample of 0 (or NaN, or a billion) is refused by the one bound every command and form shares.
    """
    from playground.bounds import SAMPLE, SEED

    if n is not None:
        n = int(SAMPLE.check(n))
    seed = int(SEED.check(seed))
    if n is None or n >= len(questions):
        return list(questions)
    rng = random.Random(f"playground-sample:{seed}")
    strata: dict[tuple, list[int]] = defaultdict(list)
    for index, question in enumerate(questions):
        strata[_stratum(question)].append(index)
    if len(strata) == 1:
        chosen = rng.sample(range(len(questions)), n)
    else:
        keys = sorted(strata)
        exact = {key: n * len(strata[key]) / len(questions) for key in keys}
        quota = {key: int(exact[key]) for key in keys}
        leftover = n - sum(quota.values())
        for key in sorted(keys, key=lambda k: (-(exact[k] - quota[k]), k))[:leftover]:
            quota[key] += 1
        chosen = []
        for key in keys:
            chosen.extend(rng.sample(strata[key], quota[key]))
    return [questions[index] for index in sorted(chosen)]
