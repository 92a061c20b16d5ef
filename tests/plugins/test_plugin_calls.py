"""The plugin boundary (playground.plugins.calls): a plugin whose hook raises, exits, interrupts, sleeps past the
question's deadline or returns the wrong type, a NaN or an infinity is named with its hook in one line; it is never
`a bug in playground`, never a silent exit, never a hang. Real plugins through the real plugin manager."""

from __future__ import annotations

import json
import math
import time

import pytest

import playground.cli as cli
from playground import PlaygroundError
from playground.models.retry import question_deadline
from playground.plugins import Chunker, Importer, Metric, ModelProvider, RetrieverKind, hookimpl
from playground.retrieval.base import Hit
from tests.plugins.helpers import registered


def call(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as exit:  # what a plugin's SystemExit did before the boundary: the command ended silently
        code = f"SystemExit({exit.code!r})"
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_naming(err: str, *names: str) -> bool:
    return err.count("\n") == 1 and all(name in err for name in names) and "a bug in playground" not in err


class ListRetriever:
    """A retriever over the corpus's passage ids whose search returns what the test puts in `answer`."""

    kind = "list"
    answer = staticmethod(lambda ids: [Hit(ids[0], 1.0, 1)])
    build_error: BaseException | None = None

    def __init__(self, ids):
        self.ids = ids

    @classmethod
    def build(cls, source, params, path, on_progress=None):
        if cls.build_error is not None:
            raise cls.build_error
        (path / "ids.json").write_text(json.dumps([p.id for p in source.passages()]))
        return {}

    @classmethod
    def load(cls, source, params, path):
        return cls(json.loads((path / "ids.json").read_text()))

    @staticmethod
    def versions():
        return {}

    def search(self, query, k):
        return type(self).answer(self.ids)


def retriever_kind(name: str, **behaviour) -> RetrieverKind:
    return RetrieverKind(name, type(f"Retriever_{name.replace('-', '_')}", (ListRetriever,), behaviour))


def retrieve(capsys, workspace, kind: str):
    return call(capsys, "retrieve", "--db", str(workspace.path), "--dataset", "tiny", "--retriever", kind, "paris")


def test_a_retriever_plugin_that_works_still_answers(tiny_workspace, capsys):
    with registered(retriever_kind("fine"), name="acme"):
        code, out, err = retrieve(capsys, tiny_workspace, "fine")
    assert code == 0, err
    assert "p1" in out


@pytest.mark.parametrize(
    "answer, problem",
    [
        (lambda ids: ["p1", "p2"], "search returned list ['p1', 'p2']: hit 1 is a str"),
        (lambda ids: "p1", "search returned str 'p1': expected a list"),
        (lambda ids: [Hit(ids[0], math.nan, 1)], "hit 1 has score nan, not a finite number"),
        (lambda ids: [Hit(ids[0], math.inf, 1)], "hit 1 has score inf, not a finite number"),
    ],
)
def test_a_retriever_returning_the_wrong_thing_is_named_with_its_hook(tiny_workspace, capsys, answer, problem):
    with registered(retriever_kind("odd", answer=staticmethod(answer)), name="acme"):
        code, out, err = retrieve(capsys, tiny_workspace, "odd")
    assert code == 1 and not out
    assert one_line_naming(err, "retriever 'odd' of plugin 'acme' (in-process)", problem), err


def test_a_retriever_raising_in_build_is_named_with_its_hook(tiny_workspace, capsys):
    with registered(retriever_kind("fragile", build_error=MemoryError("no room for the index")), name="acme"):
        code, _, err = retrieve(capsys, tiny_workspace, "fragile")
    assert code == 1
    assert one_line_naming(err, "retriever 'fragile' of plugin 'acme'", "build failed: MemoryError: no room"), err


def test_a_search_sleeping_past_the_deadline_ends_in_time_naming_the_hook(tiny_workspace):
    from playground.retrieval.index import open_retriever

    def sleepy(ids):
        time.sleep(30)
        return []

    with registered(retriever_kind("sleepy", answer=staticmethod(sleepy)), name="acme"):
        retriever = open_retriever(tiny_workspace, "tiny", "sleepy")
        started = time.monotonic()
        with question_deadline(0.5), pytest.raises(PlaygroundError) as raised:
            retriever.search("paris", 3)
    assert time.monotonic() - started < 5
    assert "retriever 'sleepy' of plugin 'acme' (in-process): search did not return within the question's 0.5 s" in (
        str(raised.value)
    )


@pytest.mark.parametrize(
    "value, problem",
    [
        ("high", "score returned str 'high': expected a number"),
        (10**400, "the number is too large for a float"),
        (math.nan, "expected a finite number"),
        (-math.inf, "expected a finite number"),
    ],
)
def test_a_metric_returning_no_finite_number_is_named_and_nothing_is_stored(value, problem):
    from playground.evaluation.scoring import score_prediction

    with registered(Metric("odd", lambda item: value), name="acme"):
        with pytest.raises(
            PlaygroundError, match="metric 'odd' of plugin 'acme' \\(in-process\\): score returned"
        ) as raised:
            score_prediction("Paris", ["Paris"])
    assert problem in str(raised.value)


def test_a_metric_raising_system_exit_is_a_plugin_error_not_an_exit():
    from playground.evaluation.scoring import score_prediction

    def leave(item):
        raise SystemExit(0)

    with registered(Metric("leaver", leave), name="acme"):
        with pytest.raises(PlaygroundError, match="metric 'leaver' of plugin 'acme'.*: score raised SystemExit\\(0\\)"):
            score_prediction("Paris", ["Paris"])


def test_a_chunker_returning_a_string_is_named_with_its_hook():
    from playground.data.documents.chunking import Chunking, cut
    from playground.data.documents.parsed import ParsedDocument

    with registered(Chunker("stringy", lambda document, **options: "0,5"), name="acme"):
        with pytest.raises(PlaygroundError, match="chunker 'stringy' of plugin 'acme'.*: chunk returned str '0,5'"):
            cut(ParsedDocument("Paris is the capital of France."), Chunking(chunker="stringy"))


def test_a_provider_returning_no_model_is_named_with_its_hook():
    from playground.models.registry import load_model

    provider = ModelProvider("nomodel", lambda parsed, spec, **options: "a string", "nomodel:MODEL", "nomodel:m")
    with registered(provider, name="acme"):
        with pytest.raises(PlaygroundError, match="model provider 'nomodel' of plugin 'acme'.*: load returned str"):
            load_model("nomodel:m")


def test_an_importer_raising_keyboard_interrupt_is_a_plugin_error_not_an_interrupt(tmp_path):
    from playground.data.importers import read_dataset

    def interrupting(path):
        raise KeyboardInterrupt

    with registered(Importer("stops", interrupting), name="acme"):
        with pytest.raises(PlaygroundError, match="importer 'stops' of plugin 'acme'.*: read raised KeyboardInterrupt"):
            read_dataset("stops", tmp_path / "x.json")


class ExitsWhileRegistering:
    @hookimpl
    def register_metrics(self, register):
        raise SystemExit(0)


class InterruptsWhileRegistering:
    @hookimpl
    def register_chunkers(self, register):
        raise KeyboardInterrupt


@pytest.mark.parametrize(
    "plugin, said",
    [
        (ExitsWhileRegistering(), "failed in register_metrics: raised SystemExit(0); a plugin must not end"),
        (InterruptsWhileRegistering(), "failed in register_chunkers: raised KeyboardInterrupt; a plugin must not"),
    ],
)
def test_a_plugin_ending_the_program_while_registering_is_left_out_and_every_command_works(
    plugin, said, workspace, capsys
):
    from playground.plugins import add_plugin, remove_plugin

    add_plugin(plugin, "quitter")
    try:
        code, out, err = call(capsys, "session", "new", "mine", "--db", str(workspace.path))
    finally:
        remove_plugin("quitter")
    assert code == 0 and out.strip()
    assert f"plugin 'quitter' (in-process) {said}" in err and err.count("\n") == 1


class LoadsWithEscapes:
    @hookimpl
    def register_metrics(self, register):
        raise RuntimeError("\x1b[2J\x1b]0;owned\x07 cleared your screen")


def test_a_plugins_load_error_reaches_the_terminal_escaped(workspace, capsys):
    from playground.plugins import add_plugin, remove_plugin

    add_plugin(LoadsWithEscapes(), "loud")
    try:
        code, _, err = call(capsys, "session", "new", "mine", "--db", str(workspace.path))
    finally:
        remove_plugin("loud")
    assert code == 0
    assert "\\x1b[2J\\x1b]0;owned\\x07 cleared your screen" in err and "\x1b" not in err and "\x07" not in err


def test_a_third_party_log_line_reaches_the_terminal_escaped(capsys):
    import logging

    from playground.terminal_log import install_terminal_logging

    install_terminal_logging()
    logging.getLogger("pypdf._reader").warning("Ignoring wrong pointing object in %s", "a\x1b]0;x\x07\nb.pdf")
    err = capsys.readouterr().err
    assert err == "Ignoring wrong pointing object in a\\x1b]0;x\\x07\\nb.pdf\n"


def test_a_plugin_raising_the_projects_error_keeps_its_words():
    from playground.evaluation.scoring import score_prediction

    def refuses(item):
        raise PlaygroundError("acme needs a reference in French")

    with registered(Metric("picky", refuses), name="acme"):
        with pytest.raises(PlaygroundError, match="^acme needs a reference in French$"):
            score_prediction("Paris", ["Paris"])


@pytest.fixture
def chat_server():
    from tests.openai_server import OpenAIServer

    running = OpenAIServer().start()
    yield running
    running.close()


def sleepy_search(ids):
    time.sleep(60)
    return []


def sleepy_load(parsed, spec, **options):
    time.sleep(60)


@pytest.mark.slow
@pytest.mark.parametrize(
    "record, flags, said",
    [
        (
            retriever_kind("sleepy", answer=staticmethod(sleepy_search)),
            ["--program", "rag", "--retriever", "sleepy", "--model", "SERVER"],
            "retriever 'sleepy' of plugin 'acme' (in-process): search did not return within the question's 0.5 s deadline",
        ),
        (
            ModelProvider("sleepy", sleepy_load, "sleepy:MODEL", "sleepy:m"),
            ["--program", "direct", "--model", "sleepy:m"],
            "model provider 'sleepy' of plugin 'acme' (in-process): load did not return within the question's 0.5 s",
        ),
    ],
)
def test_a_plugin_sleeping_in_a_run_ends_at_the_runs_deadline_naming_plugin_and_hook(
    tiny_workspace, chat_server, capsys, record, flags, said
):
    argv = ["run", "--db", str(tiny_workspace.path), "--dataset", "tiny", "--sample", "1", "--timeout", "0.5"]
    argv += [chat_server.spec() if flag == "SERVER" else flag for flag in flags]
    with registered(record, name="acme"):
        started = time.monotonic()
        code, _, err = call(capsys, *argv)
    assert time.monotonic() - started < 20
    assert code == 1 and said in err
    assert err.strip().splitlines()[-1].startswith("error: ") and "Traceback" not in err


def test_a_judges_read_verdict_raising_is_named_with_its_hook():
    from playground.evaluation.judges.plugged import _verdict_reader
    from playground.plugins import JudgeKind

    def grumpy(text):
        raise LookupError("no verdict table")

    with registered(JudgeKind("grumpy", {"judge": "judge-pointwise"}, read_verdict=grumpy), name="acme"):
        with pytest.raises(
            PlaygroundError, match="judge 'grumpy' of plugin 'acme'.*: read_verdict failed: LookupError"
        ):
            _verdict_reader("grumpy", grumpy)("Score: 1")


def test_a_parser_exiting_skips_its_file_naming_the_plugin(tmp_path):
    from playground.data.documents.folder import read_documents
    from playground.plugins import DocumentParser

    def leaves(path):
        raise SystemExit(0)

    (tmp_path / "notes.acme").write_text("Paris is the capital of France.", encoding="utf-8")
    (tmp_path / "plain.txt").write_text("Berlin is the capital of Germany.", encoding="utf-8")
    with registered(DocumentParser("acme", leaves, (".acme",)), name="acme"):
        folder = read_documents(tmp_path)
    assert [document.path for document in folder.documents] == ["plain.txt"]
    (skipped, reason), *_ = folder.skipped
    assert skipped == "notes.acme"
    assert "document parser 'acme' of plugin 'acme' (in-process): parse raised SystemExit(0)" in reason


@pytest.mark.slow
@pytest.mark.parametrize(
    "behaviour, said",
    [("raise", "run failed: ZeroDivisionError"), ("string", "run returned str 'Paris': expected a playground")],
)
def test_a_program_plugin_failing_is_named_with_its_hook(tiny_workspace, chat_server, capsys, behaviour, said):
    from playground.programs.base import program

    @program("brittle", needs_retriever=False, default_templates={"main": "direct-short-answer"})
    def brittle(context, question):
        """Fails its way."""
        return 1 / 0 if behaviour == "raise" else "Paris"

    argv = ["run", "--db", str(tiny_workspace.path), "--dataset", "tiny", "--program", "brittle", "--sample", "1"]
    with registered(brittle, name="acme"):
        code, _, err = call(capsys, *argv, "--model", chat_server.spec())
    assert code == 1
    assert f"program 'brittle' of plugin 'acme' (in-process): {said}" in err and "a bug in playground" not in err
