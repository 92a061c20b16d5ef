"""Every HTTP exchange with a model server, bounded whatever the server does: in time by the question's deadline, in
memory by the response size cap.

httpx over httpcore, with a network backend of our own: every socket operation (connect, TLS, each send, each read)
waits at most until the question's deadline (playground.models.retry), so neither a server that trickles a byte
every few seconds nor one that trickles its headers can hold a call past it, and no thread is needed to cut it off.
The body is inflated here (identity, gzip, deflate; nothing else is asked for or accepted) a bounded step at a time
and counted as it is read, so a huge body or a compression bomb stops at the cap, never held in memory whole.
The same transport serves our own chat client, the Cohere SDK (its httpx client) and huggingface_hub's shared client
(httpx2, the same API), so the cap and the deadline cover every remote call. See docs/security.md.
"""

from __future__ import annotations

import os
import threading
import urllib.parse
import urllib.request
import zlib
from types import ModuleType
from typing import Any, Callable, Iterator, Optional

from playground.models.errors import AnswerIncomplete, ModelError, ResponseRefused, ResponseTooLarge
from playground.config import env_number
from playground.models.retry import deadline_seconds, time_left

MAX_RESPONSE_ENV = "PLAYGROUND_MAX_RESPONSE_BYTES"
DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024
INFLATE_STEP = 256 * 1024  # the most one step of inflating may produce
ACCEPT_ENCODING = "gzip, deflate"  # what the body reader inflates; br and zstd would inflate outside the count
MB = 1024 * 1024


def max_response_bytes() -> int:
    """The response size cap: $PLAYGROUND_MAX_RESPONSE_BYTES (bytes), else 16 MB; a bad value is one clear line."""
    value = env_number(MAX_RESPONSE_ENV, int, at_least=1, what="a whole number of bytes above 0", error=ModelError)
    return DEFAULT_MAX_RESPONSE_BYTES if value is None else int(value)


def describe_size(n: int) -> str:
    return f"{n // MB} MB" if n % MB == 0 else f"{n:,} bytes"


class _DeadlinePassed(Exception):
    """A socket operation the question's deadline cut short; the transport reports it as AnswerIncomplete."""


def _bounded(core: ModuleType, operation: Callable[[Optional[float]], Any], timeout: Optional[float]) -> Any:
    """Run `operation(timeout)` with the timeout cut to what the question's deadline leaves."""
    left = time_left()
    if left is None or (timeout is not None and timeout < left):
        return operation(timeout)
    if left <= 0:
        raise _DeadlinePassed()
    try:
        return operation(left)
    except core.TimeoutException:
        raise _DeadlinePassed() from None


class _Stream:
    """An httpcore network stream whose every operation ends by the question's deadline."""

    def __init__(self, core: ModuleType, stream):
        self._core = core
        self._stream = stream

    def read(self, max_bytes: int, timeout: Optional[float] = None) -> bytes:
        return _bounded(self._core, lambda limit: self._stream.read(max_bytes, limit), timeout)

    def write(self, buffer: bytes, timeout: Optional[float] = None) -> None:
        _bounded(self._core, lambda limit: self._stream.write(buffer, limit), timeout)

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname: Optional[str] = None, timeout: Optional[float] = None):
        upgraded = _bounded(
            self._core, lambda limit: self._stream.start_tls(ssl_context, server_hostname, limit), timeout
        )
        return _Stream(self._core, upgraded)

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _Backend:
    """httpcore's own synchronous backend, with every connection bounded by the deadline (httpcore's
    documented extension point: ConnectionPool(network_backend=...))."""

    def __init__(self, core: ModuleType):
        self._core = core
        self._backend = core.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: Optional[float] = None,
        local_address: Optional[str] = None,
        socket_options=None,
    ):
        stream = _bounded(
            self._core,
            lambda limit: self._backend.connect_tcp(host, port, limit, local_address, socket_options),
            timeout,
        )
        return _Stream(self._core, stream)

    def connect_unix_socket(self, path: str, timeout: Optional[float] = None, socket_options=None):
        stream = _bounded(
            self._core, lambda limit: self._backend.connect_unix_socket(path, limit, socket_options), timeout
        )
        return _Stream(self._core, stream)

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _Inflater:
    """Inflates gzip or deflate in steps of at most INFLATE_STEP bytes, whatever the ratio of the input."""

    def __init__(self, encoding: str):
        self._gzip = encoding in ("gzip", "x-gzip")
        self._maybe_raw = not self._gzip  # "deflate" is zlib-wrapped by the standard, raw by some servers
        self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS if self._gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            try:
                out = self._inflater.decompress(data, INFLATE_STEP)
            except zlib.error as error:
                if not self._maybe_raw:
                    raise ResponseRefused(f"the server's compressed answer is damaged: {error}") from None
                self._maybe_raw = False
                self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            self._maybe_raw = False
            data = self._inflater.unconsumed_tail
            if self._gzip and self._inflater.eof and self._inflater.unused_data[:2] == b"\x1f\x8b":
                data = self._inflater.unused_data  # the next member of a gzip body (anything else after one is left)
                self._inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            if out:
                yield out
            if not data and len(out) < INFLATE_STEP:
                return


