"""The hooks a plugin implements, one per kind of extension. Each receives `register`, to be called once per
extension with its record (playground.plugins.records); the built-ins register through the same hooks.

A plugin module marks its functions with `@hookimpl` and is named by an entry point in the `playground.plugins`
group of its distribution (see docs/extending.md).
"""

from __future__ import annotations

import pluggy

PROJECT = "playground"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_model_providers(register):
    """Register model providers: register(ModelProvider(...))."""


@hookspec
def register_retrievers(register):
    """Register retriever kinds: register(RetrieverKind(...))."""


@hookspec
def register_rerankers(register):
    """Register rerankers (the stage after retrieval): register(Reranker(...))."""


@hookspec
def register_programs(register):
    """Register programs: register(ProgramKind(...)), or register(program) with a Program object."""


@hookspec
def register_metrics(register):
    """Register answer metrics: register(Metric(...))."""


@hookspec
def register_judges(register):
    """Register LLM judges: register(Judge(...))."""


@hookspec
def register_importers(register):
    """Register benchmark formats: register(Importer(...))."""


@hookspec
def register_document_parsers(register):
    """Register document formats for your own documents: register(DocumentParser(...))."""


@hookspec
def register_chunkers(register):
    """Register ways to cut documents into passages: register(Chunker(...))."""
