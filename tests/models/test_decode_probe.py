"""The child-process decode probe: a llama.cpp build that crashes on this CPU is one line, not a dead process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from playground.models import decode_probe
from playground.models.errors import ModelError
from playground.models.local_files import file_sha256, smollm2_path


def test_a_crashing_probe_names_the_signal_and_the_rebuild(tmp_path, monkeypatch):
    monkeypatch.setattr(decode_probe, "PROBE_SCRIPT", "import ctypes; ctypes.string_at(0)")
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    with pytest.raises(ModelError) as raised:
        decode_probe.check_decodes(model, "0" * 64, tmp_path / "models")
    message = str(raised.value)
    assert "SIGSEGV" in message and "model.gguf" in message and "llama_cmake_args" in message
    assert "\n" not in message
    remembered = decode_probe.read_probes(tmp_path / "models" / decode_probe.PROBES_FILE)
    assert [entry["error"] for entry in remembered.values()] == [message]


def test_the_answer_is_remembered_per_file_build_and_cpu(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(decode_probe, "run_probe", lambda path: calls.append(path) or None)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    for _ in range(3):
        decode_probe.check_decodes(model, "1" * 64, tmp_path)
    decode_probe.check_decodes(model, "2" * 64, tmp_path)  # another file's content
    assert calls == [model, model]


@pytest.mark.slow
def test_the_bundled_q4_1_file_answers_or_refuses_in_one_line(tmp_path):
    """`local:smollm2-q4_1` through the CLI on this machine's build and CPU: an answer, or one line saying why."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "playground",
            "models",
            "try",
            "--model",
            "local:smollm2-q4_1",
            "--max-tokens",
            "8",
            "What is 2 + 2?",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "PLAYGROUND_MODELS": str(tmp_path / "models")},
    )
    assert done.returncode in (0, 1, 2), done.stderr
    if done.returncode == 0:
        assert done.stdout.strip()
        probes = decode_probe.read_probes(tmp_path / "models" / decode_probe.PROBES_FILE)
        assert [entry["error"] for entry in probes.values()] == [None]
        assert file_sha256(smollm2_path())
    else:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "llama.cpp" in lines[0], done.stderr
