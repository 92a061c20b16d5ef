"""The session file format: malformed or oversized files fail with a message naming the place, and change nothing."""

from __future__ import annotations

import copy
import json
import typing

import pytest

from playground.sessionfile import (
    ImportLimits,
    SessionFormatError,
    export_session,
    import_session,
    parse_session_bytes,
    read_session_file,
    validate,
    with_digest,
    write_session_file,
)
from playground.redaction import redact_value
from playground.store.content_ids import prompt_version_id
from tests.store.test_sessions import session_workspace, snapshot  # noqa: F401 (fixture)


@pytest.fixture
def exported(session_workspace):
    return json.loads(json.dumps(export_session(session_workspace, "study")))


def test_export_is_valid_and_versioned(exported):
    assert (
        exported["format"] == "playground-session"
        and exported["version"] == 8
        and exported["digest"].startswith("sha256:")
    )
    assert validate(exported) is exported
    assert len(exported["runs"]) == 2 and len(exported["results"]) == 12 and len(exported["spans"]) == 36
    assert isinstance(exported["runs"][0]["config"], dict)
    assert exported["benchmarks"][0]["name"] == "tiny"


def _break(payload: dict, mutate) -> dict:
    """A changed copy whose digest is recomputed, so the change itself is what the import meets."""
    broken = copy.deepcopy(payload)
    mutate(broken)
    return with_digest(broken) if broken.get("version", 0) >= 3 else broken


CASES = [
    ("wrong version", lambda p: p.update(version=9), r"^version: unsupported version 9"),
    ("missing version-2 section", lambda p: p.pop("judgments"), r"^judgments: missing$"),
    ("wrong format", lambda p: p.update(format="other"), r"^format: expected 'playground-session'"),
    ("missing section", lambda p: p.pop("spans"), r"^spans: missing$"),
    ("missing key", lambda p: p["runs"][1].pop("config"), r"^runs\[1\]\.config: missing$"),
    (
        "config not an object",
        lambda p: p["runs"][1].update(config="rm -rf /"),
        r"^runs\[1\]\.config: expected an object, got a string$",
    ),
    (
        "repeat not an int",
        lambda p: p["results"][4].update(repeat="0"),
        r"^results\[4\]\.repeat: expected an integer, got a string$",
    ),
    (
        "value not finite",
        lambda p: p["ratings"][0].update(value=float("nan")),
        r"^ratings\[0\]\.value: expected a finite number$",
    ),
    (
        "span of unknown run",
        lambda p: p["spans"][7].update(run_id="feedface0000"),
        r"^spans\[7\]\.run_id: refers to run 'feedface0000', which is not in the file$",
    ),
    (
        "dangling parent span",
        lambda p: p["spans"][1].update(parent_id="nope"),
        r"^spans\[1\]\.parent_id: refers to span 'nope'",
    ),
    (
        "rating of unknown run",
        lambda p: p["ratings"][1].update(other_run_id="gone"),
        r"^ratings\[1\]\.other_run_id: refers to run 'gone'",
    ),
    (
        "run of another session",
        lambda p: p["runs"][0].update(session_id="elsewhere"),
        r"^runs\[0\]\.session_id: is 'elsewhere'",
    ),
    (
        "duplicate span id",
        lambda p: p["spans"][2].update(id=p["spans"][0]["id"]),
        r"^spans\[2\]: duplicate of spans\[0\]",
    ),
    ("too long a name", lambda p: p["session"].update(name="x" * 201), r"^session\.name: string of 201 characters"),
    ("a blank name", lambda p: p["session"].update(name="  "), r"^session\.name: must not be empty$"),
    (
        "too long an id",
        lambda p: p["spans"][3].update(id="x" * 300),
        r"^spans\[3\]\.id: string of 300 characters is longer than the limit of 256$",
    ),
    ("unknown rating kind", lambda p: p["ratings"][0].update(kind="stars"), r"^ratings\[0\]\.kind: expected one of"),
    (
        "bad question",
        lambda p: p["benchmarks"][0]["questions"][2].update(answers="Paris"),
        r"^benchmarks\[0\]\.questions\[2\]\.answers: expected a list of strings",
    ),
    (
        "dangling prompt parent",
        lambda p: p["prompt_versions"][1].update(parent="abc"),
        r"^prompt_versions\[1\]\.parent: refers to prompt version 'abc'",
    ),
    ("top is a list", None, r"expected a JSON object at the top"),
]


@pytest.mark.parametrize("name,mutate,message", CASES, ids=[c[0] for c in CASES])
def test_malformed_files_fail_clearly_and_change_nothing(session_workspace, exported, name, mutate, message):
    broken = [exported] if mutate is None else _break(exported, mutate)
    before = snapshot(session_workspace)
    with pytest.raises(SessionFormatError, match=message):
        import_session(session_workspace, broken)
    assert snapshot(session_workspace) == before


def test_deeply_nested_json_is_refused(session_workspace, exported):
    deep: dict = {}
    node = deep
    for _ in range(100):
        node["x"] = {}
        node = node["x"]
    broken = _break(exported, lambda p: p["spans"][0].update(outputs=deep))
    with pytest.raises(SessionFormatError, match=r"^spans\[0\]\.outputs: nested deeper than 64"):
        import_session(session_workspace, broken)


