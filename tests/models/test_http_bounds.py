"""Bounded whatever the server does (issue 21): a real server on 127.0.0.1, in a process of its own, that trickles
its answer a byte every 0.2 s, sends 300 MB, or sends a gzip bomb. Each ends as a recorded error within the question's
deadline and the response size cap, and leaves no thread or socket behind.

Every deadline here is at least four bytes of a trickle long: no wait between two reads reaches it, so only a deadline
on the whole answer ends it. The waits are as short as that allows: a waiting test idles a core."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from playground.data.records import Dataset, Passage, Question
from playground.runs import Execution, RunConfig, start_run
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.runs import get_results
from tests.conftest import tiny_dataset
from tests.openai_server import send_payload, serve_in_thread
from tests.processes import free_port, served

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
MB = 1024 * 1024
TRICKLE_EVERY_S = 0.2
DEADLINE_S = 1.0  # five bytes of the trickle; shorter, a loaded machine may not send the headers in time
CUT_OFF = f"no complete answer within {DEADLINE_S:g} s ("


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """`python -m tests.openai_server` on a free port: the model name picks the misbehaviour (trickle, huge, ...)."""
    port = free_port()
    log = tmp_path_factory.mktemp("hostile") / "server.log"
    command = [
        sys.executable,
        "-m",
        "tests.openai_server",
        "--port",
        str(port),
        "--trickle-every",
        str(TRICKLE_EVERY_S),
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with served("tests.openai_server", command, f"http://127.0.0.1:{port}/health", log, 60, env=env, cwd=ROOT):
        yield f"http://127.0.0.1:{port}/v1"


def cli(db, *argv, timeout=120) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "playground", *argv, "--db", str(db)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=timeout,
        cwd=ROOT,
    )


def tiny_db(path: Path) -> Path:
    workspace = open_workspace(path)
    save_dataset(workspace, "tiny", tiny_dataset())
    workspace.close()
    return path


def test_a_trickling_answer_is_a_recorded_error_and_the_run_ends_within_its_timeout(hostile, tmp_path, capsys):
    db = tiny_db(tmp_path / "trickle.db")
    done = cli(
        db,
        "run",
        "--dataset",
        "tiny",
        "--sample",
        "1",
        "--model",
        f"openai:trickle@{hostile}",
        "--max-tokens",
        "8",
        "--timeout",
        str(DEADLINE_S),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    from playground.cli import main

    capsys.readouterr()
    assert main(["runs", "--json", "--db", str(db)]) == 0  # read back in this process: the run's process has ended
    (run,) = json.loads(capsys.readouterr().out)
    assert run["status"] == "done" and run["errors"] == 1 and run["seconds"] < DEADLINE_S + 5, run
    workspace = open_workspace(db, create=False)
    try:
        (result,) = get_results(workspace, run["id"])
    finally:
        workspace.close()
    assert CUT_OFF in result["error"] and "bytes received)" in result["error"]


def socket_fds() -> set[str]:
    """This process's open sockets, as /proc names them (socket:[inode])."""
    names = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:"):
            names.add(target)
    return names


def eight_questions() -> Dataset:
    passages = [Passage(f"p{i}", f"Item {i}", f"Item {i} has the code C{i}.") for i in range(8)]
    questions = [Question(f"q{i}", f"What is the code of item {i}?", [f"C{i}"], [f"p{i}"]) for i in range(8)]
    return Dataset(format="jsonl", source="tests/models/test_http_bounds.py", passages=passages, questions=questions)


def test_eight_trickling_questions_at_once_end_by_the_deadline_and_leave_no_thread_or_socket(hostile, tmp_path):
    workspace = open_workspace(tmp_path / "eight.db")
    save_dataset(workspace, "eight", eight_questions())
    threads, sockets = set(threading.enumerate()), socket_fds()
    deadline_s = DEADLINE_S
    try:
        config = RunConfig(dataset="eight", program="direct", model=f"openai:trickle@{hostile}")
        started = time.monotonic()
        summary = start_run(workspace, config, execution=Execution(concurrency=8, timeout_s=deadline_s))
        elapsed = time.monotonic() - started
        results = get_results(workspace, summary.run_id)
    finally:
        workspace.close()
    assert summary.status == "done" and summary.n == 8 and summary.errors == 8
    assert elapsed < deadline_s + 5, f"{elapsed:.1f} s"
    assert all(CUT_OFF in r["error"] for r in results), [r["error"] for r in results]
    assert [t.name for t in threading.enumerate() if t not in threads] == []
    assert socket_fds() - sockets == set()


