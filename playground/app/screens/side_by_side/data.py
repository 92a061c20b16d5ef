"""Side by side's data, shaped for the page (no Streamlit): the settings stored runs were made with, and what one
cell of the grid opens (the passages the variant retrieved and the prompt it rendered)."""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

from playground.store.span_kinds import SpanKind


def stored_settings(configs: Sequence[Mapping]) -> dict:
    """{"variants": [{template, retriever, k, model, params}], "sample", "seed", "question"} of the runs' configs,
    in order: what the page's columns are set to when it opens a comparison from its address."""
    variants = [
        {
            "template": (config.get("templates") or {}).get("main"),
            "retriever": config.get("retriever"),
            "k": config.get("k") or 3,
            "model": config.get("model"),
            "params": config.get("params") or {},
        }
        for config in configs
    ]
    first = configs[0] if configs else {}
    question_ids = first.get("question_ids") or []
    return {
        "variants": variants,
        "sample": int(first["sample"]) if first.get("sample") else None,
        "seed": int(first.get("seed") or 0),
        "question": question_ids[0] if not first.get("sample") and len(question_ids) == 1 else None,
    }


def cell_detail(workspace, corpus: Optional[str], run_id: str, question_id: str) -> dict:
    """{"retrievals": [{"query", "passages"}], "prompts": [messages]} of one variant on one question, from its
    stored spans (passages with their title and text)."""
    from playground.store.datasets import get_passages
    from playground.store.runs import get_spans

    spans = get_spans(workspace, run_id, question_id)
    retrievals = []
    for span in (s for s in spans if s["kind"] == SpanKind.RETRIEVE):
        hits = (span.get("outputs") or {}).get("hits") or []
        found = get_passages(workspace, corpus, [h["id"] for h in hits]) if corpus else {}
        retrievals.append(
            {
                "query": str((span.get("inputs") or {}).get("query") or ""),
                "passages": [
                    {
                        **h,
                        "title": getattr(found.get(h["id"]), "title", ""),
                        "text": getattr(found.get(h["id"]), "text", ""),
                    }
                    for h in hits
                ],
            }
        )
    prompts = [(span.get("outputs") or {}).get("messages") or [] for span in spans if span["kind"] == SpanKind.RENDER]
    return {"retrievals": retrievals, "prompts": prompts}
