"""`playground session list|new|use|rename|delete|note|export|import`: manage the sessions of a workspace."""

from __future__ import annotations

from dataclasses import replace

from playground.cli.output import add_output_argument, emit, timestamp, workspace_for
from playground.terminal_text import one_line


def register(subparsers, common) -> None:
    parser = subparsers.add_parser("session", parents=[common], help="list, create, switch, export and import sessions")
    actions = parser.add_subparsers(dest="session_command", metavar="ACTION", required=True)

    opener = subparsers.add_parser(
        "open", parents=[common], help="what a share link points to in this workspace (its page, session, runs)"
    )
    opener.add_argument("url", metavar="URL", help="a link copied from the app (http://HOST:PORT/PAGE?session=..)")
    opener.set_defaults(handler=open_command)

    listing = actions.add_parser("list", parents=[common], help="sessions with their runs, prompt versions, ratings")
    listing.set_defaults(handler=list_command)

    new = actions.add_parser("new", parents=[common], help="create a session and make it current")
    new.add_argument("name", metavar="NAME")
    new.set_defaults(handler=new_command)

    use = actions.add_parser("use", parents=[common], help="make a session current (new runs go there)")
    use.add_argument("session", metavar="ID", help="session id, unique id prefix, or name")
    use.set_defaults(handler=use_command)

    rename = actions.add_parser("rename", parents=[common], help="rename a session")
    rename.add_argument("session", metavar="ID")
    rename.add_argument("name", metavar="NAME")
    rename.set_defaults(handler=rename_command)

    delete = actions.add_parser(
        "delete", parents=[common], help="delete a session with its runs, results, spans and ratings (not the last one)"
    )
    delete.add_argument("session", metavar="ID")
    delete.set_defaults(handler=delete_command)

    note = actions.add_parser("note", parents=[common], help="add a note to a session (default: the current one)")
    note.add_argument("text", metavar="TEXT")
    note.add_argument("--session", default=None, metavar="ID")
    note.set_defaults(handler=note_command)

    export = actions.add_parser("export", parents=[common], help="write a session to one JSON file")
    export.add_argument("session", metavar="ID")
    add_output_argument(export, "file to write", required=True)
    export.set_defaults(handler=export_command)

    load = actions.add_parser("import", parents=[common], help="load a session file under new ids")
    load.add_argument("file", metavar="FILE")
    load.add_argument("--name", default=None, help="name of the imported session (default: its own, made unique)")
    load.add_argument(
        "--max-mb",
        type=float,
        default=None,
        help="largest file accepted, in MB (default 200, or $PLAYGROUND_IMPORT_MAX_MB)",
    )
    load.set_defaults(handler=import_command)


def _line(session: dict) -> str:
    mark = "*" if session.get("current") else " "
    return (
        f"{mark} {one_line(session['id'])}  {one_line(session['name']):<24} runs {session['n_runs']:>4}  "
        f"prompt versions {session['n_prompt_versions']:>3}  ratings {session['n_ratings']:>4}  "
        f"created {timestamp(session['created_at'])}"
    )


def list_command(args) -> int:
    from playground.store.sessions import list_sessions

    with workspace_for(args, create=False) as workspace:
        sessions = list_sessions(workspace)
    emit(args, {"sessions": sessions}, "\n".join(_line(s) for s in sessions))
    return 0


def new_command(args) -> int:
    from playground.store.sessions import new_session

    with workspace_for(args) as workspace:
        session = new_session(workspace, args.name)
    emit(args, session, f"created session {session['id']} ({one_line(session['name'])}); it is now current")
    return 0


def use_command(args) -> int:
    from playground.store.sessions import use_session

    with workspace_for(args, create=False) as workspace:
        session = use_session(workspace, args.session)
    emit(args, session, f"current session: {session['id']} ({one_line(session['name'])})")
    return 0


def rename_command(args) -> int:
    from playground.store.sessions import rename_session

    with workspace_for(args, create=False) as workspace:
        session = rename_session(workspace, args.session, args.name)
    emit(args, session, f"session {session['id']} is now named {session['name']!r}")
    return 0


def delete_command(args) -> int:
    from playground.optimize.jobs import delete_session

    with workspace_for(args, create=False) as workspace:
        removed = delete_session(workspace, args.session)
    emit(
        args,
        removed,
        f"deleted session {removed['deleted']['id']} ({one_line(removed['deleted']['name'])}): "
        f"{removed['runs']} runs, {removed['results']} results, {removed['spans']} spans, "
        f"{removed['ratings']} ratings, {removed['retrieval_runs']} retrieval runs, "
        f"{removed['prompt_searches']} prompt searches; "
        f"current session is {removed['current']}",
    )
    return 0


