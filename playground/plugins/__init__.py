"""Plugins, the way simonw/llm does them: a distribution names a module in the `playground.plugins` entry-point
group; the module's `@hookimpl` functions register light records (one per extension) through one hook per kind.
The built-ins register through the same hooks. What a plugin author imports is here; docs/extending.md shows each
kind end to end.
"""

from playground.plugins.hookspecs import hookimpl
from playground.plugins.manager import GROUP, add_plugin, registry, remove_plugin, reset
from playground.plugins.options import Option
from playground.plugins.records import (
    Chunker,
    DocumentParser,
    Importer,
    Judge,
    JudgeKind,
    Metric,
    ModelProvider,
    ProgramKind,
    Reranker,
    RetrieverKind,
    load_ref,
)

__all__ = [
    "GROUP",
    "Chunker",
    "DocumentParser",
    "Importer",
    "Judge",
    "JudgeKind",
    "Metric",
    "ModelProvider",
    "Option",
    "ProgramKind",
    "Reranker",
    "RetrieverKind",
    "add_plugin",
    "hookimpl",
    "load_ref",
    "registry",
    "remove_plugin",
    "reset",
]