class _Body:
    """The response body, inflated and counted as it is read: over the cap (inflated or not) it stops with
    ResponseTooLarge; when the deadline cuts a read short, AnswerIncomplete says how many bytes had come."""

    def __init__(self, core: ModuleType, stream, encoding: str, limit: int):
        self._core = core
        self._stream = stream
        self._inflater = None if encoding in ("", "identity") else _Inflater(encoding)
        self._limit = limit
        self.received = 0

    def __iter__(self) -> Iterator[bytes]:
        produced = 0
        try:
            for chunk in self._stream:
                self.received += len(chunk)
                pieces = [chunk] if self._inflater is None else self._inflater.feed(chunk)
                for piece in pieces:
                    produced += len(piece)
                    if produced > self._limit:
                        raise self._too_large()
                    yield piece
                if self.received > self._limit:  # compressed bytes that inflate to little still count
                    raise self._too_large()
        except _DeadlinePassed:
            self.close()
            raise AnswerIncomplete(deadline_seconds() or 0.0, self.received) from None
        except BaseException:
            self.close()
            raise

    def _too_large(self) -> ResponseTooLarge:
        return ResponseTooLarge(
            f"the answer is over the {describe_size(self._limit)} response size limit "
            f"({MAX_RESPONSE_ENV}); reading stopped there"
        )

    def close(self) -> None:
        if hasattr(self._stream, "close"):
            self._stream.close()


_body_classes: dict[str, type] = {}


def _body_class(httpx: ModuleType) -> type:
    """_Body as the given library's SyncByteStream (httpx and httpx2 each check for their own)."""
    if httpx.__name__ not in _body_classes:
        _body_classes[httpx.__name__] = type("BoundedBody", (_Body, httpx.SyncByteStream), {})
    return _body_classes[httpx.__name__]


def _mapped(httpx: ModuleType, core: ModuleType, error: BaseException) -> BaseException:
    """An httpcore error as the httpx error of the same name (what httpx's own transport raises)."""
    if type(error).__module__.split(".")[0] != core.__name__:
        return error
    return getattr(httpx, type(error).__name__, httpx.TransportError)(str(error))


_ssl_contexts: dict[tuple[str, Optional[str], Optional[str]], Any] = {}
_ssl_lock = threading.Lock()


