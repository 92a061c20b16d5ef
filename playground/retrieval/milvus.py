"""`milvus`: search through Milvus's client, embedded (Milvus Lite, in this process) or on a Milvus server/cluster.

Two modes, by `collection`:
- empty: the playground builds its own collection from the corpus's cached embeddings. With `uri` empty it is a
  Milvus Lite folder inside the index folder (so the manifest checksums it and a changed embedder or setting
  rebuilds it); with a server `uri` it is a collection named after the index's settings hash, marked as the
  playground's in its properties, and only a collection carrying that mark is ever dropped or written.
- a name: the user's existing collection at `uri`, read only. Nothing here calls insert, upsert, delete, drop,
  create or load on it: a server collection must already be loaded, and a local Milvus Lite folder is copied to a
  private snapshot before it is opened (Milvus Lite writes index files and holds a lock on the folder it opens).

Why Milvus: the same client and collection schema serve an embedded file and a distributed cluster (bench/
vector_engines.py compares it with Qdrant, LanceDB and Chroma on the same embeddings; docs/extending.md).
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional

import numpy as np

from playground import PlaygroundError
from playground.packages import package_versions
from playground.progress import ProgressCallback, report
from playground.retrieval.base import Hit

OWN_COLLECTION = "passages"
OWN_FOLDER = "collection.db"
MARK = "created by playground"
MARK_PROPERTY = "playground.created_by"  # collection properties survive where a description may not (Milvus Lite)
_INSERT_BATCH = 1_000
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SERVER_SCHEMES = ("http://", "https://", "tcp://", "unix:")
_FIELDS = ("id_field", "text_field", "title_field", "vector_field")
_snapshots: list[tuple[str, str]] = []
_snapshots_lock = threading.Lock()


def is_server(uri: str) -> bool:
    return uri.startswith(_SERVER_SCHEMES)


def check_milvus_params(params: dict[str, Any]) -> dict[str, Any]:
    """One-line errors naming the parameter: a uri Milvus cannot open, a name it cannot hold, a mode that needs
    a parameter left out."""
    uri, collection = params["uri"], params["collection"]
    if uri and not (is_server(uri) or uri.endswith(".db")):
        raise PlaygroundError(
            f"milvus parameter 'uri'={uri!r} must be empty (Milvus Lite under the indexes folder), a local Milvus "
            "Lite path ending in .db, or a server address (http://, https://, tcp://, unix:)"
        )
    if collection and not _NAME.fullmatch(collection):
        raise PlaygroundError(
            f"milvus parameter 'collection'={collection!r} is not a Milvus collection name "
            "(a letter or _, then letters, digits or _; at most 255)"
        )
    if collection and not uri:
        raise PlaygroundError(
            f"milvus parameter 'uri' is needed with 'collection'={collection!r}: the address (or .db path) "
            "of the Milvus that holds it"
        )
    if uri and not collection and not is_server(uri):
        raise PlaygroundError(
            f"milvus parameter 'uri'={uri!r} is a local .db: name the collection to search in it with "
            "'collection', or leave 'uri' empty to build one under the indexes folder"
        )
    for field in _FIELDS:
        value = params[field]
        if (value or field != "title_field") and not _NAME.fullmatch(value):
            raise PlaygroundError(f"milvus parameter {field!r}={value!r} is not a Milvus field name")
    if not _ENV_NAME.fullmatch(params["token_env"]):
        raise PlaygroundError(
            f"milvus parameter 'token_env'={params['token_env']!r} is not an environment variable name"
        )
    return params


def _release_snapshots() -> None:
    from milvus_lite.server_manager import server_manager_instance

    with _snapshots_lock:
        taken = list(_snapshots)
        _snapshots.clear()
    for data_dir, folder in taken:
        server_manager_instance.release_server(data_dir)
        shutil.rmtree(folder, ignore_errors=True)


atexit.register(_release_snapshots)  # registered after milvus_lite's own handler, so it runs first


def snapshot(folder: Path) -> str:
    """A private copy of a Milvus Lite folder, removed at exit: the original is never opened, so never written
    (Milvus Lite adds index files to what it searches) nor locked against its owner or this playground's workers."""
    if not folder.is_dir():
        raise PlaygroundError(f"milvus parameter 'uri'={str(folder)!r}: no Milvus Lite folder there")
    parent = tempfile.mkdtemp(prefix="playground-milvus-")
    copy = str(Path(parent) / folder.name)
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("LOCK"))
    with _snapshots_lock:
        _snapshots.append((copy, parent))
    return copy


def drop_snapshot(copy: str) -> None:
    """Close and remove one snapshot now rather than at exit (a build only reads the collection's description)."""
    with _snapshots_lock:
        found = [entry for entry in _snapshots if entry[0] == copy]
        for entry in found:
            _snapshots.remove(entry)
    for data_dir, folder in found:
        _release(data_dir)
        shutil.rmtree(folder, ignore_errors=True)