def note_command(args) -> int:
    from playground.store.sessions import add_note, current_session

    with workspace_for(args) as workspace:
        target = args.session or current_session(workspace)["id"]
        session = add_note(workspace, target, args.text)
    emit(args, session, f"noted on session {session['id']} ({len(session['notes'])} notes)")
    return 0


def export_command(args) -> int:
    from playground.output_files import check_output_path
    from playground.runs.jobs import mark_lost_workers
    from playground.sessionfile import export_session, write_session_file

    check_output_path(args.output, args.force)  # before reading the workspace: a bad -o costs nothing
    with workspace_for(args, create=False) as workspace:
        mark_lost_workers(workspace)  # a run whose worker is gone is exported as interrupted, not running
        payload = export_session(workspace, args.session)
    path = write_session_file(payload, args.output, force=args.force)
    if path is None:  # written to stdout
        return 0
    summary = {
        "session_id": payload["session"]["id"],
        "name": payload["session"]["name"],
        "file": str(path),
        "bytes": path.stat().st_size,
        "runs": len(payload["runs"]),
        "results": len(payload["results"]),
        "spans": len(payload["spans"]),
        "prompt_versions": len(payload["prompt_versions"]),
        "ratings": len(payload["ratings"]),
        "retrieval_runs": len(payload["retrieval_runs"]),
        "retrieval_results": len(payload["retrieval_results"]),
        "questions": sum(len(b["questions"]) for b in payload["benchmarks"]),
        "passages": sum(len(b["passages"]) for b in payload["benchmarks"]),
    }
    emit(
        args,
        summary,
        f"exported session {summary['session_id']} ({one_line(summary['name'])}) to {one_line(path)}: "
        f"{summary['runs']} runs, {summary['results']} results, {summary['spans']} spans, "
        f"{summary['retrieval_runs']} retrieval runs",
    )
    return 0


def import_command(args) -> int:
    from playground.sessionfile import ImportLimits, SessionFormatError, import_session, read_session_file, records_of
    from playground.store.sessions import get_session

    limits = ImportLimits.from_env()
    if args.max_mb is not None:
        from playground.sessionfile import megabytes_to_bytes

        limits = replace(limits, max_bytes=megabytes_to_bytes(args.max_mb, "--max-mb"))
    payload = read_session_file(args.file, limits)
    with workspace_for(args) as workspace:
        try:
            session_id = import_session(workspace, payload, name=args.name, limits=limits)
        except SessionFormatError as error:
            raise SessionFormatError(
                f"{args.file}" + (f", {error.where}" if error.where else ""), error.problem
            ) from None
        session = get_session(workspace, session_id)
    summary = {
        "session_id": session_id,
        "name": session["name"],
        **{
            section: len(records_of(payload, section))
            for section in (
                "runs",
                "results",
                "spans",
                "prompt_versions",
                "ratings",
                "retrieval_runs",
                "retrieval_results",
            )
        },
    }
    emit(
        args,
        summary,
        f"imported {one_line(args.file)} as session {session_id} ({one_line(session['name'])}): "
        f"{summary['runs']} runs, "
        f"{summary['results']} results, {summary['spans']} spans, "
        f"{summary['retrieval_runs']} retrieval runs "
        f"(`playground session use {session_id}` to switch to it)",
    )
    return 0


def open_command(args) -> int:
    """The link's page and each id it names, found here (directly, or as the copy a session import made)."""
    from playground.store.share_links import describe_link

    with workspace_for(args, create=False) as workspace:
        opened = describe_link(workspace, args.url)
    lines = [f"page: {opened['page']}"]
    named = [(key, opened[key]) for key in ("session", "run", "other", "version") if key in opened]
    named += [(f"runs {label}", found) for label, found in (opened.get("runs") or {}).items()]
    for key, found in named:
        if found.get("id") is None:
            lines.append(f"{key}: {one_line(found['linked'])} not found ({one_line(found['error'])})")
        else:
            copied = f" (imported copy of {one_line(found['linked'])})" if found.get("copied") else ""
            lines.append(f"{key}: {one_line(found['id'])}{copied}")
    for key in ("question", "q", "template", "benchmark"):
        if opened["params"].get(key):
            lines.append(f"{key}: {one_line(opened['params'][key])}")
    emit(args, opened, "\n".join(lines))
    missing = [key for key, found in named if found.get("id") is None]
    return 1 if missing else 0
