"""`llm`: any model spec of the project judges each passage's relevance to the query, one JSON verdict per passage
(pointwise, as RankGPT's baselines and most LLM rerankers in production do); a verdict that cannot be read scores
0 and is counted, so one bad reply never stops the retrieval."""

from __future__ import annotations

from typing import Any, Optional

from playground.retrieval.rerank.base import RerankScores
from playground.retrieval.stage_model import ModelCost, StageModel, json_object

SYSTEM = "You judge whether a passage helps answer a question. Reply with one JSON object only."
USER = (
    "Question: {query}\n"
    "Passage: {text}\n\n"
    "How relevant is the passage to the question, from 0 (unrelated) to 10 (it holds the answer)?\n"
    'Reply in JSON: {{"score": a whole number from 0 to 10, "reason": why, in a few words}}'
)
MAX_SCORE = 10.0


def verdict_score(reply: str) -> Optional[float]:
    """The 0-10 score a reply gives ({"score": 7}, or {"relevant": true} as 10), None when it gives none."""
    found: Any = json_object(reply)
    if not found:
        return None
    score = found.get("score", found.get("relevance"))
    if isinstance(score, str):
        try:
            score = float(score.strip())
        except ValueError:
            score = None
    if isinstance(score, (int, float)) and not isinstance(score, bool) and score == score:
        return max(0.0, min(MAX_SCORE, float(score)))
    relevant = found.get("relevant")
    return (MAX_SCORE if relevant else 0.0) if isinstance(relevant, bool) else None


class LLMReranker:
    """One model call per passage, through the response cache."""

    def __init__(self, model: str, workspace=None):
        self.model = StageModel(model, workspace)

    def score(self, query: str, texts: list[str]) -> RerankScores:
        cost = ModelCost()
        scores, unreadable = [], 0
        for text in texts:
            reply = self.model.ask(SYSTEM, USER.format(query=query, text=text), cost, max_tokens=96, as_json=True)
            score = verdict_score(reply)
            if score is None:
                unreadable += 1
            scores.append(0.0 if score is None else score)
        return RerankScores(scores=scores, cost=cost, notes={"unreadable_verdicts": unreadable} if unreadable else {})
