"""`playground questions generate` against a real local HTTP server playing the model: each kind of bad reply lands
in its rejection reason, the counts are printed, and what is kept is stored with its gold spans and provenance.

The documents corpus is made through the store as `data import docs` makes one (contract of issue 19): passages
whose text is exactly `document_text[start:end]`, with `{"document", "start", "end"}` metadata."""

from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler

import pytest

import playground.cli as cli
from playground.data.records import Dataset, Passage
from playground.store.datasets import get_benchmark, load_questions, save_dataset
from playground.store.prompts import get_prompt_version
from tests.openai_server import read_chat_request, send_chat_reply, serve_in_thread

GUIDE = """Kellerby lighthouse

The lighthouse at Kellerby was built in 1874 by the engineer Marta Voss. Its lamp burned whale oil until the harbour board bought a paraffin burner.

Keepers

Three keepers lived in the cottage below the tower. They logged every ship that passed the Grey Shoal and rang the fog bell in winter storms.

Harbour wall

Marta Voss also drew the harbour wall beside the lighthouse at Kellerby. Masons cut its granite blocks at the Trevail quarry across the bay.
"""

MINES = """Dunmore mines

Copper was mined at Dunmore from 1790, and the ore went by barge down the river Allen to the smelters at Pellow.

Tin streaming

Before the copper shafts, families streamed tin from the gravels of Hobb's brook, washing it in wooden troughs called buddles.

Closing

The last engine house shut in 1921, when cheap ore from Chile made the deep workings unprofitable for the owners.
"""

# A word of the chunk -> the server's reply when it is asked about that chunk alone.
REPLIES = {
    "whale oil": '{"question": "Who built the lighthouse at Kellerby?", "answer": "Marta Voss"}',
    "harbour wall": '```json\n{"question": "Who designed the lighthouse at Kellerby?", "answer": "Marta Voss"}\n```',
    "Grey Shoal": '{"question": "What did the keepers ring in winter storms?", "answer": "the fog bel"}',
    "ore went by barge": '{"question": "Which metal was mined at Dunmore from 1790?", "answer": "Berlin"}',
    "buddles": '{"question": "What were the wooden troughs for washing tin from the buddles called?", "answer": "buddles"}',
    "engine house": "Sure! The question would be about the engine house, but I am not sure.",
}
GENERIC = '{"question": "What is the answer?", "answer": "Chile"}'


def chunks(path: str, text: str) -> list[Passage]:
    """Paragraph chunks of a document, each an exact slice with its span, titled by the heading before it."""
    passages, heading = [], ""
    for match in re.finditer(r"[^\n]+", text):
        if len(match.group().split()) <= 3:
            heading = match.group()
            continue
        passages.append(
            Passage(
                f"{path}#{len(passages) + 1}",
                heading,
                match.group(),
                {"document": path, "start": match.start(), "end": match.end()},
            )
        )
    return passages


def reply_to(prompt: str) -> str:
    passages = re.findall(r"^\[(\d)\] [^:]*: (.*)$", prompt, re.MULTILINE)
    if len(passages) == 2:  # two-hop: ask about the first passage, answer from the second's last word
        first, second = passages[0][1], passages[1][1]
        answer = re.findall(r"\w+", second)[-1]
        return json.dumps({"question": f"After '{' '.join(first.split()[:6])}', what comes last?", "answer": answer})
    for marker, reply in REPLIES.items():
        if marker in prompt:
            return reply
    return GENERIC


class ScriptedModel:
    """A real HTTP server speaking the chat-completions API, replying per the chunk in the prompt."""

    def __init__(self, reply=reply_to):
        prompts = self.prompts = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):  # noqa: N802 - http.server naming
                body, prompt = read_chat_request(self)
                prompts.append(prompt)
                text = reply(prompt)
                send_chat_reply(self, "scripted-1", prompt, text, "chatcmpl-test")

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.httpd.handle_error = lambda request, address: None  # a client that gave up is the point, not news
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.spec = f"openai:scripted@{self.url}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def docs_workspace(workspace):
    """Corpus `guide` of format "docs": two documents cut into paragraph chunks with their spans."""
    passages = chunks("guide/lighthouse.md", GUIDE) + chunks("guide/mines.md", MINES)
    dataset = Dataset("docs", "tests/questions", passages, [], {"document_set": "test", "chunker": "paragraphs"})
    save_dataset(workspace, "guide", dataset)
    return workspace


