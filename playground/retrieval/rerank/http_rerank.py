"""The `/rerank` wire shapes over plain HTTP: Text Embeddings Inference (`{query, texts}` -> `[{index, score}]`) and
Jina (`{model, query, documents}` -> `{results: [{index, relevance_score}]}`, as vLLM and Infinity also serve).
One bounded client for both: the question's deadline, the response size cap and the model calls' retries."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Optional

from playground import PlaygroundError
from playground.retrieval.rerank.base import RerankScores
from playground.retrieval.stage_model import ModelCost

JINA_URL = "https://api.jina.ai/v1/rerank"


class RerankRefused(Exception):
    """A rerank server's answer that is not a ranking; `failure` says whether to retry and why."""

    def __init__(self, failure):
        super().__init__(failure.message)
        self.failure = failure


def rerank_url(base: str) -> str:
    """BASE/rerank unless the URL already ends in /rerank (a query string stays)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(base)
    path = parts.path.rstrip("/")
    if not path.endswith("/rerank"):
        path += "/rerank"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _classify(error: BaseException):
    from playground.models.remote import is_transport_error, short
    from playground.models.retry import Failure

    if isinstance(error, RerankRefused):
        return error.failure
    if is_transport_error(error):
        return Failure(True, f"connection failed: {type(error).__name__}: {short(error)}")
    return Failure(False, f"{type(error).__name__}: {short(error)}")


class RerankClient:
    """POST a JSON body to one /rerank URL and read one score per text back with `read(data, n)`."""

    def __init__(self, what: str, url: str, key_env: str, read: Callable[[Any, int], list[float]]):
        from playground.models.bounded_http import bounded_client, max_response_bytes
        from playground.models.registry import check_url
        from playground.models.retry import RetryPolicy

        self.what = what
        self.url = rerank_url(check_url(url, what))
        self.key_env = key_env
        self.read = read
        self.policy = RetryPolicy()
        max_response_bytes()
        self._client = bounded_client(follow_redirects=True)

    def _post(self, body: dict, n: int) -> list[float]:
        import httpx

        from playground.models.remote import http_failure, short
        from playground.models.retry import Failure, attempt_timeouts

        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.key_env, "").strip()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        connect, read = attempt_timeouts(self.policy)
        response = self._client.post(self.url, json=body, headers=headers, timeout=httpx.Timeout(read, connect=connect))
        if response.status_code >= 400:
            raise RerankRefused(
                http_failure(response.status_code, short(response.text) or "(empty body)", response.headers)
            )
        try:
            return self.read(json.loads(response.text), n)
        except (ValueError, TypeError, KeyError, IndexError) as error:
            raise RerankRefused(Failure(False, f"not a rerank answer ({error}): {short(response.text, 200)}")) from None

    def scores(self, body: dict, n: int) -> list[float]:
        from playground.models.retry import call_with_retry, gate_for

        return call_with_retry(lambda: self._post(body, n), _classify, self.policy, self.what, gate=gate_for(self.url))


def _placed(pairs, n: int) -> list[float]:
    """Scores by index from (index, score) pairs; an index outside the texts, or a text left unscored, is refused."""
    scores: list[Optional[float]] = [None] * n
    for index, score in pairs:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
            raise IndexError(f"index {index!r} for {n} texts")
        scores[index] = float(score)
    missing = [i for i, score in enumerate(scores) if score is None]
    if missing:
        raise ValueError(f"no score for text {missing[0]}")
    return [float(score) for score in scores if score is not None]


def read_tei(data: Any, n: int) -> list[float]:
    return _placed(((item["index"], item["score"]) for item in data), n)


def read_jina(data: Any, n: int) -> list[float]:
    return _placed(((item["index"], item["relevance_score"]) for item in data["results"]), n)


class TEIReranker:
    """--rerank-model URL (the TEI server, with or without /rerank)."""

    def __init__(self, model: str, workspace=None):
        self.client = RerankClient(f"tei rerank {model}", model, "TEI_API_KEY", read_tei)

    def score(self, query: str, texts: list[str]) -> RerankScores:
        scores = self.client.scores({"query": query, "texts": texts, "raw_scores": False, "truncate": True}, len(texts))
        return RerankScores(scores=scores, cost=ModelCost(calls=1))


class JinaReranker:
    """--rerank-model MODEL or MODEL@URL (Jina's API by default)."""

    def __init__(self, model: str, workspace=None):
        name, _, url = model.partition("@")
        if not name:
            raise PlaygroundError(f"reranker 'jina': --rerank-model {model!r} names no model (MODEL or MODEL@URL)")
        self.model = name
        self.client = RerankClient(f"jina rerank {name}", url or JINA_URL, "JINA_API_KEY", read_jina)

    def score(self, query: str, texts: list[str]) -> RerankScores:
        body = {"model": self.model, "query": query, "documents": texts, "top_n": len(texts), "return_documents": False}
        return RerankScores(scores=self.client.scores(body, len(texts)), cost=ModelCost(calls=1))
