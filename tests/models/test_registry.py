"""Model specs: what parses, and the clear errors for what does not."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.models.errors import ModelSpecError
from playground.models.registry import DEFAULT_MODEL_SPEC, load_model, parse_spec


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("", "empty model spec"),
        ("   ", "empty model spec"),
        ("smollm2", "no provider prefix"),
        ("gpt:x", "unknown model provider 'gpt'"),
        ("local:", "names no model"),
        ("local:tinyllama", "unknown local model 'tinyllama'"),
        ("local:/no/such/model.gguf", "no GGUF file at /no/such/model.gguf"),
        ("openai:gpt-4o", "has no base URL"),
        ("openai:@http://127.0.0.1:8000/v1", "names no model"),
        ("openai:m@ftp://host/v1", "bad base URL 'ftp://host/v1'"),
        ("openai:m@http:///v1", "bad base URL"),
        ("hf:", "names no model"),
        ("hf:org/model:nosuchprovider", "unknown Hugging Face inference provider 'nosuchprovider'"),
        ("cohere:", "names no model"),
        ("cohere:m@http://127.0.0.1:1", "cohere takes no URL"),
        ("openai:x@http://[::1", "bad base URL 'http://[::1' in model spec 'openai:x@http://[::1': Invalid IPv6 URL"),
        ("openai:x@http://host:99999/v1", "Port out of range"),
    ],
)
def test_bad_specs_give_clear_errors(spec, expected):
    with pytest.raises(ModelSpecError) as caught:
        load_model(spec)
    assert expected in str(caught.value)
    assert isinstance(caught.value, PlaygroundError)


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_text("not a model")
    with pytest.raises(ModelSpecError, match="is not a GGUF file"):
        load_model(f"local:{fake}")


def test_credentials_in_a_url_are_refused_and_not_echoed():
    with pytest.raises(ModelSpecError) as caught:
        parse_spec("openai:m@https://user:hunter2@api.example.com/v1")
    assert "hunter2" not in str(caught.value)
    assert "environment" in str(caught.value)


def test_good_specs_parse():
    assert DEFAULT_MODEL_SPEC == "local:smollm2"
    assert parse_spec("local:smollm2").model == "smollm2"
    openai = parse_spec("openai:Qwen/Qwen2.5-7B@http://127.0.0.1:8000/v1/")
    assert (openai.model, openai.base_url) == ("Qwen/Qwen2.5-7B", "http://127.0.0.1:8000/v1")
    assert parse_spec("openai:a@b@https://h/v1").model == "a@b"
    hf = parse_spec("hf:org/model@https://x.endpoints.huggingface.cloud")
    assert (hf.model, hf.base_url, hf.hf_provider) == ("org/model", "https://x.endpoints.huggingface.cloud", None)
    assert parse_spec("cohere:command-r-08-2024").model == "command-r-08-2024"
