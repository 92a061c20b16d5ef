"""`http-search`: any search service over HTTP, asked for each query, its ranked passages read back with their text.

By default it speaks DSP's ColBERTv2 server (`GET URL?query=...&k=...` answering `{"topk": [{"text", "pid",
"score"}, ...]}`); other services are described by parameters: `method` (GET sends the query and k as URL
parameters, POST as a JSON body), `query_param` and `k_param` (their names), `results` (the dotted JSON path of the
list: `hits.hits`, `data.0.results`) and, within each item, `id_field`, `text_field`, `score_field` (empty: 1/rank)
and `title_field` (empty: none). A key, when the service needs one, comes from the environment variable `key_env`
names. Each search is bounded as a model call is (service_http.py); its hits carry the text (base.Hit.text), so a
run stores what the service answered then. Nothing is built: the index folder holds only its manifest.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playground import PlaygroundError
from playground.models.errors import ModelError
from playground.packages import package_versions
from playground.retrieval.base import Hit
from playground.retrieval.service_http import ServiceClient

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MISSING = object()


def check_service_params(params: dict) -> dict:
    """The service's settings, refused in one line when they cannot name a service (or would store a key)."""
    url = params["url"].strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PlaygroundError(f"retriever 'http-search' parameter 'url'={url!r} must be an http(s) URL with a host")
    if parts.username is not None or parts.password is not None or parts.query:
        raise PlaygroundError(
            "retriever 'http-search' parameter 'url' holds credentials or a query string, and it is stored in the "
            "index manifest and every run: name an environment variable holding the key with key_env instead"
        )
    for name in ("query_param", "k_param", "results", "id_field", "text_field"):
        if not params[name].strip():
            raise PlaygroundError(f"retriever 'http-search' parameter {name!r} must not be empty")
    if params["key_env"] and not _ENV_NAME.fullmatch(params["key_env"]):
        raise PlaygroundError(f"retriever 'http-search' parameter 'key_env'={params['key_env']!r} is no variable name")
    return {**params, "url": url}


def json_path(data: Any, path: str) -> Any:
    """The value at dotted `path` (keys of objects, whole-number positions in lists), or _MISSING."""
    for step in path.split(".") if path else []:
        if isinstance(data, dict) and step in data:
            data = data[step]
        elif isinstance(data, list) and step.isdigit() and int(step) < len(data):
            data = data[int(step)]
        else:
            return _MISSING
    return data


class SearchServiceRetriever:
    """Sends each query to the service; the service's order is the ranking."""

    kind = "http-search"

    def __init__(self, params: dict):
        from playground.redaction import env_secret, register

        self.params = params
        self.manifest: dict = {}
        key = register(env_secret(params["key_env"])) if params["key_env"] else None
        self.service = ServiceClient(f"search service {urlsplit(params['url']).netloc}", params["url"], key)

    @classmethod
    def build(cls, source, params: dict, path: Path, on_progress=None) -> dict:
        return {"service": urlsplit(params["url"]).netloc}

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "SearchServiceRetriever":
        return cls(params)

    @staticmethod
    def versions() -> dict:
        return package_versions("httpx")

    def search(self, query: str, k: int) -> list[Hit]:
        asked = {self.params["query_param"]: query, self.params["k_param"]: k}
        data = self.service.get(asked) if self.params["method"] == "GET" else self.service.post(asked)
        items = json_path(data, self.params["results"])
        if not isinstance(items, list):
            found = "nothing" if items is _MISSING else f"a {type(items).__name__}"
            raise ModelError(f"{self.service.what}: the answer has {found} at {self.params['results']!r}, not a list")
        hits: list[Hit] = []
        seen: set[str] = set()
        for position, item in enumerate(items, 1):
            if len(hits) >= k:
                break
            hit = self._hit(item, position, len(hits) + 1)
            if hit.passage_id not in seen:
                seen.add(hit.passage_id)
                hits.append(hit)
        return hits

    def _hit(self, item: Any, position: int, rank: int) -> Hit:
        what, params = self.service.what, self.params
        pid, text = json_path(item, params["id_field"]), json_path(item, params["text_field"])
        if isinstance(pid, bool) or not isinstance(pid, (str, int)) or pid == "":
            raise ModelError(f"{what}: result {position} has {_shown(pid)} at {params['id_field']!r}, not an id")
        if not isinstance(text, str):
            raise ModelError(f"{what}: result {position} has {_shown(text)} at {params['text_field']!r}, not text")
        score: Any = 1.0 / rank
        if params["score_field"]:
            score = json_path(item, params["score_field"])
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise ModelError(
                    f"{what}: result {position} has {_shown(score)} at {params['score_field']!r}, not a finite number"
                )
        title = json_path(item, params["title_field"]) if params["title_field"] else ""
        return Hit(
            passage_id=str(pid),
            score=float(score),
            rank=rank,
            text=text,
            title=title if isinstance(title, str) else "",
        )


def _shown(value: Any) -> str:
    if value is _MISSING:
        return "nothing"
    text = repr(value)
    return text if len(text) <= 40 else f"a {type(value).__name__}"