@pytest.fixture
def model():
    server = ScriptedModel()
    yield server
    server.close()


def call(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_each_bad_reply_lands_in_its_reason_and_the_kept_one_is_stored_with_its_span(docs_workspace, model, capsys):
    db = str(docs_workspace.path)
    argv = ["questions", "generate", "--db", db, "--corpus", "guide", "--model", model.spec, "--name", "guide-qs"]
    code, out, err = call(capsys, *argv, "--n", "6", "--two-hop-share", "0", "--seed", "3")
    assert code == 0, err
    assert len(model.prompts) == 6
    counts = dict(re.findall(r"^(asked|kept|rejected: \w+)\s+(\d+)$", out, re.MULTILINE))
    assert counts == {
        "asked": "6",
        "kept": "2",
        "rejected: unparsable": "1",
        "rejected: wrong_language": "0",
        "rejected: unsupported": "1",
        "rejected: gives_answer_away": "1",
        "rejected: too_generic": "0",
        "rejected: near_duplicate": "1",
        "rejected: model_error": "0",
    }, out

    questions = load_questions(docs_workspace, "guide-qs")
    assert get_benchmark(docs_workspace, "guide-qs")["corpus"] == "guide"
    by_answer = {q.answers[0]: q for q in questions}
    assert set(by_answer) == {"Marta Voss", "the fog bel"}
    fuzzy = by_answer["the fog bel"]  # found fuzzily: "the fog bell"
    (span,) = fuzzy.metadata["gold_spans"]
    assert span["document"] == "guide/lighthouse.md" and GUIDE[span["start"] : span["end"]] == "the fog bell"
    assert fuzzy.gold_passage_ids == fuzzy.metadata["source_passage_ids"] == ["guide/lighthouse.md#2"]
    generator = fuzzy.metadata["generator"]
    assert generator["model"] == model.spec and generator["model_id"] == "scripted-1"
    assert get_prompt_version(docs_workspace, generator["prompt_version"])["template"] == "question-generation"
    assert fuzzy.metadata["kind"] == "single"

    stored = json.loads(get_benchmark(docs_workspace, "guide-qs")["metadata"])
    reasons = {r["reason"]: r for r in stored["rejections"]}
    assert reasons["unsupported"]["answer"] == "Berlin"
    assert reasons["gives_answer_away"]["source_passage_ids"] == ["guide/mines.md#2"]
    assert "engine house" in reasons["unparsable"]["output"]
    assert "cosine" in reasons["near_duplicate"]["detail"]


def test_a_question_bm25_does_not_tie_to_its_chunk_is_too_generic(docs_workspace, capsys):
    server = ScriptedModel(lambda prompt: GENERIC)
    try:
        db = str(docs_workspace.path)
        code, out, err = call(
            capsys, "questions", "generate", "--db", db, "--corpus", "guide", "--model", server.spec,
            "--name", "qs", "--n", "6", "--two-hop-share", "0", "--json",
        )  # fmt: skip
    finally:
        server.close()
    report = json.loads(out)
    assert report["rejected"]["too_generic"] == 1 and report["rejected"]["unsupported"] == 5
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 1 and errors == [
        "error: none of the 6 question(s) asked was kept (rejected: unsupported 5, too_generic 1); benchmark 'qs' "
        "holds no question, only its rejected candidates, for review on the Workspace page (where one may be "
        "accepted after an edit)"
    ]
    # Nothing kept, yet every rejection is stored with its reason, reviewable (issue 34 item 7).
    assert get_benchmark(docs_workspace, "qs")["n_questions"] == 0 and load_questions(docs_workspace, "qs") == []
    stored = json.loads(get_benchmark(docs_workspace, "qs")["metadata"])
    assert sorted(r["reason"] for r in stored["rejections"]) == ["too_generic"] + ["unsupported"] * 5
    assert {r["question"] for r in stored["rejections"]} == {"What is the answer?"}
    assert get_prompt_version(docs_workspace, stored["generator"]["prompt_version"])["template"] == (
        "question-generation"
    )


def test_a_run_whose_every_call_failed_stores_nothing(docs_workspace, capsys, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_RETRY_DELAY_S", "0.01")  # the retries still fail, without waiting between them
    code, out, err = call(
        capsys, "questions", "generate", "--db", str(docs_workspace.path), "--corpus", "guide",
        "--model", "openai:nobody@http://127.0.0.1:9/v1", "--name", "qs", "--n", "2", "--two-hop-share", "0",
        "--timeout", "2",
    )  # fmt: skip
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 1 and errors[-1].endswith("no dataset written"), err
    assert "qs" not in {row["name"] for row in docs_workspace.db.query("SELECT name FROM benchmarks")}
    assert docs_workspace.db["prompt_versions"].count == 0  # the generator's version is stored with its questions


def test_a_local_model_that_keeps_nothing_is_called_too_small_and_told_of_a_server():
    from playground.questions.outcome import model_hint

    hint = model_hint("local:smollm2", 0, 34, replied=True)
    assert hint is not None and "too small" in hint and "openai:MODEL@URL" in hint
    assert model_hint("local:smollm2", 1, 34, replied=True) is None
    assert model_hint("openai:big@http://127.0.0.1:9/v1", 0, 34, replied=True) is None
    assert model_hint("local:smollm2", 0, 34, replied=False) is None


def test_a_file_not_named_as_a_template_is_refused_before_the_model_is_asked(docs_workspace, model, capsys, tmp_path):
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$salt$hash:19000:0:99999:7:::\n", encoding="utf-8")
    db = str(docs_workspace.path)
    code, out, err = call(
        capsys, "questions", "generate", "--db", db, "--corpus", "guide", "--model", model.spec,
        "--name", "qs", "--n", "2", "--template", str(secret),
    )  # fmt: skip
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 1 and errors == [f"error: template file {secret}: a template file's name ends in .jinja"]
    assert model.prompts == [] and docs_workspace.db["prompt_versions"].count == 0


def test_two_hop_questions_pair_related_chunks_and_keep_both_spans(docs_workspace, model, capsys):
    db = str(docs_workspace.path)
    code, out, err = call(
        capsys, "questions", "generate", "--db", db, "--corpus", "guide", "--model", model.spec,
        "--name", "hops", "--n", "4", "--two-hop-share", "1", "--seed", "1",
    )  # fmt: skip
    assert code == 0, err
    questions = load_questions(docs_workspace, "hops")
    assert questions and all(q.metadata["kind"] == "two-hop" for q in questions)
    texts = {p["id"]: p["text"] for p in docs_workspace.db.query("SELECT id, text FROM passages")}
    documents = {"guide/lighthouse.md": GUIDE, "guide/mines.md": MINES}
    for question in questions:
        first, second = question.gold_passage_ids
        assert first != second and question.metadata["link"] in ("neighbour", "bm25")
        answer_span, bridge_span = question.metadata["gold_spans"]
        assert documents[answer_span["document"]][answer_span["start"] : answer_span["end"]] == question.answers[0]
        assert documents[bridge_span["document"]][bridge_span["start"] : bridge_span["end"]] == texts[first]


def test_a_call_past_the_timeout_is_a_model_error_and_the_rest_go_on(docs_workspace, capsys):
    def slow_on_the_keepers(prompt: str) -> str:
        if "Grey Shoal" in prompt:
            time.sleep(1.5)  # three times the deadline
        return reply_to(prompt)

    server = ScriptedModel(slow_on_the_keepers)
    try:
        code, out, err = call(
            capsys, "questions", "generate", "--db", str(docs_workspace.path), "--corpus", "guide",
            "--model", server.spec, "--name", "qs", "--n", "6", "--two-hop-share", "0", "--timeout", "0.5", "--json",
        )  # fmt: skip
    finally:
        server.close()
    report = json.loads(out)
    assert code == 0, err
    assert report["rejected"]["model_error"] == 1 and report["kept"] == 1
    (failed,) = [r for r in report["rejections"] if r["reason"] == "model_error"]
    assert failed["source_passage_ids"] == ["guide/lighthouse.md#2"]


@pytest.mark.parametrize("name", ["guide@1a2b3c4d", "guide~tokens-128-0"])
def test_a_question_set_may_not_take_a_corpus_version_name(docs_workspace, model, capsys, name):
    """NAME@<set id> is the name a re-import gives an older version of corpus NAME (and NAME~... another chunking):
    a question set named so would be confused with it."""
    db = str(docs_workspace.path)
    code, _, err = call(capsys, "questions", "generate", "--db", db, "--corpus", "guide", "--model", model.spec,
                        "--name", name, "--n", "2")  # fmt: skip
    assert code == 1 and f"error: --name {name!r}: " in err and "name corpus versions" in err
    assert model.prompts == [] and not docs_workspace.db["benchmarks"].count_where("name = ?", [name])
