"""What a reranker returns for one query: a score per passage (higher first) and the model calls it made, checked
at the boundary so a plugin's bad answer is named, never a crash of the stage."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from playground import PlaygroundError
from playground.retrieval.stage_model import ModelCost


@dataclass
class RerankScores:
    """One relevance score per passage, in the order the passages were given; `cost`: the calls behind them."""

    scores: list[float]
    cost: ModelCost = field(default_factory=ModelCost)
    notes: dict[str, Any] = field(default_factory=dict)  # e.g. verdicts a model gave that could not be read


def checked_scores(kind: str, value: Any, n: int) -> RerankScores:
    """A reranker's answer as RerankScores: n finite numbers, or a PlaygroundError naming the reranker."""
    scored = value if isinstance(value, RerankScores) else RerankScores(scores=value)
    scores = scored.scores
    if not isinstance(scores, (list, tuple)) or len(scores) != n:
        got = f"{len(scores)} scores" if isinstance(scores, (list, tuple)) else type(scores).__name__
        raise PlaygroundError(f"reranker {kind!r} returned {got} for {n} passages (one score per passage expected)")
    for position, score in enumerate(scores, 1):
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(float(score)):
            raise PlaygroundError(f"reranker {kind!r} gave passage {position} the score {score!r}, not a finite number")
    scored.scores = [float(score) for score in scores]
    return scored
