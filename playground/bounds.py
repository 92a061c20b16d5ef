"""The ranges the numbers a user gives must fall in, defined once. The CLI parses its flags with them (argparse
`type=`), the engine's settings objects check with them and the app's forms take their limits from them, so all
three refuse the same values with the same words: `--resamples must be between 100 and 1,000,000, got 0`.

A refusal is a PlaygroundError (one line), raised before anything is stored. NaN and infinities are never in range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

from playground import PlaygroundError

Number = Union[int, float]

LONG_SWEEP_POINTS = 50  # a sweep of more points asks for --yes (each point is a whole run)
MAX_SWEEP_POINTS = 1_000  # beyond this a sweep is refused outright (its values are never expanded in memory)
LONG_RESAMPLE_BYTES = 2 * 1024**3  # a comparison drawing more random indexes than this asks for --yes


def number_text(value: Any) -> str:
    """A bound as a person reads it: 1,000,000 and 0.5 (never 1000000.0); anything else as repr."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e16:
        return f"{int(value):,}"
    return f"{value:g}"


def _got(value: Any) -> str:
    if isinstance(value, str):
        text = value.strip()
        return text if len(text) <= 40 and text.isprintable() else repr(text[:40])
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    short = f"{value:g}"
    return short if float(short) == value else repr(value)  # 0.9999999999999999 is not shown as 1


@dataclass(frozen=True)
class Bound:
    """One number's allowed range: whole or finite real, `low`..`high` (either may be open or absent), optionally
    at least `smallest` away from 0 (a difference to detect: 0 and 1e-300 mean nothing)."""

    name: str
    low: Optional[Number] = None
    high: Optional[Number] = None
    whole: bool = False
    low_open: bool = False
    high_open: bool = False
    smallest: Optional[float] = None
    unit: str = ""

    def describe(self) -> str:
        """The allowed range in words: "between 100 and 1,000,000", "more than 0 and at most 86,400 seconds"."""
        low, high = self.low, self.high
        if low is not None and high is not None and not (self.low_open or self.high_open):
            words = f"between {number_text(low)} and {number_text(high)}"
        else:
            parts = []
            if low is not None:
                parts.append(f"{'more than' if self.low_open else 'at least'} {number_text(low)}")
            if high is not None:
                parts.append(f"{'less than' if self.high_open else 'at most'} {number_text(high)}")
            words = " and ".join(parts) or "a finite number"
        if self.smallest is not None:
            words += f", and at least {number_text(self.smallest)} away from 0"
        if self.unit:
            words += f" {self.unit}"
        return words

    def refusal(self, value: Any, name: Optional[str] = None) -> PlaygroundError:
        kind = "a whole number " if self.whole and isinstance(value, str) else ""
        return PlaygroundError(f"{name or self.name} must be {kind}{self.describe()}, got {_got(value)}")

    def check(self, value: Any, name: Optional[str] = None) -> Number:
        """`value` when it is in range (an int for a whole bound); else a PlaygroundError naming `name` and the range."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.refusal(value, name)
        if self.whole:
            if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
                raise self.refusal(value, name)
            value = int(value)
        elif not math.isfinite(value):
            raise self.refusal(value, name)
        low, high = self.low, self.high
        if low is not None and (value <= low if self.low_open else value < low):
            raise self.refusal(value, name)
        if high is not None and (value >= high if self.high_open else value > high):
            raise self.refusal(value, name)
        if self.smallest is not None and abs(value) < self.smallest:
            raise self.refusal(value, name)
        return value

    def count(self, value: Any, name: Optional[str] = None) -> int:
        """`check` for a whole bound, typed as the int it returns."""
        return int(self.check(value, name))

    def parse(self, text: str, name: Optional[str] = None) -> Number:
        """A flag's text as a number in range; text that is no number gets the same one line."""
        try:
            value: Number = int(text.strip()) if self.whole else float(text)
        except (TypeError, ValueError, OverflowError):
            raise self.refusal(text, name) from None
        return self.check(value, name)

    def flag(self, flag: str) -> Callable[[str], Number]:
        """An argparse `type=` for `flag`: its refusal is a PlaygroundError (the CLI's one `error:` line, exit 1)."""

        def parse_flag(text: str) -> Number:
            return self.parse(text, flag)

        parse_flag.__name__ = self.name
        return parse_flag


def optional_count(bound: Bound, value: Optional[int], name: Optional[str] = None) -> Optional[int]:
    """None stays None; a whole number is checked."""
    return None if value is None else bound.count(value, name)


