"""Hypothesis profiles for the fuzzing suite: `fast` (the default, derandomised, a small budget: what `make test`
runs: 25 examples a test, the same ones every run; the file tests pay ~0.1 s CPU an example) and
`deep` (`make fuzz`, HYPOTHESIS_PROFILE=deep: many more examples, still reproducible from a seed)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)

settings.register_profile("fast", max_examples=25, derandomize=True, **_COMMON)
settings.register_profile("deep", max_examples=300, derandomize=True, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))
