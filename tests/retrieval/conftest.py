"""Retrieval fixtures: the real embedder loaded once per session, and small generated corpora."""

from __future__ import annotations

import random

import numpy as np
import pytest

from playground.data.records import Dataset, Passage, Question
from playground.store.datasets import save_dataset

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


@pytest.fixture
def generated_workspace(workspace):
    """Corpus and benchmark `gen`: 300 generated passages, one question per 10th passage naming its unique token."""
    passages = generated_passages(300)
    questions = [Question(f"q{i}", f"What is said about number{i}?", ["x"], [f"g{i}"]) for i in range(0, 300, 10)]
    save_dataset(workspace, "gen", Dataset("jsonl", "generated", passages, questions))
    return workspace


def unit_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
