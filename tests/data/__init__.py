"""Tests of the benchmark importers and the `playground data` commands."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "datasets"
