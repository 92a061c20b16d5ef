"""The built-in rerankers, registered through the plugin hook like any other (implementations load on first use)."""

from __future__ import annotations

from playground.plugins import Reranker, hookimpl

BUILTIN_RERANKERS = (
    Reranker(
        "cross-encoder",
        "playground.retrieval.rerank.cross_encoder:CrossEncoderReranker",
        "a sentence-transformers cross-encoder from a local folder or the Hugging Face cache (never downloaded)",
        needs_model=True,
    ),
    Reranker(
        "llm",
        "playground.retrieval.rerank.llm:LLMReranker",
        "any model spec judges each passage's relevance (0-10) in JSON mode",
        needs_model=True,
    ),
    Reranker(
        "cohere",
        "playground.retrieval.rerank.cohere_rerank:CohereReranker",
        "Cohere's rerank API (key from CO_API_KEY, base URL from CO_API_URL or MODEL@URL)",
        default_model="rerank-v3.5",
    ),
    Reranker(
        "tei",
        "playground.retrieval.rerank.http_rerank:TEIReranker",
        "a Text Embeddings Inference server's POST /rerank (--rerank-model URL; key from TEI_API_KEY if set)",
        needs_model=True,
    ),
    Reranker(
        "jina",
        "playground.retrieval.rerank.http_rerank:JinaReranker",
        "Jina's /v1/rerank shape (key from JINA_API_KEY; MODEL or MODEL@URL)",
        default_model="jina-reranker-v2-base-multilingual",
    ),
)


@hookimpl
def register_rerankers(register):
    for kind in BUILTIN_RERANKERS:
        register(kind)
