"""`playground workspace check`: the workspace file's integrity and foreign keys, its index folders against their
manifests, and how to recover; exit 0 when all is well, 1 with the problems listed."""

from __future__ import annotations

from playground.cli.output import emit


def register(subparsers, common) -> None:
    parser = subparsers.add_parser("workspace", parents=[common], help="check a workspace file and its indexes")
    actions = parser.add_subparsers(dest="workspace_command", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check", parents=[common], help="integrity_check, foreign_key_check and index manifests; writes nothing"
    )
    check.set_defaults(handler=check_command)


def _text(report: dict) -> str:
    counted = f"{len(report['indexes'])} index folder(s) in {report['indexes_dir']}"
    if report["healthy"]:
        lines = [
            f"workspace {report['path']} is healthy: integrity_check ok, foreign_key_check ok, "
            f"{counted} match their manifests"
        ]
    else:
        lines = [f"workspace {report['path']} has {len(report['problems'])} problem(s):"]
        lines += [f"  {problem}" for problem in report["problems"]]
    lines += [f"note: {note}" for note in report["notes"]]
    if report["recovery"]:
        lines += ["to recover:"] + [f"  {step}" for step in report["recovery"]]
    return "\n".join(lines)


def check_command(args) -> int:
    from playground.workspace_check import check_workspace

    report = check_workspace(getattr(args, "db", None))
    emit(args, report, _text(report))
    return 0 if report["healthy"] else 1
