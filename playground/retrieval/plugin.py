"""The built-in retrievers, registered through the plugin hook like any other (implementations load on first use).

Defaults: k1/b and stemming as in PIQARD. HNSW tuned with bench/retrieval.py: at 100k clustered 384-d vectors it
gives recall@10 1.00 of exact at p50 0.5 ms, built in ~45 s on 2 cores (M=32/efConstruction=200 took 6 min).
IVFPQ with PIQARD's 8 sub-quantisers (nlist and nbits are clamped for small corpora, see faiss_ivfpq.py).
"""

from __future__ import annotations

from playground.plugins import Option, RetrieverKind, hookimpl
from playground.embedder_files import DEFAULT_EMBEDDER, E5_EMBEDDER

_EMBEDDER = Option(
    "embedder",
    DEFAULT_EMBEDDER,
    f"sentence-transformers model that embeds passages and queries ({E5_EMBEDDER} by default for a corpus "
    "in a language other than English), or openai:MODEL@URL for an embedding server",
)
_BM25 = (
    Option("k1", 1.5, "term-frequency saturation", minimum=0.0),
    Option("b", 0.75, "document-length normalisation", minimum=0.0, maximum=1.0),
    Option("stem", True, "Snowball-stem terms (in the analyser's language, where Snowball has a stemmer)"),
    Option(
        "analyzer",
        "auto",
        "how text becomes terms: auto (by the corpus's language), a language code (en, de, zh, th, ...), "
        "zh-bigram (Chinese character pairs) or unicode (words, no stemming)",
    ),
)
_BM25_CHECK = "playground.retrieval.analyzers:check_bm25_params"

BUILTIN_RETRIEVERS = (
    RetrieverKind(
        "bm25", "playground.retrieval.bm25:BM25Retriever", _BM25, "BM25 (bm25s, sparse matrices)", _BM25_CHECK
    ),
    RetrieverKind(
        "bm25-rank",
        "playground.retrieval.bm25_rank:RankBM25Retriever",
        _BM25,
        "BM25 (rank-bm25, the classic implementation)",
        _BM25_CHECK,
    ),
    RetrieverKind(
        "dense",
        "playground.retrieval.dense:DenseRetriever",
        (_EMBEDDER,),
        "exact cosine search over sentence embeddings",
    ),
    RetrieverKind(
        "faiss-hnsw",
        "playground.retrieval.faiss_hnsw:FaissHNSWRetriever",
        (
            _EMBEDDER,
            Option("M", 16, "graph neighbours per node", minimum=2, maximum=512),
            Option("ef_construction", 64, "candidate list size while building", minimum=1),
            Option("ef_search", 128, "candidate list size while searching", minimum=1),
        ),
        "approximate search on a FAISS HNSW graph",
    ),
    RetrieverKind(
        "faiss-ivfpq",
        "playground.retrieval.faiss_ivfpq:FaissIVFPQRetriever",
        (
            _EMBEDDER,
            Option("nlist", 100, "inverted lists (clamped to sqrt(n))", minimum=1),
            Option("m", 8, "product-quantiser sub-vectors", minimum=1),
            Option("nbits", 8, "bits per sub-vector code (clamped to log2(n))", minimum=1, maximum=16),
            Option("nprobe", 16, "lists visited per search", minimum=1),
        ),
        "approximate search on a FAISS IVF-PQ index",
    ),
    RetrieverKind(
        "annoy",
        "playground.retrieval.annoy_index:AnnoyRetriever",
        (
            _EMBEDDER,
            Option("n_trees", 100, "random-projection trees", minimum=1),
            Option("search_k", -1, "nodes inspected per search (-1: n_trees * k)", minimum=-1),
        ),
        "approximate search on Annoy trees",
    ),
    RetrieverKind(
        "milvus",
        "playground.retrieval.milvus:MilvusRetriever",
        (
            _EMBEDDER,
            Option(
                "uri",
                "",
                "where Milvus is: empty for Milvus Lite inside the index folder, a local .db path, or a server "
                "address (http://host:19530)",
            ),
            Option(
                "collection",
                "",
                "empty: build the playground's own collection from the corpus; a name: search that existing "
                "collection at uri, read only",
            ),
            Option("id_field", "id", "the existing collection's field holding passage ids"),
            Option("text_field", "text", "the existing collection's field holding passage text"),
            Option("title_field", "", "the existing collection's field holding titles (empty: none)"),
            Option("vector_field", "vector", "the existing collection's vector field"),
            Option(
                "M", 16, "HNSW graph neighbours per node (collections the playground builds)", minimum=2, maximum=512
            ),
            Option("ef_construction", 64, "HNSW candidate list size while building", minimum=1),
            Option("ef_search", 128, "HNSW candidate list size while searching", minimum=1),
            Option("token_env", "MILVUS_TOKEN", "environment variable holding the server's token (never stored)"),
        ),
        "Milvus: Milvus Lite in process, or a Milvus server or cluster by uri (HNSW)",
        check="playground.retrieval.milvus:check_milvus_params",
    ),
    RetrieverKind(
        "hybrid",
        "playground.retrieval.hybrid:HybridRetriever",
        (
            Option("first", "bm25", "the first fused retriever"),
            Option("second", "dense", "the second fused retriever"),
            Option("c", 60, "reciprocal-rank constant", minimum=0),
            Option("depth", 100, "hits taken from each retriever", minimum=1),
            Option("first_params", {}, "the first retriever's parameters"),
            Option("second_params", {}, "the second retriever's parameters"),
        ),
        "reciprocal-rank fusion of two retrievers",
        check="playground.retrieval.registry:resolve_fused",
    ),
    RetrieverKind(
        "http-search",
        "playground.retrieval.search_service:SearchServiceRetriever",
        (
            Option("url", "", "the search service's URL (a ColBERTv2 server's, by default)"),
            Option(
                "method", "GET", "GET: query and k as URL parameters; POST: as a JSON body", choices=("GET", "POST")
            ),
            Option("query_param", "query", "the name the query goes under"),
            Option("k_param", "k", "the name the number of passages asked for goes under"),
            Option("results", "topk", "dotted JSON path of the answer's list of passages"),
            Option("id_field", "pid", "dotted path of a passage's id within an item"),
            Option("text_field", "text", "dotted path of a passage's text within an item"),
            Option("score_field", "score", "dotted path of a passage's score within an item (empty: 1/rank)"),
            Option("title_field", "", "dotted path of a passage's title within an item (empty: none)"),
            Option("key_env", "", "environment variable holding a key sent as a Bearer token (empty: none)"),
        ),
        "any search service over HTTP (DSP's ColBERTv2 server shape, or a JSON shape described by parameters)",
        check="playground.retrieval.search_service:check_service_params",
    ),
)


@hookimpl
def register_retrievers(register):
    for kind in BUILTIN_RETRIEVERS:
        register(kind)
