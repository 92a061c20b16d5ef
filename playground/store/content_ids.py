"""Content addressing, verified: a prompt version, demonstration set or judge version is trusted only when its id
is the hash of its content. Checked on import (the whole file is refused on the first mismatch) and whenever a
stored record is loaded to be executed, so a file cannot keep a trusted id while changing what it runs.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Optional

from playground import PlaygroundError
from playground.store.values import to_json

PROMPT_ID_LENGTH = 12


def prompt_version_id(content: str) -> str:
    """A prompt version's id: the first PROMPT_ID_LENGTH hex digits of its text's SHA-256."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:PROMPT_ID_LENGTH]


def demonstration_set_id(name: str, examples: list) -> str:
    return hashlib.sha256(to_json({"name": name, "examples": examples}).encode("utf-8")).hexdigest()[:12]


def judge_version_id(kind: str, model: str, fingerprint: Optional[str], params: dict, prompt_versions: dict) -> str:
    canonical = to_json(
        {
            "kind": kind,
            "model": model,
            "fingerprint": fingerprint or "",
            "params": params,
            "prompt_versions": prompt_versions,
        }
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def _judge_content_id(record: dict) -> str:
    return judge_version_id(
        record["kind"],
        record["model"],
        record.get("model_fingerprint"),
        record.get("params") or {},
        record.get("prompt_versions") or {},
    )


@dataclass(frozen=True)
class ContentAddressed:
    """A table whose records' ids are hashes of their content: what one record is called, and its id from it."""

    noun: str
    content_id: Callable[[dict], str]


# Each content-addressed table (as a session file's section is named) -> how its records' ids are made.
CONTENT_ADDRESSED = {
    "prompt_versions": ContentAddressed("prompt version", lambda record: prompt_version_id(record["content"])),
    "demonstration_sets": ContentAddressed(
        "demonstration set", lambda record: demonstration_set_id(record["name"], record["examples"])
    ),
    "judges": ContentAddressed("judge version", _judge_content_id),
}
WHAT = {table: addressed.noun for table, addressed in CONTENT_ADDRESSED.items()}


def expected_id(kind: str, record: dict) -> str:
    """The id a record of `kind` (a table of CONTENT_ADDRESSED) must have, from its content."""
    if kind not in CONTENT_ADDRESSED:
        raise ValueError(kind)
    return CONTENT_ADDRESSED[kind].content_id(record)


class ContentIdError(PlaygroundError):
    """A record whose id is not the hash of its content."""


def check_content_id(kind: str, record: dict, where: Optional[str] = None) -> None:
    """Raise ContentIdError (one line naming the record) when `record`'s id does not match its content."""
    expected = expected_id(kind, record)
    if record["id"] != expected:
        label = where or f"{WHAT[kind]} {record['id']!r}"
        raise ContentIdError(
            f"{label}: id {record['id']!r} does not match its content (which hashes to "
            f"{expected!r}): the record was changed after it was saved; refusing it"
        )


def check_payload_content_ids(payload: dict) -> None:
    """Check every content-addressed record of a session file; the first mismatch refuses the whole file."""
    for kind in CONTENT_ADDRESSED:
        for i, record in enumerate(payload.get(kind) or []):
            check_content_id(kind, record, f"{kind}[{i}] ({WHAT[kind]} {record['id']!r})")
