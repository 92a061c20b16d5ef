"""The transformers-only embedder, device choice, and resumable corpus embedding."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from playground import PlaygroundError
from playground.retrieval import embedders as embedders_module
from playground.retrieval.embedders import TorchBertEmbedder, TransformersEmbedder, choose_device, get_embedder
from playground.retrieval.embeddings import corpus_embeddings, embed_resumably, partial_dir
from playground.retrieval.index import build_index
from tests.conftest import SHARED_DATASETS, TINY_PASSAGES


def real_passages(n: int) -> list[str]:
    """SQuAD dev paragraphs when ../shared is there (long, varied), else the tiny corpus's passages."""
    squad = SHARED_DATASETS / "squad" / "dev-v1.1.json"
    if squad.exists():
        articles = json.loads(squad.read_text(encoding="utf-8"))["data"]
        texts = [f"{a['title'].replace('_', ' ')}\n{p['context']}" for a in articles[:3] for p in a["paragraphs"]]
        return texts[:n]
    return [f"{p.title}\n{p.text}" for p in TINY_PASSAGES]


def test_the_default_embedder_runs_on_torch_alone(embedder):
    assert isinstance(embedder, TorchBertEmbedder)
    assert embedder.max_seq_length == 256
    assert embedder.describe() == {"device": "cpu", "dtype": "float32"} or embedder.device != "cpu"


def test_transformers_vectors_match_sentence_transformers_within_1e3_cosine(embedder):
    from sentence_transformers import SentenceTransformer

    # 33 texts: two batches of 32, the shortest alone in the second; blanks, tiny, truncated
    texts = real_passages(30) + ["  What is the capital of France?  ", "x", "word " * 400]
    reference = SentenceTransformer(
        embedders_module.model_location("all-MiniLM-L6-v2"), device="cpu", local_files_only=True
    )
    expected = reference.encode(
        texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
    )
    ours = embedder.encode(texts)
    cosines = np.sum(ours * expected, axis=1)
    assert cosines.min() > 1 - 1e-3, cosines.min()
    assert np.abs(ours - expected).max() < 1e-3


def test_the_transformers_path_gives_the_same_vectors(embedder):
    """The AutoModel path (for mean-pooling models that are not BERT) agrees with the torch-only BERT path."""
    folder = Path(embedders_module.model_location("all-MiniLM-L6-v2"))
    config = embedders_module.mean_pooling_config(folder)
    other = TransformersEmbedder("all-MiniLM-L6-v2", folder, config, choose_device("cpu"))
    texts = real_passages(12)
    assert np.abs(other.encode(texts) - embedder.encode(texts)).max() < 1e-4


def test_device_choice_honours_the_request_then_the_environment(monkeypatch):
    import torch

    monkeypatch.delenv("PLAYGROUND_DEVICE", raising=False)
    assert choose_device("cpu").device == "cpu" and choose_device("cpu").dtype == "float32"
    monkeypatch.setenv("PLAYGROUND_DEVICE", "cpu")
    assert choose_device().device == "cpu"
    monkeypatch.setenv("PLAYGROUND_DEVICE", "tpu")
    with pytest.raises(PlaygroundError, match=r"\$PLAYGROUND_DEVICE: unknown device 'tpu'"):
        choose_device()
    with pytest.raises(PlaygroundError, match="--device: unknown device 'gpu0'"):
        choose_device("gpu0")
    monkeypatch.delenv("PLAYGROUND_DEVICE")
    automatic = choose_device()
    if torch.cuda.is_available():
        assert automatic.device == "cuda" and automatic.dtype == "float16" and automatic.batch_size >= 256
    else:
        assert automatic.device in ("cpu", "mps")
        with pytest.raises(PlaygroundError, match="no CUDA device is available"):
            choose_device("cuda")
    if automatic.device == "cpu":
        assert automatic.batch_size == 32 and automatic.dtype == "float32"  # falls back to CPU as it was


def test_torch_threads_are_held_to_the_playground_threads_setting_when_it_is_set(embedder, monkeypatch):
    import torch

    before = torch.get_num_threads()
    try:
        monkeypatch.setenv("PLAYGROUND_THREADS", "1")
        torch.set_num_threads(2)
        assert get_embedder() is embedder and torch.get_num_threads() == 1
        monkeypatch.delenv("PLAYGROUND_THREADS")
        torch.set_num_threads(2)
        assert get_embedder() is embedder and torch.get_num_threads() == 2  # unset: torch's own choice stands
    finally:
        torch.set_num_threads(before)


def test_the_cli_device_option_reaches_the_embedder(tiny_workspace, capsys, monkeypatch):
    from playground.cli import main

    monkeypatch.delenv("PLAYGROUND_DEVICE", raising=False)
    argv = ["--db", str(tiny_workspace.path), "retrieve", "--dataset", "tiny", "--retriever", "dense"]
    assert main([*argv, "--device", "quantum", "capital of France"]) == 1
    assert "error: --device: unknown device 'quantum' (expected cpu, cuda, cuda:N or mps)" in capsys.readouterr().err
    assert main([*argv, "--device", "cpu", "capital of France", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"][0]["id"] == "p1"


def test_the_index_manifest_records_device_and_dtype(tiny_workspace, embedder):
    manifest = build_index(tiny_workspace, "tiny", "dense")
    assert manifest["embeddings"]["device"] == embedder.device
    assert manifest["embeddings"]["dtype"] == embedder.dtype
    assert corpus_embeddings(tiny_workspace, "tiny").manifest["device"] == embedder.device


class Interrupted(Exception):
    pass


def test_an_interrupted_embedding_resumes_with_finished_chunks_kept(tmp_path, embedder, monkeypatch):
    texts = [f"passage {i} about " + "rivers and cities " * (i % 5) for i in range(10)]
    folder = tmp_path / ".embeddings-x.partial"
    calls = []
    real = embedder.encode_sorted
    monkeypatch.setattr(embedder, "encode_sorted", lambda chunk: calls.append(list(chunk)) or real(chunk))

    def stop_after_two(done, total, message):
        if done >= 8:
            raise Interrupted()

    with pytest.raises(Interrupted):
        embed_resumably(embedder, texts, folder, "fp-1", stop_after_two, chunk=4)
    assert len(calls) == 2 and sorted(p.name for p in folder.glob("chunk-*.npy")) == [
        "chunk-000000.npy",
        "chunk-000001.npy",
    ]
    calls.clear()
    messages = []
    resumed = embed_resumably(embedder, texts, folder, "fp-1", lambda d, t, m: messages.append(m), chunk=4)
    assert len(calls) == 1 and len(calls[0]) == 2  # only the last chunk was embedded
    assert "8 resumed" in messages[-1]
    assert np.allclose(resumed, embedder.encode(texts), atol=1e-5)

    calls.clear()
    embed_resumably(embedder, texts, folder, "fp-2", None, chunk=4)  # another corpus version: nothing reused
    assert len(calls) == 3


def test_a_finished_corpus_embedding_leaves_no_partial_folder(tiny_workspace, embedder):
    result = corpus_embeddings(tiny_workspace, "tiny")
    assert not partial_dir(result.path).exists()
    assert result.vectors.shape == (len(TINY_PASSAGES), embedder.dim)


def test_get_embedder_is_per_device(embedder):
    assert get_embedder(device="cpu") is embedder or embedder.device != "cpu"
