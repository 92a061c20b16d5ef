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


class ResponseRefused(Exception):
    """An HTTP answer cut off by a bound (the question's deadline, the response size cap) or in a form not read; the
    call ends with it at once, as a ModelError naming the model (see call_with_retry)."""

    retryable = False


class AnswerIncomplete(ResponseRefused):
    """The question's deadline passed before the whole answer arrived."""

    retryable = True

    def __init__(self, seconds: float, received: int):
        super().__init__(
            f"no complete answer within {seconds:g} s ({received} bytes received); gave up at the deadline"
        )
        self.seconds = seconds
        self.received = received


class ResponseTooLarge(ResponseRefused):
    """The answer, counted as it was read and inflated, went over the response size cap."""