def default_ssl_context(httpx: ModuleType):
    """httpx's default SSL context, made once per process for each httpx module and certificate setting
    ($SSL_CERT_FILE, $SSL_CERT_DIR): loading the certificate bundle costs ~20 ms of CPU, every model client made one,
    and a context verifies alike for every client and may be shared between threads."""
    key = (httpx.__name__, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _ssl_lock:
        if key not in _ssl_contexts:
            _ssl_contexts[key] = httpx.create_ssl_context()
        return _ssl_contexts[key]


class BoundedTransport:
    """An httpx transport (for httpx or httpx2, with its httpcore) whose exchanges end by the question's deadline and
    whose bodies stop at the response size cap. HTTP(S) proxies come from the environment, as requests takes them."""

    def __init__(self, httpx: ModuleType, core: ModuleType):
        self._httpx = httpx
        self._core = core
        self._backend = _Backend(core)
        self._ssl_context = default_ssl_context(httpx)
        self._pools: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _pool(self, scheme: str, host: str):
        """The direct pool, or the pool of the proxy the environment names for this scheme and host."""
        proxy = urllib.request.getproxies().get(scheme)
        if proxy and urllib.request.proxy_bypass(host):
            proxy = None
        key = proxy or ""
        with self._lock:
            if key not in self._pools:
                options = {
                    "ssl_context": self._ssl_context,
                    "network_backend": self._backend,
                    "max_connections": None,
                    "max_keepalive_connections": 32,
                }
                if not proxy:
                    self._pools[key] = self._core.ConnectionPool(**options)
                else:
                    parts = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
                    if parts.scheme not in ("http", "https"):
                        raise ModelError(
                            f"the {scheme} proxy {parts.scheme}://{parts.hostname} is not an http(s) "
                            "proxy; playground reaches servers directly or through an HTTP proxy"
                        )
                    auth = (
                        (urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password or ""))
                        if parts.username
                        else None
                    )
                    url = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"  # the credentials go as proxy_auth
                    self._pools[key] = self._core.HTTPProxy(proxy_url=url, proxy_auth=auth, **options)
            return self._pools[key]

    def handle_request(self, request):
        core, httpx = self._core, self._httpx
        limit = max_response_bytes()
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        timeouts = dict(request.extensions.get("timeout") or {})
        left = time_left()
        if left is not None:
            if left <= 0:
                raise AnswerIncomplete(deadline_seconds() or 0.0, 0)
            timeouts["pool"] = left if timeouts.get("pool") is None else min(timeouts["pool"], left)
        raw = core.Request(
            method=request.method,
            url=core.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions={**request.extensions, "timeout": timeouts},
        )
        try:
            response = self._pool(request.url.scheme, request.url.host).handle_request(raw)
        except _DeadlinePassed:
            raise AnswerIncomplete(deadline_seconds() or 0.0, 0) from None
        except Exception as error:
            raise _mapped(httpx, core, error) from error
        encoding = _content_encoding(response.headers)
        if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
            response.close()
            raise ResponseRefused(
                f"the server answered in content-encoding {encoding!r}, which playground does not "
                f"read (it asks for {ACCEPT_ENCODING})"
            )
        headers = response.headers
        if encoding not in ("", "identity"):  # inflated here, so httpx must not inflate it again
            headers = [(k, v) for k, v in headers if k.lower() not in (b"content-encoding", b"content-length")]
        body = _body_class(httpx)(core, _MappedStream(httpx, core, response.stream), encoding, limit)
        return httpx.Response(status_code=response.status, headers=headers, stream=body, extensions=response.extensions)

    def close(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class _MappedStream:
    """httpcore's body stream with its errors raised as httpx's (a reset mid-body is httpx.RemoteProtocolError)."""

    def __init__(self, httpx: ModuleType, core: ModuleType, stream):
        self._httpx, self._core, self._stream = httpx, core, stream

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._stream
        except _DeadlinePassed:
            raise
        except Exception as error:
            raise _mapped(self._httpx, self._core, error) from error

    def close(self) -> None:
        self._stream.close()


def _content_encoding(headers) -> str:
    values = [v.decode("latin-1").strip().lower() for k, v in headers if k.lower() == b"content-encoding"]
    return ", ".join(value for value in values if value)


def bounded_client(**options):
    """An httpx.Client over BoundedTransport; `options` are httpx.Client's (follow_redirects, timeout, ...)."""
    import httpcore
    import httpx

    return httpx.Client(transport=BoundedTransport(httpx, httpcore), **options)


_hub_bounded = threading.Event()


def bound_hub_session() -> bool:
    """Route huggingface_hub's shared client (the one InferenceClient sends through) over BoundedTransport, keeping
    its event hooks (offline mode, request ids); False where the hub's client is not httpx (before 1.0)."""
    if _hub_bounded.is_set():
        return True
    import importlib

    try:
        from huggingface_hub import get_session, set_client_factory
    except ImportError:  # huggingface_hub before 1.0 sends through requests: its own timeouts only
        return False
    session = get_session()
    library = type(session).__module__.split(".")[0]
    if library not in ("httpx", "httpx2"):
        return False
    httpx = importlib.import_module(library)
    core = importlib.import_module(library.replace("httpx", "httpcore"))
    hooks, follow = session.event_hooks, session.follow_redirects

    def factory():
        return httpx.Client(
            event_hooks=hooks, follow_redirects=follow, timeout=None, transport=BoundedTransport(httpx, core)
        )

    set_client_factory(factory)
    _hub_bounded.set()
    return True
