"""`playground plugins`: what is installed, per kind, with the distribution each extension comes from."""

from __future__ import annotations

from playground.cli.output import emit


def register(subparsers, common) -> None:
    plugins = subparsers.add_parser(
        "plugins",
        parents=[common],
        help="list installed plugins and what each registers (--json for data)",
        description="Plugins are distributions with an entry point in the 'playground.plugins' group; the built-ins "
        "register through the same hooks. See docs/extending.md.",
    )
    plugins.set_defaults(handler=plugins_command)


def _origin(row: dict) -> str:
    return "built-in" if row["builtin"] else f"{row['distribution']} {row['version']}".strip()


def plugins_command(args) -> int:
    from playground.plugins.listing import installed
    from playground.plugins.records import KINDS

    report = installed()
    lines = ["plugins:"]
    for plugin in report["plugins"]:
        where = "built-in" if plugin["builtin"] else f"from {plugin['distribution']} {plugin['version']}".strip()
        lines.append(f"  {plugin['name']}  ({where}): {', '.join(plugin['hooks']) or 'no hooks'}")
    for kind in KINDS:
        rows = report[kind.name]
        lines += ["", f"{kind.title}:"] + (["  none"] if not rows else [])
        width = max((len(row["name"]) for row in rows), default=0)
        for row in rows:
            about = row.get("description") or row.get("display_name") or row.get("pattern") or ""
            lines.append(f"  {row['name']:<{width}}  {_origin(row):<24}  {about}".rstrip())
    if report["problems"]:
        lines += ["", "problems:"] + [f"  {problem}" for problem in report["problems"]]
    emit(args, report, "\n".join(lines))
    return 0
