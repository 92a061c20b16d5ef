"""fit_passages: a prompt too long for the context is cut from the front of the retrieved passages."""

from __future__ import annotations

import pytest

from playground.models.context import fit_passages, prompt_tokens
from playground.models.errors import ModelError
from playground.models.registry import load_model

QUESTION = "Which river flows through the city described in the last passage?"


def build_messages(passages: list[dict]) -> list[dict]:
    context = "\n\n".join(f"[{p['id']}] {p['title']}: {p['text']}" for p in passages)
    return [
        {"role": "system", "content": "Answer from the context in a few words."},
        {"role": "user", "content": f"Context:\n{context}\n\nQuestion: {QUESTION}"},
    ]


def passage(i: int, sentences: int) -> dict:
    text = " ".join(
        f"Sentence {j} of passage {i} talks about town number {i * 100 + j} and its old bridge."
        for j in range(sentences)
    )
    return {"id": f"p{i}", "title": f"Town {i}", "text": text, "score": 1.0 / (i + 1), "rank": i + 1}


@pytest.fixture(scope="module")
def small_context():
    return load_model("local:smollm2", n_ctx=512)


def test_nothing_is_cut_when_the_prompt_fits(small_context):
    passages = [passage(0, 2), passage(1, 2)]
    messages, record = fit_passages(small_context, build_messages, passages, max_tokens=16)
    assert record is None
    assert messages == build_messages(passages)


def test_a_long_passage_list_is_cut_from_the_front(small_context):
    passages = [passage(i, 6) for i in range(8)]
    max_tokens = 16
    assert prompt_tokens(small_context, build_messages(passages)) + max_tokens > small_context.context_window
    messages, record = fit_passages(small_context, build_messages, passages, max_tokens=max_tokens)
    assert record is not None
    user = messages[-1]["content"]
    assert user.endswith(f"Question: {QUESTION}")
    assert passages[-1]["text"] in user  # the latest passage is kept whole
    assert passages[0]["text"] not in user
    assert record["dropped_passage_ids"][0] == "p0"
    assert record["passages_kept"] + len(record["dropped_passage_ids"]) == record["passages_total"] == 8
    assert record["prompt_tokens_after"] == small_context.count_prompt_tokens(messages)
    assert record["prompt_tokens_after"] + max_tokens <= small_context.context_window
    assert record["dropped_tokens"] == record["prompt_tokens_before"] - record["prompt_tokens_after"] > 0


def test_a_small_overflow_trims_the_first_passage_from_its_start(small_context):
    first, second = passage(0, 12), passage(1, 2)
    whole = prompt_tokens(small_context, build_messages([first, second]))
    max_tokens = small_context.context_window - whole + 20  # 20 tokens too many
    messages, record = fit_passages(small_context, build_messages, [first, second], max_tokens=max_tokens)
    assert record["dropped_passage_ids"] == []
    assert record["trimmed_passage"]["id"] == "p0"
    assert record["trimmed_passage"]["tokens_after"] < record["trimmed_passage"]["tokens_before"]
    user = messages[-1]["content"]
    assert first["text"] not in user and first["text"].split()[-1] in user  # the start went, the end stayed
    assert second["text"] in user and QUESTION in user


def test_the_question_is_never_cut(small_context):
    with pytest.raises(ModelError, match="never cut"):
        fit_passages(small_context, build_messages, [passage(0, 3)], max_tokens=small_context.context_window)


def test_remote_models_cut_by_estimate(llama_server):
    remote = load_model(f"openai:smollm2@{llama_server['url']}", context_window=300)
    passages = [passage(i, 3) for i in range(5)]
    messages, record = fit_passages(remote, build_messages, passages, max_tokens=32)
    assert record is not None and record["exact"] is False
    assert record["prompt_tokens_after"] + 32 <= 300
    assert QUESTION in messages[-1]["content"]
