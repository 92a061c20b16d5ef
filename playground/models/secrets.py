"""API keys for model clients: passed explicitly (typed in the app) or from the environment.

What counts as a secret and how it is scrubbed lives in playground.redaction (one module for models, store and
export); the names are re-exported here for the model clients.
"""

from __future__ import annotations

from typing import Optional

from playground.redaction import env_secret, register


def key_or_env(api_key: Optional[str], env_name: str) -> tuple[Optional[str], Optional[str]]:
    """(key, where it came from): an explicit key wins over the environment variable; neither gives (None, None)."""
    explicit = register(api_key)
    if explicit:
        return explicit, "explicit"
    from_env = env_secret(env_name)
    return (from_env, env_name) if from_env else (None, None)
