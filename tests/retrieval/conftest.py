"""Retrieval fixtures: the real embedder loaded once per session, and small generated corpora."""

from __future__ import annotations

import os
import random
import shutil

import numpy as np
import pytest

from playground.data.records import Dataset, Passage, Question
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from tests.conftest import shared_build

WORDS = (
    "river city capital mountain museum language bridge castle forest harbour island library market "
    "painter poet railway school temple valley village volcano desert glacier lake canal opera"
).split()


@pytest.fixture(scope="session")
def embedder():
    from playground.retrieval.embedders import get_embedder

    return get_embedder()


def generated_passages(n: int, seed: int = 0) -> list[Passage]:
    """n short passages, each about one numbered topic word pair, so every passage is findable by its words."""
    rng = random.Random(seed)
    passages = []
    for i in range(n):
        a, b = rng.sample(WORDS, 2)
        filler = " ".join(rng.choice(WORDS) for _ in range(6))
        passages.append(Passage(f"g{i}", f"Topic {i}", f"The {a} near the {b} number{i} is described here. {filler}."))
    return passages


def save_generated(workspace) -> None:
    passages = generated_passages(300)
    questions = [Question(f"q{i}", f"What is said about number{i}?", ["x"], [f"g{i}"]) for i in range(0, 300, 10)]
    save_dataset(workspace, "gen", Dataset("jsonl", "generated", passages, questions))


@pytest.fixture
def generated_workspace(workspace):
    """Corpus and benchmark `gen`: 300 generated passages, one question per 10th passage naming its unique token."""
    save_generated(workspace)
    return workspace


def _embed_generated(folder) -> None:
    from playground.retrieval.embeddings import corpus_embeddings

    saved = {name: os.environ.pop(name) for name in ("PLAYGROUND_DB", "PLAYGROUND_INDEXES") if name in os.environ}
    try:
        workspace = open_workspace(folder / "sessions" / "playground.db")
        try:
            save_generated(workspace)
            corpus_embeddings(workspace, "gen")
        finally:
            workspace.close()
    finally:
        os.environ.update(saved)


@pytest.fixture
def embedded_generated_workspace(tmp_path_factory, tmp_path, monkeypatch):
    """generated_workspace with the default embedder's vectors of `gen` already cached: a copy of one build per test
    run (tests.conftest.shared_build), since embedding the 300 passages is what the dense tests would each repeat."""
    monkeypatch.delenv("PLAYGROUND_DB", raising=False)
    monkeypatch.delenv("PLAYGROUND_INDEXES", raising=False)
    shutil.copytree(
        shared_build(tmp_path_factory, "generated-embedded", _embed_generated), tmp_path, dirs_exist_ok=True
    )
    workspace = open_workspace(tmp_path / "sessions" / "playground.db")
    yield workspace
    workspace.close()


def unit_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