def test_record_count_and_byte_caps(session_workspace, exported, tmp_path):
    before = snapshot(session_workspace)
    with pytest.raises(SessionFormatError, match=r"^spans: 36 records, over the import limit of 10$"):
        import_session(session_workspace, exported, limits=ImportLimits(max_spans=10))
    path = write_session_file(exported, tmp_path / "study.json")
    size = path.stat().st_size
    with pytest.raises(SessionFormatError, match=r"study\.json: file is .* MB, over the import limit"):
        read_session_file(path, ImportLimits(max_bytes=size - 1))
    assert read_session_file(path, ImportLimits(max_bytes=size)).session.name == "study"
    assert snapshot(session_workspace) == before


def test_unparseable_bytes_say_where(tmp_path):
    with pytest.raises(SessionFormatError, match=r"^line 2, column 1: not valid JSON"):
        parse_session_bytes(b'{"format": 1,\n}')
    with pytest.raises(SessionFormatError, match="not UTF-8"):
        parse_session_bytes(b"\xff\xfe{")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    with pytest.raises(SessionFormatError, match=r"bad\.json, line 1, column 6: not valid JSON"):
        read_session_file(bad)


def test_conflicting_prompt_version_rolls_back_everything(session_workspace, exported):
    """A failure found mid-import (a stored prompt version id with other content) leaves the workspace as it was."""
    version = exported["prompt_versions"][0]
    session_workspace.db.execute(
        "UPDATE prompt_versions SET content = 'changed in place' WHERE id = ?", [version["id"]]
    )
    before = snapshot(session_workspace)
    with pytest.raises(SessionFormatError, match=r"^prompt_versions\[0\]: id .* already stored with different"):
        import_session(session_workspace, exported)
    assert snapshot(session_workspace) == before


def test_template_text_is_stored_as_data_never_run(session_workspace, exported):
    evil = "{{ ''.__class__.__mro__[1].__subclasses__() }}{% import os %}"
    payload = _break(
        exported,
        lambda p: p["prompt_versions"].append(
            {"id": prompt_version_id(evil), "template": "evil", "content": evil, "parent": None}
        ),
    )
    session_id = import_session(session_workspace, payload)
    stored = next(
        session_workspace.db.query(
            "SELECT content, session_id FROM prompt_versions WHERE id = ?", [prompt_version_id(evil)]
        )
    )
    assert stored["content"] == evil and stored["session_id"] is None
    assert session_id


def test_redact_value_scrubs_values_and_secret_keys():
    value = {"a": ["token is abcdefgh12345678!"], "api_key": "literal", "max_tokens": 5, "nested": {"hf_token": "x"}}
    out = redact_value(value, secrets=["abcdefgh12345678"])
    assert out == {
        "a": ["token is [redacted]!"],
        "api_key": "[redacted]",
        "max_tokens": 5,
        "nested": {"hf_token": "[redacted]"},
    }


def test_the_json_columns_are_the_schemas_and_corpus_metadata_is_one(tiny_workspace):
    """Every column the schema declares JSON holds JSON text as the store writes it (corpora.metadata included), and
    rows become records with exactly those columns decoded."""
    from playground.store.schema import TABLES
    from playground.sessionfile import record_to_row, row_to_record

    corpus = next(tiny_workspace.db.query("SELECT * FROM corpora WHERE name = 'tiny'"))
    assert isinstance(row_to_record("corpora", corpus)["metadata"], dict)
    for name, table in TABLES.items():
        for row in tiny_workspace.db.query(f"SELECT * FROM [{name}]"):
            record = row_to_record(name, row)
            assert {c for c in row if record[c] is not row[c]} <= set(table.json), name
            assert record_to_row(name, record, row) == row, name  # the store's to_json text, to the byte


def test_the_typed_schema_names_every_column_an_export_writes():
    """Export writes every column (SELECT *) and import reads what the typed schema (sessionfile.records) names: a column added to a table
    without a field there would be dropped on import."""
    from playground.store.schema import TABLES
    from playground.sessionfile import SECTION_TYPES

    benchmark = typing.get_type_hints(SECTION_TYPES["benchmarks"])
    Question, Passage = (typing.get_args(benchmark[name])[0] for name in ("questions", "passages"))

    tables = {**{name: name for name in SECTION_TYPES if name not in ("session", "benchmarks")}, "session": "sessions"}
    for section, table in tables.items():
        missing = set(TABLES[table].columns) - set(SECTION_TYPES[section].__struct_fields__)
        assert not missing, (section, missing)
    assert set(Question.__struct_fields__) >= set(TABLES["questions"].columns) - {"benchmark", "position"}
    assert set(Passage.__struct_fields__) >= set(TABLES["passages"].columns) - {"corpus", "position"}


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_an_import_cap_that_is_not_a_size_is_one_line(monkeypatch, value):
    from playground import PlaygroundError

    monkeypatch.setenv("PLAYGROUND_IMPORT_MAX_MB", value)
    with pytest.raises(PlaygroundError, match=r"^PLAYGROUND_IMPORT_MAX_MB must be a number of megabytes above 0 "):
        ImportLimits.from_env()
