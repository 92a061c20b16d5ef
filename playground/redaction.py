"""The one place that knows what a secret is and removes it from anything stored, printed or exported.

Secrets are: values of known key variables and of any environment variable whose name looks secret, keys passed
to `load_model(api_key=...)` (registered for the life of the process), and keys found in URLs (userinfo, or query
parameters such as `api_key=`) or headers. Every string that leaves the process through the store, an export, an
error message or a log goes through `redact` / `redact_value` first.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from typing import Any, Iterable, Mapping, Optional
from urllib.parse import parse_qsl, urlsplit

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 4

# Names of environment variables, JSON keys, query parameters and headers that hold secrets.
SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTHORIZATION)", re.IGNORECASE)
SECRET_FIELD = re.compile(
    r"^(api[_-]?key|.*_api[_-]?key|x-api-key|access[_-]?token|.*_token|secret|"
    r"client[_-]?secret|password|passwd|authorization|proxy-authorization|credentials?)$",
    re.IGNORECASE,
)
SECRET_PARAM = re.compile(rf"{SECRET_FIELD.pattern}|^(key|token|auth|sig|signature)$", re.IGNORECASE)
MIN_ENV_SECRET_LENGTH = 8  # a variable named like a secret but shorter (a flag, "1") is not scrubbed everywhere

_registered: set[str] = set()
_lock = threading.Lock()


def secret_env_vars() -> tuple[str, ...]:
    """Every variable a registered model provider reads a key from (each provider's registration names them)."""
    from playground.plugins import registry

    names = (name for provider in registry().of("providers").values() for name in provider.secret_env_vars)
    return tuple(dict.fromkeys(names))


def app_key_vars() -> tuple[str, ...]:
    """The variable each provider's key is set through (its first one): the app's key fields, one per provider."""
    from playground.plugins import registry

    return tuple(dict.fromkeys(p.key_env for p in registry().of("providers").values() if p.key_env))


def env_secret(name: str) -> Optional[str]:
    value = os.environ.get(name, "").strip()
    return value or None


def register(value: Optional[str]) -> Optional[str]:
    """Remember a key so every later redaction removes it; returns the stripped value (None when empty)."""
    value = (value or "").strip()
    if not value:
        return None
    if len(value) >= MIN_SECRET_LENGTH:
        with _lock:
            _registered.add(value)
    return value


def url_secrets(url: str) -> list[str]:
    """The secrets a URL carries: its userinfo password (and user) and secret-named query parameters."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [value for value in (parts.password, parts.username if parts.password is None else None) if value]
    found += [value for name, value in parse_qsl(parts.query, keep_blank_values=False) if SECRET_PARAM.match(name)]
    found += [value for name, value in parse_qsl(parts.fragment, keep_blank_values=False) if SECRET_PARAM.match(name)]
    return [value for value in found if value]


def register_url(url: str) -> str:
    """Register the secrets a URL carries (so they are redacted everywhere); returns the URL unchanged."""
    for value in url_secrets(url):
        register(value)
    return url


def known_secrets(environ: Optional[Mapping[str, str]] = None) -> list[str]:
    """Every secret value known now, longest first so overlapping keys are scrubbed whole."""
    environ = os.environ if environ is None else environ
    with _lock:
        values = set(_registered)
    values |= {environ.get(name, "").strip() for name in secret_env_vars()}
    values |= {
        v.strip() for k, v in environ.items() if SECRET_NAME.search(k) and len(v.strip()) >= MIN_ENV_SECRET_LENGTH
    }
    return sorted((v for v in values if len(v) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def _scrub_url_parts(text: str) -> str:
    """Blank userinfo and secret-named query values in any URL inside `text`, known or not."""
    text = re.sub(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s:@]*:[^/\s@]*@", rf"\1{REDACTED}@", text)
    return re.sub(
        r"(?i)([?&#](?:[a-z0-9_-]*api[_-]?key|access[_-]?token|[a-z0-9_-]*_token|token|key|secret|"
        r"password|auth)=)[^&#\s\"']+",
        rf"\1{REDACTED}",
        text,
    )


def redact(text: str, secrets: Optional[Iterable[str]] = None) -> str:
    """`text` with every known secret (and any URL credential) replaced by [redacted]."""
    if not isinstance(text, str) or not text:
        return text
    for secret in known_secrets() if secrets is None else secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if "://" in text or "=" in text:
        text = _scrub_url_parts(text)
    return text


def redact_value(value: Any, secrets: Optional[list[str]] = None) -> Any:
    """A copy of a JSON value with secrets cut out of every string and secret-named keys blanked."""
    secrets = known_secrets() if secrets is None else secrets

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return redact(item, secrets)
        if isinstance(item, dict):
            return {
                k: (REDACTED if isinstance(v, str) and v and SECRET_FIELD.match(str(k)) else walk(v))
                for k, v in item.items()
            }
        if isinstance(item, (list, tuple)):
            return [walk(v) for v in item]
        return item

    return walk(value)


def redact_row(row: dict, columns: Iterable[str] = ()) -> dict:
    """A stored row with its string columns redacted (JSON text columns included, as text)."""
    secrets = known_secrets()
    return {
        key: redact(value, secrets)
        if isinstance(value, str)
        else (redact_value(value, secrets) if isinstance(value, (dict, list)) else value)
        for key, value in row.items()
    }


def install_log_redaction() -> None:
    """Redact every log record made from now on in this process (any library's, at any level); idempotent."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "playground_redacts", False):
        return

    def factory(*args, **kwargs):
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed record is the logging module's to report
            return record
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        return record

    factory.playground_redacts = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
