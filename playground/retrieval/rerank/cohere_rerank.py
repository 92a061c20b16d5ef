"""`cohere`: Cohere's rerank endpoint through the cohere SDK (POST /v2/rerank), sent over the bounded HTTP client
and retried like a model call. Key from CO_API_KEY, base URL from CO_API_URL (or MODEL@URL)."""

from __future__ import annotations

import os

from playground import PlaygroundError
from playground.retrieval.rerank.base import RerankScores
from playground.retrieval.stage_model import ModelCost


class CohereReranker:
    def __init__(self, model: str, workspace=None):
        import cohere

        from playground.models.bounded_http import bounded_client
        from playground.models.cohere_chat import DEFAULT_COHERE_URL
        from playground.models.retry import RetryPolicy
        from playground.models.secrets import key_or_env

        name, _, url = model.partition("@")
        key, _ = key_or_env(None, "CO_API_KEY")
        if not key:
            raise PlaygroundError("reranker 'cohere' needs an API key: set CO_API_KEY")
        self.model = name
        self.base_url = (url or os.environ.get("CO_API_URL") or DEFAULT_COHERE_URL).rstrip("/")
        self.policy = RetryPolicy()
        self.client = cohere.ClientV2(
            api_key=key,
            base_url=self.base_url,
            timeout=self.policy.timeout_s,
            max_retries=0,
            log_warning_experimental_features=False,
            httpx_client=bounded_client(follow_redirects=True),
        )

    def score(self, query: str, texts: list[str]) -> RerankScores:
        from playground.models.cohere_chat import classify_cohere_error
        from playground.models.retry import call_with_retry, gate_for

        answer = call_with_retry(
            lambda: self.client.rerank(model=self.model, query=query, documents=texts, top_n=len(texts)),
            classify_cohere_error,
            self.policy,
            f"cohere rerank {self.model}",
            gate=gate_for(self.base_url),
        )
        scores = [0.0] * len(texts)
        for result in answer.results or []:
            if not 0 <= result.index < len(texts):
                raise PlaygroundError(f"cohere rerank answered index {result.index} for {len(texts)} documents")
            scores[result.index] = float(result.relevance_score)
        return RerankScores(scores=scores, cost=ModelCost(calls=1))
