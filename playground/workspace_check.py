"""`playground workspace check`: is the workspace file whole, and do the index folders beside it match their manifests?

It sits above store and retrieval (it reads both) and writes nothing: the database is opened read-only, the index
folders are only hashed. What it finds comes with how to recover, since a damaged file is not repaired in place.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path
from typing import Optional

from playground.config import indexes_dir, workspace_path


def recovery_steps(path: Path) -> list[str]:
    """How to get a whole workspace back from a damaged one: SQLite's .recover (or .dump where the shell lacks it)
    into a new file, or the last export; the copy is then opened as an older workspace and marked."""
    quoted, recovered = shlex.quote(str(path)), shlex.quote(str(path.with_name(path.stem + "-recovered.db")))
    return [
        f"keep a copy of the damaged file first: cp {quoted} {shlex.quote(str(path) + '.damaged')}",
        f"salvage every readable row into a new file with SQLite's .recover: sqlite3 {quoted} .recover | "
        f"sqlite3 {recovered}",
        f"where that says `SQL logic error` (a sqlite3 built without .recover), use .dump: sqlite3 {quoted} .dump | "
        f"sed '$s/^ROLLBACK; -- due to errors$/COMMIT;/' | sqlite3 {recovered}",
        f"then check the copy and use it: playground workspace check --db {recovered}",
        "or start a new workspace from your last export: playground session import EXPORT.json --db NEW.db",
    ]


def index_folders(root: Path) -> list[Path]:
    """Every built index and embedding cache under `<indexes>/<corpus>/` (staging and partial folders left out)."""
    if not root.is_dir():
        return []
    return [
        folder
        for corpus in sorted(root.iterdir())
        if corpus.is_dir() and not corpus.name.startswith(".")
        for folder in sorted(corpus.iterdir())
        if folder.is_dir() and not folder.name.startswith(".")
    ]


def index_problem(folder: Path) -> Optional[str]:
    """Why an index folder does not match its manifest (unreadable, a file missing, changed or added), or None."""
    from playground.retrieval.manifest import MANIFEST, files_problem

    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return f"no readable {MANIFEST} ({type(error).__name__})"
    if not isinstance(manifest, dict):
        return f"{MANIFEST} is not an object"
    return files_problem(manifest, folder)


def check_workspace(path: Optional[str | os.PathLike] = None) -> dict:
    """The report `workspace check` prints: {"path", "healthy", "kind", "problems", "notes", "indexes", "recovery"}."""
    from playground.store.integrity import check_database

    db_path = workspace_path(path)
    if not db_path.exists():
        report: dict = {"kind": None, "problems": [f"no workspace at {db_path}"], "notes": []}
    else:
        report = check_database(db_path)
    root = indexes_dir(db_path)
    is_workspace = report["kind"] is not None  # the folders beside a foreign file are none of ours
    indexes = [
        {"path": str(folder), "problem": index_problem(folder)}
        for folder in (index_folders(root) if is_workspace else [])
    ]
    recovery = recovery_steps(db_path) if report["problems"] and is_workspace else []
    if any(entry["problem"] for entry in indexes):
        recovery.append(
            "a damaged index is rebuilt when next used; to rebuild it now: "
            "playground index build --dataset CORPUS --retriever KIND --force"
        )
    problems = report["problems"] + [
        f"index {entry['path']}: {entry['problem']}" for entry in indexes if entry["problem"]
    ]
    return {
        "path": str(db_path),
        "healthy": not problems,
        "kind": report["kind"],
        "problems": problems,
        "notes": report["notes"],
        "indexes_dir": str(root),
        "indexes": indexes,
        "recovery": recovery,
    }
