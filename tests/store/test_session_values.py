"""A session file's free-form values (configs, span inputs and outputs, metadata) are kept as the file's bytes until
each is checked and written: an import holds the file once, and a bad value is still named in one line."""

from __future__ import annotations

import json
import tracemalloc

import msgspec
import pytest

from playground.sessionfile import (
    SessionFormatError,
    export_session,
    import_session,
    load_file,
    parse_session_bytes,
    read_session_file,
    with_digest,
)
from tests.store.test_sessions import session_workspace, snapshot  # noqa: F401 (fixture)


@pytest.fixture
def exported(session_workspace):
    return json.loads(json.dumps(export_session(session_workspace, "study")))


def test_a_decoded_file_holds_little_beside_its_bytes_and_imports_as_the_store_writes(session_workspace, exported):
    """Records stay the file's bytes until read (a section's, a free-form value's); what is written is the same."""
    prompt = "Answer from the passages below. " * 200
    for span in exported["spans"]:
        span["inputs"]["prompt"] = prompt
    data = json.dumps(with_digest(exported)).encode("utf-8")
    parse_session_bytes(data)  # once before measuring: msgspec's per-type state is built on first use
    tracemalloc.start()
    try:
        file = parse_session_bytes(data)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(file.spans[0].inputs, msgspec.Raw) and isinstance(file.runs[0].config, msgspec.Raw)
    assert held < len(data) / 10, f"the decoded file holds {held:,} bytes beside the file's {len(data):,}"
    session_id = import_session(session_workspace, file)
    rows = session_workspace.db.query(
        "SELECT s.inputs, s.outputs FROM spans s JOIN runs r ON r.id = s.run_id WHERE r.session_id = ?"
        " ORDER BY s.started_at, s.position",
        [session_id],
    )
    stored = sorted(json.dumps((json.loads(r["inputs"]), json.loads(r["outputs"])), sort_keys=True) for r in rows)
    assert stored == sorted(json.dumps((s["inputs"], s["outputs"]), sort_keys=True) for s in exported["spans"])
    config = next(session_workspace.db.query("SELECT config FROM runs WHERE session_id = ? LIMIT 1", [session_id]))
    assert config["config"] == json.dumps(json.loads(config["config"]), ensure_ascii=False, sort_keys=True)


def test_a_file_nested_a_thousand_levels_deep_is_one_line(session_workspace, exported, tmp_path):
    exported["spans"][0]["outputs"] = {"deep": "PLACE"}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(with_digest(exported)).replace('"PLACE"', "[" * 5000 + "]" * 5000), encoding="utf-8")
    before = snapshot(session_workspace)
    with pytest.raises(SessionFormatError, match=r"deep\.json, line 1, column \d+: nested deeper than 64 levels$"):
        import_session(session_workspace, read_session_file(path))
    assert snapshot(session_workspace) == before


def test_a_number_too_large_for_a_float_is_named_by_its_key(exported):
    exported["spans"][2]["inputs"].update(small=0.5, big="PLACE")
    data = json.dumps(with_digest(exported)).replace('"PLACE"', "1e999").encode("utf-8")
    with pytest.raises(SessionFormatError, match=r"^spans\[2\]\.inputs\['big'\]: expected a finite number$"):
        load_file(parse_session_bytes(data))


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("outputs", '"text"', r"^spans\[1\]\.outputs: expected an object, got a string$"),
        ("inputs", "[1, 2]", r"^spans\[1\]\.inputs: expected an object, got a list$"),
        ("outputs", '{"a": ' * 70 + "1" + "}" * 70, r"^spans\[1\]\.outputs: nested deeper than 64 levels$"),
    ],
)
def test_a_bad_free_form_value_in_a_files_bytes_is_named(session_workspace, exported, field, value, message):
    exported["spans"][1][field] = "PLACE"
    data = json.dumps(with_digest(exported)).replace('"PLACE"', value).encode("utf-8")
    before = snapshot(session_workspace)
    with pytest.raises(SessionFormatError, match=message):
        import_session(session_workspace, parse_session_bytes(data))
    assert snapshot(session_workspace) == before
