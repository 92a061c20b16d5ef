"""Subcommands `demo` (set up the embedded demo workspace, then open the app) and `app` (open the app)."""

from __future__ import annotations

import argparse

from playground import bounds
from playground.cli.output import emit, open_workspace_for, progress_bar


def _add_server_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address the app listens on (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=bounds.PORT.flag("--port"), default=8501, help="port the app listens on (default 8501)"
    )


def register(subparsers, common) -> None:
    demo = subparsers.add_parser(
        "demo",
        parents=[common],
        help="create the demo workspace (the Python language reference and questions about it), then open the app",
    )
    demo.add_argument("--no-app", action="store_true", help="set up the workspace and indexes only")
    _add_server_options(demo)
    demo.set_defaults(handler=run_demo)

    app = subparsers.add_parser(
        "app", parents=[common], help="open the app on a workspace (a file that does not exist yet starts empty)"
    )
    _add_server_options(app)
    app.set_defaults(handler=run_app)


def _summary_text(summary: dict) -> str:
    lines = [f"workspace {summary['workspace']}"]
    for corpus in summary["corpora"]:
        lines.append(f"  corpus {corpus['name']}: {corpus['n_passages']} passages")
    for benchmark in summary["benchmarks"]:
        lines.append(f"  benchmark {benchmark['name']}: {benchmark['n_questions']} questions")
    for manifest in summary["indexes"]:
        lines.append(f"  index {manifest.get('kind')} on {manifest.get('corpus')}: {manifest.get('path')}")
    return "\n".join(lines)


def run_demo(args) -> int:
    from playground.data.demo import DEMO_NAME
    from playground.demo_workspace import build_demo_indexes, ensure_demo_workspace
    from playground.store.datasets import list_datasets

    on_progress, close = progress_bar("demo dataset")
    try:
        workspace = ensure_demo_workspace(getattr(args, "db", None), on_progress=on_progress, build_indexes=False)
    finally:
        close()
    try:
        on_progress, close = progress_bar("demo indexes")
        try:
            manifests = build_demo_indexes(workspace, on_progress=on_progress)
        finally:
            close()
        datasets = list_datasets(workspace)
        summary = {"workspace": str(workspace.path), "dataset": DEMO_NAME, **datasets, "indexes": manifests}
        emit(args, summary, _summary_text(summary))
        db_path = workspace.path
    finally:
        workspace.close()
    if args.no_app:
        return 0
    from playground.app.launch import launch_app

    return launch_app(db_path, args.host, args.port)


def run_app(args) -> int:
    """Open the app; a workspace file that does not exist yet (nor its folder) is created empty, so a first start
    can import a shared session or data from the page."""
    import sys

    from playground.app.launch import launch_app
    from playground.config import workspace_path

    is_new = not workspace_path(getattr(args, "db", None)).exists()
    workspace = open_workspace_for(args, create=True)
    db_path = workspace.path
    workspace.close()
    if is_new:
        print(
            f"new empty workspace at {db_path}: import a session on the Sessions page, or data with "
            "`playground data import`",
            file=sys.stderr,
        )
    return launch_app(db_path, args.host, args.port)