def connect(uri: str, token_env: str):
    from pymilvus import MilvusClient

    token = os.environ.get(token_env, "")
    return MilvusClient(uri=uri, token=token) if token else MilvusClient(uri=uri)


def _release(data_dir: str) -> None:
    from milvus_lite.server_manager import server_manager_instance

    server_manager_instance.release_server(data_dir)


def _vector_field_info(client, collection: str, params: dict) -> dict:
    """The existing collection's fields as the parameters name them, its vector index, and its row count."""
    from pymilvus import DataType

    if not client.has_collection(collection):
        raise PlaygroundError(f"milvus parameter 'collection'={collection!r}: no such collection at {params['uri']}")
    described = client.describe_collection(collection)
    fields = {field["name"]: field for field in described["fields"]}
    for name in _FIELDS:
        if params[name] and params[name] not in fields:
            raise PlaygroundError(
                f"milvus parameter {name!r}={params[name]!r}: collection {collection!r} has no such field "
                f"(fields: {', '.join(fields)})"
            )
    vector = fields[params["vector_field"]]
    if vector["type"] != DataType.FLOAT_VECTOR:
        raise PlaygroundError(
            f"milvus parameter 'vector_field'={params['vector_field']!r} is a {vector['type'].name} field, "
            "not FLOAT_VECTOR"
        )
    index = client.describe_index(collection, params["vector_field"]) or {}
    return {
        "uri": params["uri"],
        "collection": collection,
        "dim": int(vector["params"]["dim"]),
        "metric": str(index.get("metric_type", "COSINE")),
        "index_type": str(index.get("index_type", "")),
        "fields": sorted(fields),
    }


class MilvusRetriever:
    """A collection searched through pymilvus: its passage ids (and, for a foreign collection, titles and texts)
    come back with each hit."""

    kind = "milvus"
    manifest: dict

    def __init__(self, client, collection: str, info: dict, params: dict, embedder, foreign: bool):
        self.client = client
        self.collection = collection
        self.info = info
        self.params = params
        self.embedder = embedder
        self.foreign = foreign
        self.manifest = {}

    @classmethod
    def build(cls, source, params: dict, path: Path, on_progress: Optional[ProgressCallback] = None) -> dict:
        """The playground's own collection from the cached embeddings; a foreign one is described, never written."""
        if params["collection"]:
            return {"milvus": describe_foreign(params)}
        embeddings = source.embeddings(params["embedder"], on_progress)
        if params["uri"]:
            from playground.retrieval.registry import params_hash

            name = f"playground_{params_hash('milvus', params)}_{source.fingerprint[:8]}"
            client = connect(params["uri"], params["token_env"])
            try:
                write_own_collection(client, name, embeddings.vectors, embeddings.ids, params, on_progress)
            finally:
                client.close()
            info = {"uri": params["uri"], "collection": name}
        else:
            data_dir = str(path / OWN_FOLDER)
            client = connect(data_dir, params["token_env"])
            try:
                write_own_collection(client, OWN_COLLECTION, embeddings.vectors, embeddings.ids, params, on_progress)
            finally:
                client.close()
                _release(data_dir)
            info = {"uri": OWN_FOLDER, "collection": OWN_COLLECTION}
        return {
            "milvus": {**info, "rows": len(embeddings.ids), "dim": int(embeddings.vectors.shape[1])},
            "embeddings": {"path": str(embeddings.path), "embedder": params["embedder"]},
        }

    @classmethod
    def load(cls, source, params: dict, path: Path) -> "MilvusRetriever":
        from playground.retrieval.embedders import get_embedder

        embedder = get_embedder(params["embedder"])
        uri = params["uri"]
        if not params["collection"]:
            own = uri if uri else snapshot(path / OWN_FOLDER)
            client = connect(own, params["token_env"])
            name = read_own_name(path) if uri else OWN_COLLECTION
            client.load_collection(name)  # its own collection (locally: the private snapshot, not the index folder)
            info = {"metric": "IP", "index_type": "HNSW", "dim": embedder.dim}
            return cls(client, name, info, params, embedder, foreign=False)
        client = connect(uri if is_server(uri) else snapshot(Path(uri)), params["token_env"])
        info = _vector_field_info(client, params["collection"], params)
        if is_server(uri):
            state = str(client.get_load_state(params["collection"]).get("state", ""))
            if "NotLoad" in state:
                raise PlaygroundError(
                    f"milvus parameter 'collection'={params['collection']!r} is not loaded at {uri}: load it "
                    "(MilvusClient.load_collection); the playground does not change a collection it did not create"
                )
        else:
            client.load_collection(params["collection"])  # the private snapshot
        if info["dim"] != embedder.dim:
            raise PlaygroundError(
                f"milvus parameter 'embedder'={params['embedder']!r} gives {embedder.dim}-d vectors, but field "
                f"{params['vector_field']!r} of {params['collection']!r} holds {info['dim']}-d ones"
            )
        return cls(client, params["collection"], info, params, embedder, foreign=True)

    @staticmethod
    def versions() -> dict:
        return package_versions("pymilvus", "milvus-lite", "numpy", "sentence-transformers", "torch")

    def search_vectors(self, query: np.ndarray, k: int) -> list[dict]:
        """Milvus's hits for one query vector, best first: {"id", "distance", "entity"}."""
        if k <= 0:
            return []
        p = self.params
        fields = [p["id_field"], p["text_field"], *([p["title_field"]] if p["title_field"] else [])]
        search_params: dict[str, Any] = {"metric_type": self.info["metric"]}
        if self.info["index_type"] == "HNSW":
            search_params["params"] = {"ef": max(p["ef_search"], k)}
        found = self.client.search(
            self.collection,
            data=[np.asarray(query, dtype=np.float32).tolist()],
            limit=k,
            anns_field=p["vector_field"] if self.foreign else "vector",
            output_fields=fields if self.foreign else ["id"],
            search_params=search_params,
        )
        return list(found[0]) if found else []

    def search(self, query: str, k: int) -> list[Hit]:
        vector = self.embedder.query_row(query)
        lower_is_better = self.info["metric"].upper() == "L2"
        hits = []
        for rank, found in enumerate(self.search_vectors(vector, k), 1):
            entity = found.get("entity") or {}
            distance = float(found["distance"])
            key = self.params["id_field"] if self.foreign else "id"
            title, text = self.passage_text(entity) if self.foreign else (None, None)
            hits.append(
                Hit(
                    passage_id=str(entity.get(key, found.get("id"))),
                    score=-distance if lower_is_better else distance,
                    rank=rank,
                    title=title,
                    text=text,
                )
            )
        return hits

    def passage_text(self, entity: dict) -> tuple[str, str]:
        """(title, text) of one foreign hit, read from the fields the parameters name."""
        title = str(entity.get(self.params["title_field"], "")) if self.params["title_field"] else ""
        return title, str(entity.get(self.params["text_field"], ""))


