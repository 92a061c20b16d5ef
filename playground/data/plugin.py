"""The built-in benchmark formats, registered through the plugin hook like any other (readers load on first use)."""

from __future__ import annotations

from playground.plugins import Importer, hookimpl

_READERS = "playground.data.importers"
BUILTIN_IMPORTERS = (
    Importer(
        "hotpotqa",
        f"{_READERS}.hotpotqa:read_hotpotqa",
        "HotpotQA JSON (distractor or fullwiki) or its Hugging Face export",
    ),
    Importer("squad", f"{_READERS}.squad:read_squad", "SQuAD v1.1 or v2.0 JSON"),
    Importer("obqa", f"{_READERS}.obqa:read_obqa", "OpenBookQA four-choice questions with openbook.txt as corpus"),
    Importer("helps", f"{_READERS}.helps:read_helps", "HELPS open-ended requests (reference-free, no corpus)"),
    Importer("beir", f"{_READERS}.beir:read_beir", "BEIR corpus.jsonl, queries.jsonl and qrels"),
    Importer("jsonl", f"{_READERS}.jsonl:read_jsonl", "generic JSONL, one question a line"),
)


@hookimpl
def register_importers(register):
    for importer in BUILTIN_IMPORTERS:
        register(importer)
