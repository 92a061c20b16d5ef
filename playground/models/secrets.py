"""API keys: read from the environment only, and scrubbed from anything shown or stored."""

from __future__ import annotations

import os

# Every variable a provider reads a key from; their values are never logged, stored or shown.
SECRET_ENV_VARS = ("OPENAI_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "CO_API_KEY", "COHERE_API_KEY")
REDACTED = "[redacted]"


def env_secret(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def known_secrets() -> list[str]:
    """The secret values currently set, longest first so overlapping keys are scrubbed whole."""
    values = {v for v in (env_secret(name) for name in SECRET_ENV_VARS) if v and len(v) >= 4}
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    for secret in known_secrets():
        text = text.replace(secret, REDACTED)
    return text
