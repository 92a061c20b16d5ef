"""API keys: from the environment or passed explicitly (typed in the app), and scrubbed from anything shown or stored."""

from __future__ import annotations

import os
import threading
from typing import Optional

# Every variable a provider reads a key from; their values are never logged, stored or shown.
SECRET_ENV_VARS = ("OPENAI_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "CO_API_KEY", "COHERE_API_KEY")
REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 4

# Keys handed to load_model(api_key=...): redacted for the life of the process, though never in os.environ.
_registered: set[str] = set()
_registered_lock = threading.Lock()


def env_secret(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def register(value: Optional[str]) -> Optional[str]:
    """Remember an explicitly passed key so redact() and the response cache treat it like an environment secret."""
    value = (value or "").strip()
    if not value:
        return None
    if len(value) >= MIN_SECRET_LENGTH:
        with _registered_lock:
            _registered.add(value)
    return value


def key_or_env(api_key: Optional[str], env_name: str) -> tuple[Optional[str], Optional[str]]:
    """(key, where it came from): an explicit key wins over the environment variable; neither gives (None, None)."""
    explicit = register(api_key)
    if explicit:
        return explicit, "explicit"
    from_env = env_secret(env_name)
    return (from_env, env_name) if from_env else (None, None)


def known_secrets() -> list[str]:
    """The secret values set or registered, longest first so overlapping keys are scrubbed whole."""
    with _registered_lock:
        values = set(_registered)
    values |= {v for v in (env_secret(name) for name in SECRET_ENV_VARS) if v}
    return sorted((v for v in values if len(v) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def redact(text: str) -> str:
    for secret in known_secrets():
        text = text.replace(secret, REDACTED)
    return text
