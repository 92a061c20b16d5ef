"""A key in a model spec's URL and a key a server echoes back never reach the workspace, its WAL, an export or
the logs: a real run through the CLI against a small OpenAI-compatible server of the test's own."""

from __future__ import annotations

import json
import logging
import uuid
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

import pytest

from playground.cli import main
from playground.redaction import redact, redact_value, url_secrets
from tests.openai_server import send_payload, serve_in_thread


class EchoServer:
    """POST .../chat/completions: answers with the key it was given (query string or bearer header) in the text."""

    def __init__(self):
        self.seen: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server naming
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                parts = urlsplit(self.path)
                key = (parse_qs(parts.query).get("api_key") or [""])[0] or (
                    self.headers.get("Authorization") or ""
                ).removeprefix("Bearer ")
                server.seen.append({"path": self.path, "key": key})
                reply = {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": f"echo-{key}",
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": f"Paris (my key is {key})"},
                        }
                    ],
                    "usage": {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12},
                }
                send_payload(self, 200, json.dumps(reply).encode())

            def log_message(self, *args):
                pass

        self.httpd = serve_in_thread(Handler)
        self.port = self.httpd.server_address[1]

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def echo_server():
    server = EchoServer()
    yield server
    server.close()


def test_redaction_rules():
    key = "sk-" + uuid.uuid4().hex
    assert url_secrets(f"https://h/v1?api_key={key}&x=1") == [key]
    assert url_secrets(f"https://user:{key}@h/v1") == [key]
    assert redact(f"GET https://h/v1?key={key}&x=1") == "GET https://h/v1?key=[redacted]&x=1"
    assert redact(f"https://bob:{key}@host/v1") == "https://[redacted]@host/v1"
    assert redact_value({"headers": {"Authorization": f"Bearer {key}"}, "n": 1}) == {
        "headers": {"Authorization": "[redacted]"},
        "n": 1,
    }


def test_key_in_spec_url_and_echoed_key_are_written_nowhere(
    tmp_path, tiny_workspace, echo_server, capsys, caplog, monkeypatch
):
    caplog.set_level(logging.DEBUG)
    key = "sk-test-" + uuid.uuid4().hex
    db = str(tiny_workspace.path)
    tiny_workspace.close()
    spec = f"openai:echo@http://127.0.0.1:{echo_server.port}/v1?api_key={key}"
    assert (
        main(
            [
                "run",
                "--db",
                db,
                "--dataset",
                "tiny",
                "--program",
                "direct",
                "--model",
                spec,
                "--sample",
                "3",
                "--max-tokens",
                "8",
                "--json",
            ]
        )
        == 0
    )
    run = json.loads(capsys.readouterr().out)
    assert main(["run", "--db", db, "--repeat", run["run_id"], "--json"]) in (
        0,
        1,
    )  # repeat: the stored spec is redacted
    export = tmp_path / "export.json"
    assert main(["session", "export", "default", "-o", str(export), "--db", db]) == 0
    assert main(["trace", run["run_id"], "q1", "--db", db]) in (0, 1)
    output = capsys.readouterr()

    assert echo_server.seen and all(seen["key"] == key for seen in echo_server.seen[:3])  # the key was used...
    exported = json.loads(export.read_text())
    outputs = [r["output"] or "" for r in exported["results"]]
    assert any("my key is [redacted]" in text for text in outputs)  # ...and the echo came back, scrubbed
    needle = key.encode()
    places = {"workspace": tmp_path / "sessions" / "playground.db", "export": export}
    places.update({p.name: p for p in (tmp_path / "sessions").glob("playground.db-*")})  # -wal, -shm
    for name, path in places.items():
        assert needle not in path.read_bytes(), f"the key is in the {name} file {path}"
    assert key not in output.out and key not in output.err
    assert all(key not in record.getMessage() for record in caplog.records)
