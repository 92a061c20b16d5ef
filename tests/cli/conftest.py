"""Fixtures of the cli tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def tiny_workspace(copied_tiny_workspace):
    """The tiny workspace as a copy of one made per process (tests/conftest.py): these tests need no workspace of
    their own making."""
    return copied_tiny_workspace
