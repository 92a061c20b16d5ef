"""`playground.prompts.load`: a labelled version renders to the messages a run sent, byte for byte; moving the label
changes what loads; TEMPLATE@prod runs; the API imports no model, index or Streamlit."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import playground.prompts
from playground import PlaygroundError
from playground.models.base import GenerationParams
from playground.prompts.library import load_template
from playground.runs import RunConfig, start_run
from playground.store.prompt_labels import move_label
from playground.store.prompts import save_prompt_version
from playground.store.runs import get_results, get_run, get_spans

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("streamlit", "torch", "llama_cpp", "sentence_transformers", "faiss")


def _labelled(workspace) -> tuple[str, str]:
    """Two versions of rag-short-answer, `prod` on the first; the second words its system part in Japanese."""
    original = load_template("rag-short-answer")
    first = save_prompt_version(workspace, original)
    second = save_prompt_version(workspace, original.with_changes(system="一語で答えてください。"))
    move_label(workspace, "rag-short-answer", "prod", first, "person")
    return first, second


def test_moving_the_label_changes_what_load_returns(workspace):
    first, second = _labelled(workspace)
    before = playground.prompts.load("rag-short-answer", label="prod", db=workspace.path)
    move_label(workspace, "rag-short-answer", "prod", second, "person")
    after = playground.prompts.load("rag-short-answer", label="prod", db=workspace.path)
    assert (before.version_id, after.version_id) == (first, second)
    assert after.label == "prod" and after.name == "rag-short-answer"
    messages = after.render(
        question="プラド美術館はどこ？", passages=[{"title": "マドリード", "text": "プラドはマドリードにある。"}]
    )
    assert messages[0] == {"role": "system", "content": "一語で答えてください。"}
    assert "[1] マドリード: プラドはマドリードにある。" in messages[1]["content"]
    pinned = playground.prompts.load("rag-short-answer", version=first[:6], db=workspace.path)
    assert pinned.version_id == first and pinned.label is None


def test_load_refuses_what_it_cannot_name_in_one_line(workspace):
    _labelled(workspace)
    for call, said in [
        (lambda: playground.prompts.load("rag-short-answer", db=workspace.path), "say which version"),
        (lambda: playground.prompts.load("rag-short-answer", label="prod", version="ab", db=workspace.path), "both"),
        (lambda: playground.prompts.load("rag-short-answer", label="staging", db=workspace.path), "no label 'staging'"),
        (
            lambda: playground.prompts.load("rag-short-answer@prod", db=workspace.path.parent / "missing.db"),
            "no workspace",
        ),
    ]:
        with pytest.raises(PlaygroundError, match=said) as raised:
            call()
        assert "\n" not in str(raised.value)
    prompt = playground.prompts.load("rag-short-answer@prod", db=workspace.path)
    with pytest.raises(PlaygroundError, match="list of passages"):
        prompt.render(question="q", passages="one passage")


def test_importing_and_rendering_loads_no_model_index_or_streamlit(workspace):
    _labelled(workspace)
    script = (
        "import sys, json\n"
        "import playground.prompts\n"
        f"p = playground.prompts.load('rag-short-answer', label='prod', db={str(workspace.path)!r})\n"
        "p.render(question='Where?', passages=['Madrid has the Prado.'])\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({(*HEAVY, 'sqlite_utils')!r}))))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(found.stdout.strip().splitlines()[-1]) == []  # the workspace is read without sqlite-utils too


def test_loading_reads_the_workspace_without_writing_it(workspace):
    first, _ = _labelled(workspace)
    workspace.close()
    before = workspace.path.read_bytes()
    assert playground.prompts.load("rag-short-answer@prod", db=workspace.path).version_id == first
    assert workspace.path.read_bytes() == before
    assert not workspace.path.with_name(workspace.path.name + "-wal").exists()


@pytest.mark.slow
def test_a_labelled_version_renders_to_the_messages_the_run_sent_byte_for_byte(tiny_workspace):
    from tests.openai_server import OpenAIServer

    _labelled(tiny_workspace)
    server = OpenAIServer().start()
    try:
        config = RunConfig(
            dataset="tiny",
            program="rag",
            templates={"main": "rag-short-answer@prod"},
            retriever="bm25",
            k=2,
            model=server.spec(),
            params=GenerationParams(max_tokens=6),
            sample=3,
            seed=0,
        )
        summary = start_run(tiny_workspace, config)
    finally:
        server.close()
    run = get_run(tiny_workspace, summary.run_id)
    assert summary.status == "done" and summary.errors == 0
    prompt = playground.prompts.load("rag-short-answer", label="prod", db=tiny_workspace.path)
    assert run.config["prompt_versions"]["main"] == prompt.version_id
    sent = [request["messages"] for request in server.requests]
    rendered = []
    for result in get_results(tiny_workspace, summary.run_id):
        spans = get_spans(tiny_workspace, summary.run_id, result["question_id"])
        hits = next(s for s in spans if s["kind"] == "retrieve")["outputs"]["hits"]
        texts = {p["id"]: p["text"] for p in next(s for s in spans if s["kind"] == "render")["outputs"]["passages"]}
        question = next(s for s in spans if s["kind"] == "render")["inputs"]["variables"]["question"]
        passages = [{**hit, "text": texts[hit["id"]]} for hit in hits]
        rendered.append(prompt.render(question=question, passages=passages))
    assert len(sent) == 3
    as_bytes = sorted(json.dumps(m, ensure_ascii=False).encode("utf-8") for m in sent)
    assert as_bytes == sorted(json.dumps(m, ensure_ascii=False).encode("utf-8") for m in rendered)
