"""`templates label|labels|export`: move a label (prod, staging, ...) to a prompt version, list labels and their
history, and write a labelled version for applications in other languages (playground.prompts.loaded)."""

from __future__ import annotations

import json

from playground import PlaygroundError
from playground.cli.output import add_output_argument, emit, text_table, timestamp, workspace_for
from playground.terminal_text import one_line

MOVED_BY = "playground templates label"  # who moved a label from the command line, unless --by says


def register_label_actions(actions, common) -> None:
    label = actions.add_parser(
        "label", parents=[common], help="move a label (prod, staging, any name) to a prompt version"
    )
    label.add_argument("ref", metavar="TEMPLATE@VERSION", help="the version: TEMPLATE@VERSION-ID or TEMPLATE@LABEL")
    label.add_argument("label", metavar="LABEL", help="the label to move (letters, digits, '.', '_', '-')")
    label.add_argument("--by", default=MOVED_BY, help=f"who moves it, kept in the history (default {MOVED_BY!r})")
    label.set_defaults(handler=cmd_templates_label)
    labels = actions.add_parser("labels", parents=[common], help="labels where they are now, or their history")
    labels.add_argument("name", nargs="?", help="only this template's labels")
    labels.add_argument("--history", action="store_true", help="every move, newest first")
    labels.set_defaults(handler=cmd_templates_labels)
    export = actions.add_parser(
        "export", parents=[common], help="write a version's text, variables, id and render settings as JSON"
    )
    export.add_argument("ref", metavar="TEMPLATE@LABEL", help="TEMPLATE@LABEL or TEMPLATE@VERSION-ID")
    add_output_argument(export, "the JSON file to write", required=True)
    export.set_defaults(handler=cmd_templates_export)


def cmd_templates_label(args) -> int:
    from playground.prompts.library import stored_version
    from playground.store.prompt_labels import check_label, move_label

    name, at, _ = args.ref.partition("@")
    if not at or not name:
        raise PlaygroundError(f"{args.ref!r} is not TEMPLATE@VERSION: name the template and the version to label")
    check_label(args.label)  # before the workspace is opened: a bad name costs nothing
    with workspace_for(args, create=False) as workspace:
        version = stored_version(workspace, args.ref)
        move = move_label(workspace, version["template"], args.label, version["id"], args.by)
    where = f"{one_line(move['template'])}@{one_line(move['label'])}"
    if not move["moved"]:
        text = f"{where} is at {move['version']} already"
    else:
        text = f"{where}: {move['previous_version'] or '(new)'} -> {move['version']}"
    emit(args, move, text)
    return 0


def cmd_templates_labels(args) -> int:
    from playground.store.prompt_labels import current_labels, label_moves

    with workspace_for(args, create=False) as workspace:
        rows = label_moves(workspace, args.name) if args.history else current_labels(workspace, args.name)
    text = (
        text_table(
            ("template", "label", "version", "from", "moved by", "moved at"),
            (
                (
                    r["template"],
                    r["label"],
                    r["version"],
                    r["previous_version"] or "-",
                    r["moved_by"],
                    timestamp(r["moved_at"]),
                )
                for r in rows
            ),
        )
        if rows
        else "no labels (set one with `playground templates label TEMPLATE@VERSION LABEL`)"
    )
    emit(args, rows, text)
    return 0


def cmd_templates_export(args) -> int:
    from playground.output_files import check_output_path, write_output
    from playground.prompts.loaded import load_prompt

    check_output_path(args.output, args.force)  # before reading the workspace: a bad -o costs nothing
    prompt = load_prompt(args.ref, db=getattr(args, "db", None))
    record = prompt.export()
    text = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
    written = write_output(args.output, lambda handle: handle.write(text), force=args.force)
    if written is not None:
        emit(
            args,
            {"path": str(written), "template": prompt.name, "label": prompt.label, "version_id": prompt.version_id},
            f"wrote {one_line(str(written))}: {one_line(prompt.name)} version {prompt.version_id}",
        )
    return 0