PEAK_SCRIPT = """
import json, sys
from playground.runs import Execution, RunConfig, start_run
from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.store.runs import get_results
from tests.conftest import tiny_dataset

workspace = open_workspace(sys.argv[1])
save_dataset(workspace, "tiny", tiny_dataset())
errors = {}
for mode in ("huge", "gzipbomb"):
    config = RunConfig(dataset="tiny", program="direct", model=f"openai:{mode}@{sys.argv[2]}", sample=1)
    summary = start_run(workspace, config, execution=Execution(timeout_s=60))
    errors[mode] = [r["error"] for r in get_results(workspace, summary.run_id)]
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"errors": errors, "peak_kb": hwm}))
"""


def test_a_huge_body_and_a_gzip_bomb_are_recorded_errors_and_memory_stays_under_600_mb(hostile, tmp_path):
    """Peak memory of a fresh process (this one has held other things) as its VmHWM, the peak of its own pages."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    environment.pop("PLAYGROUND_MAX_RESPONSE_BYTES", None)
    done = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, str(tmp_path / "peak.db"), hostile],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=environment,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    for mode in ("huge", "gzipbomb"):
        (error,) = report["errors"][mode]
        assert error and "over the 16 MB response size limit" in error, (mode, error)
    assert report["peak_kb"] * 1024 < 600 * MB, report


def test_a_trickling_judge_records_judge_errors_within_its_deadline(hostile, tiny_workspace):
    from playground.evaluation.judges import JudgeConfig, judge_run_reference
    from playground.store.judgments import list_judgments
    from tests.evaluation.judges.conftest import make_run

    run_id = make_run(tiny_workspace, {"q1": "Paris", "q2": "Berlin"})
    started = time.monotonic()
    report = judge_run_reference(
        tiny_workspace, run_id, JudgeConfig(model=f"openai:trickle@{hostile}"), deadline_s=DEADLINE_S
    )
    elapsed = time.monotonic() - started
    judgments = list_judgments(tiny_workspace, run_id, kind="reference")
    assert report["n_failed"] == 2 and len(judgments) == 2
    assert all(CUT_OFF in j["error"] for j in judgments), [j["error"] for j in judgments]
    assert elapsed < 2 * DEADLINE_S + 5, f"{elapsed:.1f} s"


@pytest.fixture
def server():
    from tests.openai_server import OpenAIServer

    running = OpenAIServer().start()
    yield running
    running.close()


MESSAGES = [{"role": "user", "content": "What is the capital of France?"}]


def test_headers_sent_a_byte_at_a_time_are_cut_off_at_the_deadline(server):
    from playground.models.base import GenerationParams
    from playground.models.errors import ModelError
    from playground.models.registry import load_model
    from playground.models.retry import question_deadline

    server.trickle_every_s = TRICKLE_EVERY_S
    model = load_model(server.spec("slowheaders"))
    started = time.monotonic()
    with question_deadline(DEADLINE_S), pytest.raises(ModelError, match=re.escape(f"{CUT_OFF}0 bytes received)")):
        model.generate(MESSAGES, GenerationParams(max_tokens=8))
    assert time.monotonic() - started < DEADLINE_S + 1.5
    assert len(server.requests) == 1  # the deadline passed: no retry


@pytest.mark.parametrize("mode", ["gzip", "deflate"])
def test_a_compressed_answer_within_the_cap_reads_as_usual(server, mode):
    from playground.models.base import GenerationParams
    from playground.models.registry import load_model

    assert load_model(server.spec(mode)).generate(MESSAGES, GenerationParams(max_tokens=8)).text == "Paris"


def test_the_cap_comes_from_the_environment_and_a_bad_value_is_one_line(server, monkeypatch):
    from playground.models.base import GenerationParams
    from playground.models.errors import ModelError
    from playground.models.registry import load_model

    server.huge_bytes = 100_000
    monkeypatch.setenv("PLAYGROUND_MAX_RESPONSE_BYTES", "4096")
    with pytest.raises(ModelError, match=r"over the 4,096 bytes response size limit \(PLAYGROUND_MAX_RESPONSE_BYTES\)"):
        load_model(server.spec("huge")).generate(MESSAGES, GenerationParams(max_tokens=8))
    assert len(server.requests) == 1  # refused, not retried
    assert load_model(server.spec()).generate(MESSAGES, GenerationParams(max_tokens=8)).text == "Paris"
    monkeypatch.setenv("PLAYGROUND_MAX_RESPONSE_BYTES", "16MB")
    with pytest.raises(ModelError) as caught:
        load_model(server.spec())
    assert str(caught.value) == "PLAYGROUND_MAX_RESPONSE_BYTES must be a whole number of bytes above 0, not '16MB'"


def test_cohere_answers_are_capped_and_bounded_by_the_deadline(cohere_stub, monkeypatch):
    from playground.models.base import GenerationParams
    from playground.models.errors import ModelError
    from playground.models.registry import load_model
    from playground.models.retry import question_deadline
    from tests.models.conftest import cohere_reply

    cohere_stub.script = [(200, cohere_reply("word " * 2000), {})]
    monkeypatch.setenv("PLAYGROUND_MAX_RESPONSE_BYTES", "4096")
    model = load_model("cohere:command-r")
    with pytest.raises(ModelError, match=r"cohere:command-r: the answer is over the 4,096 bytes response size limit"):
        model.generate(MESSAGES, GenerationParams(max_tokens=8))
    monkeypatch.delenv("PLAYGROUND_MAX_RESPONSE_BYTES")
    cohere_stub.script = [(200, cohere_reply("Paris"), {})]
    cohere_stub.trickle_every_s = TRICKLE_EVERY_S
    started = time.monotonic()
    with question_deadline(DEADLINE_S), pytest.raises(ModelError, match=re.escape(CUT_OFF) + r"\d+ bytes received\)"):
        load_model("cohere:command-r").generate(MESSAGES, GenerationParams(max_tokens=8))
    assert time.monotonic() - started < DEADLINE_S + 1.5


def test_the_hugging_face_router_sends_through_the_bounded_client(server, monkeypatch):
    """Offline there is no router: the hub's shared client (the one InferenceClient posts through) is tried
    against the local server directly, once a router model has been loaded."""
    from huggingface_hub import get_session

    from playground.models.errors import ResponseTooLarge
    from playground.models.registry import load_model

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    load_model("hf:org/model")  # no request is made until generate
    with pytest.raises(ResponseTooLarge, match="over the 16 MB response size limit"):
        get_session().post(f"{server.url}/chat/completions", json={"model": "gzipbomb", "messages": MESSAGES})
    answer = get_session().post(f"{server.url}/chat/completions", json={"model": "gzip", "messages": MESSAGES})
    assert answer.json()["choices"][0]["message"]["content"] == "Paris"


def test_the_app_lists_a_cut_off_answer_among_the_runs_errors(hostile, tiny_workspace, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from playground.app.state import page_file

    config = RunConfig(dataset="tiny", program="direct", model=f"openai:trickle@{hostile}", sample=1)
    summary = start_run(tiny_workspace, config, execution=Execution(timeout_s=DEADLINE_S))
    assert summary.errors == 1
    monkeypatch.setenv("PLAYGROUND_DB", str(tiny_workspace.path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = AppTest.from_file(str(page_file("runs")), default_timeout=120)
    at.session_state["runs_open"] = summary.run_id
    at.run()
    assert not at.exception, at.exception
    runs = at.dataframe[0].value
    assert list(runs["errors"][runs["id"] == summary.run_id]) == [1]
    table = next(frame.value for frame in at.dataframe if "trace" in frame.value.columns)
    assert list(table["outcome"]) == ["error"]
    assert CUT_OFF in table["error"].iloc[0]


class ForwardProxy:
    """A plain-HTTP forward proxy on 127.0.0.1 (absolute-form requests), recording the URLs it forwards."""

    def __init__(self):
        import urllib.request
        from http.server import BaseHTTPRequestHandler

        proxy = self
        self.forwarded: list[str] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                proxy.forwarded.append(self.path)
                request = urllib.request.Request(
                    self.path, data=body, method="POST", headers={"Content-Type": "application/json"}
                )
                with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=10) as answer:
                    data = answer.read()
                send_payload(self, answer.status, data)

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_an_http_proxy_from_the_environment_is_used_and_no_proxy_skips_it(server, monkeypatch):
    from playground.models.base import GenerationParams
    from playground.models.registry import load_model

    proxy = ForwardProxy()
    try:
        for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("http_proxy", proxy.url)
        assert load_model(server.spec()).generate(MESSAGES, GenerationParams(max_tokens=8)).text == "Paris"
        assert proxy.forwarded == [f"{server.url}/chat/completions"]
        monkeypatch.setenv("no_proxy", "127.0.0.1")
        assert load_model(server.spec()).generate(MESSAGES, GenerationParams(max_tokens=8)).text == "Paris"
        assert len(proxy.forwarded) == 1 and len(server.requests) == 2
    finally:
        proxy.close()


def test_playground_judge_takes_a_timeout_per_judgment(hostile, tmp_path, capsys):
    from playground.cli import main
    from tests.evaluation.judges.conftest import make_run

    workspace = open_workspace(tmp_path / "judge.db")
    save_dataset(workspace, "tiny", tiny_dataset())
    run_id = make_run(workspace, {"q1": "Paris"})
    workspace.close()
    argv = ["judge", "reference", run_id, "--db", str(tmp_path / "judge.db")]
    capsys.readouterr()
    trickle = ["--judge-model", f"openai:trickle@{hostile}", "--timeout", str(DEADLINE_S), "--json"]
    assert main([*argv, *trickle]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n_failed"] == 1 and CUT_OFF in report["items"][0]["errors"][0]
    try:
        code = main([*argv, "--timeout", "0"])
    except SystemExit as exit_:
        code = exit_.code
    assert code != 0
    assert "--timeout must be more than 0 and at most 86,400 seconds, got 0" in capsys.readouterr().err


def read_any_score(text: str) -> dict:
    """A plugin judge's verdict reader (never reached here: the trickling server sends no whole reply)."""
    return {"score": 1.0, "reason": text}


