"""Share links resolved by the engine (the app and `playground open URL` alike): ids found here, or as the copies a
session import made; what a link points to, said in one line per id."""

import json

from playground.store.sessions import current_session
from playground.sessionfile import export_session, import_session
from playground.store.share_links import describe_link, resolve_run_link, resolve_session_link
from tests.store.test_sessions import add_runs, session_workspace  # noqa: F401 - the fixture


def test_links_made_before_an_export_open_the_imported_copies(session_workspace, tmp_path):  # noqa: F811
    from playground.store import open_workspace
    from playground.store.datasets import save_dataset
    from tests.conftest import tiny_dataset

    source = current_session(session_workspace)
    run_ids = [r["id"] for r in session_workspace.db.query("SELECT id FROM runs WHERE session_id = ?", [source["id"]])]
    other = open_workspace(tmp_path / "other" / "sessions" / "playground.db")
    save_dataset(other, "tiny", tiny_dataset())
    imported = import_session(other, export_session(session_workspace, source["id"]))

    assert resolve_session_link(other, source["id"]) == imported
    copy = resolve_run_link(other, run_ids[0])
    assert (
        copy != run_ids[0]
        and other.db.execute("SELECT session_id FROM runs WHERE id = ?", [copy]).fetchone()[0] == imported
    )
    assert resolve_run_link(session_workspace, run_ids[0][:6]) == run_ids[0]  # a prefix, in its own workspace

    opened = describe_link(other, f"http://localhost:8501/ab?session={source['id']}&run={run_ids[0]}&other=ffffff")
    assert opened["page"] == "ab"
    assert opened["session"] == {"linked": source["id"], "id": imported, "copied": True}
    assert opened["run"]["id"] == copy and opened["run"]["copied"]
    assert opened["other"]["id"] is None and "ffffff" in opened["other"]["error"]
    other.close()


def playground_open(capsys, workspace, *args: str) -> tuple[int, str, str]:
    """`playground --db DB open ARGS` in process: its exit status, stdout and stderr."""
    from playground.cli import main

    try:
        status = main(["--db", str(workspace.path), "open", *args])
    except SystemExit as exit:
        status = exit.code
    printed = capsys.readouterr()
    return status, printed.out, printed.err


def test_playground_open_prints_what_a_link_points_to(session_workspace, capsys):  # noqa: F811
    run_id = next(session_workspace.db.query("SELECT id FROM runs"))["id"]
    url = f"http://127.0.0.1:8501/traces?run={run_id}&question=q1"
    status, out, err = playground_open(capsys, session_workspace, url)
    assert status == 0, err
    assert out.splitlines()[:2] == ["page: traces", f"run: {run_id}"] and "question: q1" in out
    status, out, err = playground_open(capsys, session_workspace, url, "--json")
    assert json.loads(out)["run"]["id"] == run_id

    status, out, err = playground_open(capsys, session_workspace, "http://127.0.0.1:8501/traces?run=abcdef123456")
    assert status == 1 and "run: abcdef123456 not found" in out
    status, out, err = playground_open(capsys, session_workspace, "notalink")
    assert status != 0 and err.strip().startswith("error:") and "not a share link" in err
