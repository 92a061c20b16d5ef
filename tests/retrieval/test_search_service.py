"""`http-search` (issue 36, item 5) against a real HTTP server on 127.0.0.1 speaking DSP's ColBERTv2 shape and an
Elasticsearch-like JSON shape (tests/retrieval/search_server.py: a stub, since no ColBERTv2 server runs offline):
the hits and their text, bad answers as one line naming the service, and a run that keeps the text it read."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.models.errors import ModelError
from playground.retrieval.base import Hit
from playground.retrieval.hybrid import reciprocal_rank_fusion
from playground.retrieval.index import open_retriever
from playground.retrieval.registry import resolve_params
from tests.conftest import TINY_PASSAGES
from tests.retrieval.search_server import SearchServer, ranked

PASSAGES = [(p.id, p.title, p.text) for p in TINY_PASSAGES]
ELASTIC = {
    "method": "POST",
    "query_param": "q",
    "k_param": "size",
    "results": "hits.hits",
    "id_field": "_id",
    "text_field": "_source.body",
    "score_field": "_score",
    "title_field": "_source.title",
}


@pytest.fixture
def service():
    servers: list[SearchServer] = []

    def start(mode: str = "ok", passages=PASSAGES) -> SearchServer:
        servers.append(SearchServer(passages, mode).start())
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def test_a_colbert_server_is_asked_by_get_and_its_passages_come_back_with_their_text(service, tiny_workspace):
    server = service()
    retriever = open_retriever(tiny_workspace, "tiny", "http-search", {"url": f"{server.url}/wiki17_abstracts"})
    hits = retriever.search("Which river flows through Paris?", 2)
    assert server.requests == [
        ("GET", "/wiki17_abstracts", {"query": "Which river flows through Paris?", "k": "2"}, None)
    ]
    assert [(h.passage_id, h.rank) for h in hits] == [("3", 1), ("0", 2)] and hits[0].score == 4.0
    assert all(h.text is not None for h in hits)
    assert hits[0].text == f"Seine | {TINY_PASSAGES[3].text}"
    assert retriever.manifest["service"] == server.url.split("/")[2] and retriever.manifest["files"] == {}


def test_a_json_shape_described_by_parameters_is_asked_by_post(service, tiny_workspace):
    server = service()
    retriever = open_retriever(tiny_workspace, "tiny", "http-search", {"url": f"{server.url}/search", **ELASTIC})
    hits = retriever.search("Guido's programming language 🐍", 3)
    assert server.requests[0][:2] == ("POST", "/search")
    assert server.requests[0][3] == {"q": "Guido's programming language 🐍", "size": 3}
    assert hits[0] == Hit("p5", 3.0, 1, title="Python", text=TINY_PASSAGES[4].text)
    assert len(hits) == 3


def test_an_eval_retrieval_scores_a_service_by_its_ids_and_looks_for_answers_in_its_own_text(service, workspace):
    from playground.data.records import Dataset
    from playground.evaluation.retrieval import evaluate_retriever
    from playground.store.datasets import save_dataset
    from tests.conftest import tiny_dataset

    tiny = tiny_dataset()
    questions = [q for q in tiny.questions if q.id in ("q1", "q3")]  # France's capital; the river through Paris
    save_dataset(workspace, "svc", Dataset("jsonl", "test", tiny.passages, questions))
    moved = [(pid, title, text.replace("Seine", "Sequana")) for pid, title, text in PASSAGES]
    server = service(passages=moved)  # the service's text differs from the corpus's: answers are looked for in it
    params = {"url": f"{server.url}/search", **ELASTIC}
    result = evaluate_retriever(workspace, "svc", "http-search", 1, None, 0, params)
    assert result["n"] == 2 and result["recall@k"] == 1.0  # p1 and p4 first, by the ids the service sent
    assert result["answer_recall@k"] == 0.5  # "Seine" is not in what the service answered for q3


@pytest.mark.parametrize(
    "mode, words",
    [
        ("badjson", "the answer is not JSON"),
        ("nolist", "the answer has nothing at 'topk', not a list"),
        ("notext", "result 1 has nothing at 'text', not text"),
        ("nanscore", "result 1 has nan at 'score', not a finite number"),
    ],
)
def test_a_malformed_answer_is_one_line_naming_the_service(service, tiny_workspace, mode, words):
    server = service(mode)
    retriever = open_retriever(tiny_workspace, "tiny", "http-search", {"url": server.url})
    retriever.service.policy = type(retriever.service.policy)(max_attempts=1)  # a retried answer says the same
    with pytest.raises(ModelError) as caught:
        retriever.search("capital of France", 3)
    message = str(caught.value)
    assert message.startswith(f"search service {server.url.split('/')[2]}: ") and words in message, message
    assert "\n" not in message


def test_an_oversized_answer_stops_at_the_response_size_cap(service, tiny_workspace, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_MAX_RESPONSE_BYTES", str(64 * 1024))
    server = service("huge")
    retriever = open_retriever(tiny_workspace, "tiny", "http-search", {"url": server.url})
    with pytest.raises(ModelError) as caught:
        retriever.search("capital of France", 3)
    message = str(caught.value)
    assert message.startswith(f"search service {server.url.split('/')[2]}: ") and "\n" not in message
    assert "over the 65,536 bytes response size limit" in message, message


def test_a_stalled_service_is_one_line_within_the_question_deadline(service, tiny_workspace):
    import time

    from playground.deadlines import question_deadline

    server = service("stall")
    retriever = open_retriever(tiny_workspace, "tiny", "http-search", {"url": server.url})
    started = time.monotonic()
    with question_deadline(1.0), pytest.raises(ModelError) as caught:
        retriever.search("capital of France", 3)
    assert time.monotonic() - started < 1.0 + 2.0
    message = str(caught.value)
    assert message.startswith(f"search service {server.url.split('/')[2]}: no complete answer within 1 s"), message


def test_settings_that_name_no_service_or_would_store_a_key_are_refused():
    for params, words in (
        ({}, "'url'='' must be an http(s) URL with a host"),
        ({"url": "http://h/search?api_key=sk-live-99"}, "holds credentials or a query string"),
        ({"url": "file:///etc/passwd"}, "must be an http(s) URL with a host"),
        ({"url": "http://h/search", "key_env": "MY KEY"}, "is no variable name"),
    ):
        with pytest.raises(PlaygroundError, match="^retriever 'http-search' parameter") as caught:
            resolve_params("http-search", params)
        assert words in str(caught.value) and "sk-live-99" not in str(caught.value)


def test_a_run_keeps_the_text_the_service_answered_after_the_service_changes(service, tiny_workspace, monkeypatch):
    from playground import cli
    from playground.store.runs import get_results, get_spans, list_runs
    from tests.openai_server import OpenAIServer

    monkeypatch.setenv("SEARCH_KEY", "sk-search-secret-4242")
    server = service()
    chat = OpenAIServer().start()
    try:
        argv = ["run", "--db", str(tiny_workspace.path), "--dataset", "tiny", "--program", "rag", "-k", "2"]
        argv += ["--retriever", "http-search", "--param", f"url={server.url}", "--param", "key_env=SEARCH_KEY"]
        assert cli.main([*argv, "--model", f"openai:m@{chat.url}", "--sample", "1", "--seed", "3"]) == 0
    finally:
        chat.close()
    server.passages = [(pid, title, "changed") for pid, title, _ in PASSAGES]
    (run,) = list_runs(tiny_workspace)
    assert run.config["retriever_params"] == {"url": server.url, "key_env": "SEARCH_KEY"}
    (result,) = get_results(tiny_workspace, run.id)
    assert result["error"] is None
    (retrieve,) = [s for s in get_spans(tiny_workspace, run.id, result["question_id"]) if s["kind"] == "retrieve"]
    query = retrieve["inputs"]["query"]
    expected = [f"{PASSAGES[i][1]} | {PASSAGES[i][2]}" for i, _ in ranked(PASSAGES, query, 2)]
    assert [hit["text"] for hit in retrieve["outputs"]["hits"]] == expected  # as answered, not "changed"
    assert expected[0] in str(chat.requests[0])  # the prompt showed the service's text
    files = [f for f in tiny_workspace.path.parent.iterdir() if f.is_file()]  # the database and its journal
    assert files and not [f for f in files if b"sk-search-secret" in f.read_bytes()]


def test_hybrid_fusion_keeps_the_text_a_service_brought():
    fused = reciprocal_rank_fusion(
        [
            [Hit("p1", 3.0, 1)],
            [Hit("s9", 1.0, 1, title="हिन्दी", text="नमस्ते दुनिया"), Hit("p1", 0.5, 2, title="", text="x")],
        ],
        60,
        3,
    )
    assert fused[0] == Hit("p1", fused[0].score, 1, title="", text="x")
    assert fused[1] == Hit("s9", 1 / 61, 2, title="हिन्दी", text="नमस्ते दुनिया")