def test_a_trickling_plugin_judge_keeps_its_deadline(hostile, tiny_workspace, tmp_path):
    """A plugin judge gets the deadline the built-in judges get (`judge NAME --timeout` was ignored for them)."""
    from playground.evaluation.judges import JudgeConfig
    from playground.evaluation.judges.answers import judge_answers
    from playground.plugins.records import Judge
    from playground.store.judgments import list_judgments
    from tests.evaluation.judges.conftest import make_run
    from tests.plugins.helpers import registered

    template = tmp_path / "strict.jinja"
    template.write_text("Question: {{ question }}\nAnswer: {{ answer }}\nScore 0-1:", encoding="utf-8")
    judge = Judge("strict", {"main": str(template)}, read_verdict=f"{__name__}:read_any_score")
    run_id = make_run(tiny_workspace, {"q1": "Paris"})
    started = time.monotonic()
    with registered(judge):
        report = judge_answers(
            tiny_workspace, "strict", run_id, JudgeConfig(model=f"openai:trickle@{hostile}"), deadline_s=DEADLINE_S
        )
    elapsed = time.monotonic() - started
    errors = [j["error"] for j in list_judgments(tiny_workspace, run_id, kind="strict")]
    assert errors and all(CUT_OFF in (e or "") for e in errors), (report, errors)
    assert elapsed < DEADLINE_S + 5, f"{elapsed:.1f} s"


def test_model_clients_share_one_ssl_context_until_the_certificate_setting_changes(tmp_path, monkeypatch):
    """Each model client loaded the certificate bundle anew (~20 ms of CPU each: every run, judge and model
    check made several); one context per certificate setting verifies alike."""
    import ssl

    import httpx

    from playground.models import bounded_http

    made: list[ssl.SSLContext] = []
    real = httpx.create_ssl_context
    monkeypatch.setattr(httpx, "create_ssl_context", lambda *a, **k: made.append(real(*a, **k)) or made[-1])
    monkeypatch.setattr(bounded_http, "_ssl_contexts", {})
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    first, second = bounded_http.bounded_client(), bounded_http.bounded_client()
    assert len(made) == 1
    assert first._transport._ssl_context is second._transport._ssl_context is made[0]
    import certifi

    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())
    third = bounded_http.bounded_client()
    assert len(made) == 2 and third._transport._ssl_context is made[1]
    for client in (first, second, third):
        client.close()
