"""`playground models list|try`."""

from __future__ import annotations

import json

from playground.cli import main


def test_models_list_shows_providers(capsys, monkeypatch):
    monkeypatch.setenv("CO_API_KEY", "co-listed-secret-9876")
    assert main(["models", "list", "--json"]) == 0
    out = capsys.readouterr().out
    payload = json.loads(out)
    assert [p["provider"] for p in payload["providers"]] == ["local", "openai", "hf", "cohere"]
    assert next(p for p in payload["providers"] if p["provider"] == "cohere")["key_set"] is True
    assert payload["local_models"][0]["available"] is True
    assert "co-listed-secret-9876" not in out


def test_models_try_generates_once(capsys, smollm2):
    assert main(["models", "try", "--json", "--max-tokens", "4", "Say hi."]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["spec"] == "local:smollm2" and payload["model_id"] == smollm2.model_id
    assert payload["text"] and 0 < payload["completion_tokens"] <= 4


def test_models_try_with_a_bad_spec_exits_1(capsys):
    assert main(["models", "try", "--model", "gpt4", "hi"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --model: model spec 'gpt4' has no provider prefix") and err.count("\n") == 1
