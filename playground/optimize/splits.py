"""Seeded, disjoint train / validation / held-out splits of a benchmark's questions."""

from __future__ import annotations

import random
from typing import Sequence

from playground import PlaygroundError

DEFAULT_SPLIT = (30, 40, 30)
SPLIT_NAMES = ("train", "validation", "test")


def parse_split(text: str) -> tuple[int, int, int]:
    """ "30/40/30" as three percentages (any three positive numbers: they are read as proportions)."""
    parts = (text or "").split("/")
    try:
        values = tuple(int(part.strip()) for part in parts)
    except ValueError:
        values = ()
    if len(values) != 3 or any(value <= 0 for value in values):
        raise PlaygroundError(f"--split {text!r}: write TRAIN/VALIDATION/TEST as three positive numbers, e.g. 30/40/30")
    return values  # type: ignore[return-value]


def split_questions(question_ids: Sequence[str], proportions: Sequence[int], seed: int) -> dict[str, list[str]]:
    """Shuffle the ids with a private RNG seeded by `seed`, then cut them in `proportions` (largest remainder).

    Each split keeps the shuffled order, so a validation minibatch of m is its first m ids. Every split gets at
    least one question, else the benchmark is too small to split.
    """
    ids = list(dict.fromkeys(question_ids))
    if len(ids) < 3:
        raise PlaygroundError(f"a search needs at least 3 questions to split (the benchmark has {len(ids)})")
    random.Random(f"playground-optimize-split:{seed}").shuffle(ids)
    total = sum(proportions)
    exact = [len(ids) * share / total for share in proportions]
    sizes = [int(value) for value in exact]
    for index in sorted(range(3), key=lambda i: (-(exact[i] - sizes[i]), i))[: len(ids) - sum(sizes)]:
        sizes[index] += 1
    for index in range(3):  # a split left empty borrows one question from the largest
        if sizes[index] == 0:
            sizes[sizes.index(max(sizes))] -= 1
            sizes[index] = 1
    cuts = [0, sizes[0], sizes[0] + sizes[1], len(ids)]
    return {name: ids[cuts[i] : cuts[i + 1]] for i, name in enumerate(SPLIT_NAMES)}
