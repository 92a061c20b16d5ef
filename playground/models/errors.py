"""The one error a model call raises when it finally fails or its spec is wrong."""

from __future__ import annotations

from playground import PlaygroundError
from playground.redaction import redact


class ModelError(PlaygroundError):
    """A model could not be loaded or a generation failed after its retries; the message never holds a key."""

    def __init__(self, message: str, *, retryable: bool = False, status: int | None = None):
        super().__init__(redact(message))
        self.retryable = retryable
        self.status = status


class ModelSpecError(ModelError):
    """A model spec string that does not name a model this playground can load."""