def read_own_name(path: Path) -> str:
    import json

    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    return manifest["milvus"]["collection"]


def describe_foreign(params: dict) -> dict:
    """What the index folder records about a user's collection (fields, dimension, metric), read from a snapshot
    (local) or the server, so a wrong field name or a missing collection is named before any search."""
    uri = params["uri"]
    data_dir = uri if is_server(uri) else snapshot(Path(uri))
    client = connect(data_dir, params["token_env"])
    try:
        return _vector_field_info(client, params["collection"], params)
    finally:
        client.close()
        if not is_server(uri):
            drop_snapshot(data_dir)


def is_marked(described: dict) -> bool:
    """Whether a collection carries the playground's mark: only such a collection is ever dropped or written."""
    return (described.get("properties") or {}).get(MARK_PROPERTY) == MARK


def write_own_collection(
    client, name: str, vectors: np.ndarray, ids: list[str], params: dict, on_progress: Optional[ProgressCallback]
) -> None:
    """Create (or recreate, when it carries the playground's mark) collection `name` and fill it; a same-named
    collection without the mark is someone else's and is refused, never dropped."""
    from pymilvus import DataType

    if client.has_collection(name):
        if not is_marked(client.describe_collection(name)):
            raise PlaygroundError(
                f"milvus collection {name!r} at {params['uri']} exists and was not created by the playground; "
                "it is left as it is (remove it yourself, or build against another uri)"
            )
        client.drop_collection(name)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    schema = client.create_schema(auto_id=False, enable_dynamic_field=False, description=f"{MARK}: {name}")
    longest = max((len(i.encode("utf-8")) for i in ids), default=1)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=max(longest, 1))
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=int(vectors.shape[1]))
    index = client.prepare_index_params()
    index.add_index(
        field_name="vector",
        index_type="HNSW",
        metric_type="IP",
        params={"M": params["M"], "efConstruction": params["ef_construction"]},
    )
    client.create_collection(name, schema=schema, index_params=index, properties={MARK_PROPERTY: MARK})
    for start in range(0, len(ids), _INSERT_BATCH):
        stop = min(start + _INSERT_BATCH, len(ids))
        client.insert(name, [{"id": ids[row], "vector": vectors[row]} for row in range(start, stop)])
        report(on_progress, stop, len(ids), "Milvus collection")
    client.flush(name)
    client.load_collection(name)  # builds the index files now, so a search later adds none