def checked_optional(bound: Bound, value: Optional[Number], name: Optional[str] = None) -> Optional[Number]:
    """None stays None (the default applies); a number is checked."""
    return None if value is None else bound.check(value, name)


# Generation (models/base.py GenerationParams; the app's sampling settings).
TEMPERATURE = Bound("temperature", 0, 2)
TOP_P = Bound("top_p", 0, 1)
MAX_TOKENS = Bound("max_tokens", 1, 1_000_000, whole=True)
SEED = Bound("seed", 0, 2**31 - 1, whole=True)
SAMPLES = Bound("n", 1, 100, whole=True)  # samples per prompt

# How a run executes (runs/plan.py Execution).
CONCURRENCY = Bound("concurrency", 1, 256, whole=True)
THREADS = Bound("threads", 1, 1024, whole=True)
TIMEOUT = Bound("timeout", 0, 86_400, low_open=True, unit="seconds")

# What a run or an evaluation covers.
SAMPLE = Bound("sample", 1, 10_000_000, whole=True)  # questions
K = Bound("k", 0, 1_000, whole=True)  # passages retrieved (0: none, a sweep's baseline)
SEARCH_K = Bound("k", 1, 1_000, whole=True)  # passages a search or a retrieval evaluation returns
REPEATS = Bound("repeats", 1, 100, whole=True)
REPEAT_INDEX = Bound("repeat index", 0, 99, whole=True)
SHOTS = Bound("shots", 0, 100, whole=True)
ROUNDS = Bound("rounds", 1, 100, whole=True)  # a prompt search's rounds of proposals
FINALISTS = Bound("finalists", 1, 50, whole=True)  # a prompt search's top candidates confirmed on held-out
SWEEP_ORDER = Bound("order", 0, 1_000_000, whole=True)  # a permutation number
THRESHOLD = Bound("threshold", -1_000_000, 1_000_000)
PORT = Bound("port", 1, 65_535, whole=True)

# Statistics (evaluation/compare.py, evaluation/power.py).
RESAMPLES = Bound("resamples", 100, 1_000_000, whole=True)
PROBABILITY = Bound("probability", 0, 1)
ALPHA = Bound("alpha", 0, 1, low_open=True, high_open=True)
POWER = Bound("power", 0, 1, low_open=True, high_open=True)
DIFFERENCE = Bound("difference", -1_000_000, 1_000_000, smallest=1e-9)
GAIN = Bound("difference", 0, 1_000_000, low_open=True)  # the gain a prompt search's held-out split should detect
SD = Bound("sd", 0, 1_000_000)
QUESTIONS = Bound("n", 1, 10_000_000, whole=True)  # a sample size
# An interval's level (judge estimate); nearer 1 its normal quantile is no finite number.
CONFIDENCE = Bound("confidence", 0, 0.999999, low_open=True)
# A target interval half-width; nearer 0 the ratings it needs overflow (1e-300 squared is 0).
HALF_WIDTH = Bound("half-width", 0, 1_000_000, low_open=True, smallest=1e-6)
MAX_RATINGS_FILE_BYTES = 100 * 1024**2  # a `rate import` file (refused beyond)

# Your own documents (data import docs). Chunk sizes are in the default embedder's tokens. BM25 reads a chunk of any
# size, so the general bound is large; a dense retriever reads at most its embedder's window (all-MiniLM-L6-v2: 256
# tokens less 2 special ones), checked when it embeds a corpus or a sweep names it (retrieval/chunk_window.py).
CHUNK_SIZE = Bound("chunk size", 16, 8192, whole=True, unit="tokens")
OVERLAP = Bound("overlap", 0, 8191, whole=True, unit="tokens")
MAX_DOCUMENT_FILES = 100_000  # files under one import's folder (refused beyond, before anything is read)
MAX_DOCUMENT_TOTAL_BYTES = 2 * 1024**3  # the documents of one import together (refused beyond)
MAX_DOCUMENT_BYTES = 50 * 1024**2  # one file (a larger one is skipped with its reason)

RERANK_DEPTH = Bound("rerank_depth", 1, 1_000, whole=True)  # hits a reranker reorders (retrieval/stages.py)
SWEEP_VALUES = {"k": K, "shots": SHOTS, "order": SWEEP_ORDER, "rerank_depth": RERANK_DEPTH}


def confirm_long_work(what: str, estimate: str, confirmed: bool, flag: str = "--yes") -> None:
    """Refuse long work a user may not expect unless confirmed, saying the estimate and how to go ahead."""
    if not confirmed:
        raise PlaygroundError(f"{what} is long work ({estimate}); add {flag} to start it, or ask for less")
