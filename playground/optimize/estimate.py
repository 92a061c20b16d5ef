"""What a prompt search will cost before it starts (the Optimise tab's estimate, `playground optimize --dry-run`):
answers per split and per successive-halving rung, proposal calls, and model calls at the program's calls per answer.

An upper bound on the plan as the search lays it out (answers the response cache already holds cost nothing)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from playground.optimize.candidates import round_quotas
from playground.optimize.search import rung_sizes
from playground.optimize.splits import split_questions


@dataclass(frozen=True)
class SearchEstimate:
    """The answers and model calls a search plans, split by what they are for."""

    train: int
    validation: int
    test: int
    start_answers: int  # the start on train and on validation
    candidate_answers: int  # every rung of successive halving, every round
    held_out_answers: int  # the finalists and the start on the held-out questions
    proposals: int  # calls to the proposer model
    calls_per_answer: int

    @property
    def answers(self) -> int:
        return self.start_answers + self.candidate_answers + self.held_out_answers

    @property
    def model_calls(self) -> int:
        return self.answers * self.calls_per_answer + self.proposals

    def text(self) -> str:
        calls = "" if self.calls_per_answer == 1 else f" x {self.calls_per_answer} calls each"
        return (
            f"{self.train} train, {self.validation} validation, {self.test} held-out questions · at most "
            f"{self.answers:,} answers (start {self.start_answers:,}, candidates {self.candidate_answers:,}, "
            f"held-out {self.held_out_answers:,}){calls} + {self.proposals} proposal call(s) = "
            f"about {self.model_calls:,} model calls"
        )


def halving_answers(n_candidates: int, n_validation: int, min_batch: int, keep: int) -> int:
    """Answers successive halving asks for: each rung's survivors on that rung's minibatch (as search.py does)."""
    if n_candidates < 1 or n_validation < 1:
        return 0
    sizes = rung_sizes(n_candidates, n_validation, min_batch)
    survivors, rung, total = n_candidates, 0, 0
    while rung < len(sizes):
        total += survivors * sizes[rung]
        survivors = max(keep, math.ceil(survivors / 2))
        rung = len(sizes) - 1 if survivors <= keep and rung < len(sizes) - 1 else rung + 1
    return total


def estimate_search(
    n_questions: int,
    split: tuple[int, int, int],
    budget: int,
    *,
    rounds: int = 1,
    finalists: int = 1,
    min_batch: int = 4,
    calls_per_answer: int = 1,
) -> SearchEstimate:
    """The plan of a search over `n_questions` (after any sample) split `split`, proposing `budget` candidates."""
    sizes = {name: len(ids) for name, ids in split_questions([str(i) for i in range(n_questions)], split, 0).items()}
    train, validation, test = sizes["train"], sizes["validation"], sizes["test"]
    quotas = round_quotas(budget, rounds)
    candidates = sum(halving_answers(quota, validation, min_batch, finalists) for quota in quotas)
    return SearchEstimate(
        train=train,
        validation=validation,
        test=test,
        start_answers=train + validation,
        candidate_answers=candidates,
        held_out_answers=(min(finalists, budget) + 1) * test,
        proposals=budget,
        calls_per_answer=max(1, calls_per_answer),
    )
