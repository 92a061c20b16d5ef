"""Load the plugins once per process: the built-ins first, then every module named by an entry point in the
`playground.plugins` group, and collect what their hooks register, each record with the plugin and distribution
it came from. A plugin that fails to load, or registers a name already taken, is reported (stderr, and in
`playground plugins`) and left out; the rest keep working.
"""

from __future__ import annotations

import importlib
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from playground import PlaygroundError, __version__
import playground.plugins.hookspecs as hookspecs
from playground.plugins.exits import exit_problem
from playground.plugins.records import KINDS, Kind, ProgramKind

GROUP = "playground.plugins"
# The built-ins, registered through the same hooks as any plugin (each module is light: records, no heavy import).
BUILTIN_PLUGINS = (
    "playground.models.plugin",
    "playground.retrieval.plugin",
    "playground.retrieval.rerank.kinds",
    "playground.programs.plugin",
    "playground.evaluation.plugin",
    "playground.data.plugin",
    "playground.traces.plugin",
)
log = logging.getLogger("playground.plugins")


@dataclass(frozen=True)
class Origin:
    """Where a registration came from: the plugin (module or entry point) and its distribution."""

    plugin: str
    distribution: str
    version: str
    builtin: bool


@dataclass
class PluginInfo:
    origin: Origin
    hooks: list[str] = field(default_factory=list)


@dataclass
class Registry:
    """Every registered extension by kind (in registration order: built-ins first), with its origin."""

    entries: dict[str, dict[str, Any]] = field(default_factory=lambda: {kind.name: {} for kind in KINDS})
    origins: dict[tuple[str, str], Origin] = field(default_factory=dict)
    plugins: list[PluginInfo] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def of(self, kind: str) -> dict[str, Any]:
        return self.entries[kind]

    def origin(self, kind: str, name: str) -> Optional[Origin]:
        return self.origins.get((kind, name))


_lock = threading.RLock()
_registry: Optional[Registry] = None
_loading: Optional[Registry] = None
_in_process: dict[str, Any] = {}  # plugins added by add_plugin (tests, embedding programs), after the installed ones


def registry() -> Registry:
    """The registry of this process, loaded on first use. A call made while it loads (a plugin's import, a log line
    being redacted) sees what is registered so far."""
    global _registry, _loading
    if _registry is not None:
        return _registry
    with _lock:
        if _registry is not None:
            return _registry
        if _loading is not None:
            return _loading
        _loading = Registry()
        try:
            _load(_loading)
            loaded = _loading
        finally:
            _loading = None
        _registry = loaded
    for problem in loaded.problems:
        log.warning("%s", problem)
    return loaded


def reset() -> None:
    """Forget the loaded registry; the next use loads the plugins again (after a plugin is installed in-process)."""
    global _registry
    with _lock:
        _registry = None


def add_plugin(plugin: Any, name: str) -> None:
    """Register `plugin` (a module or object with @hookimpl functions) in this process, as an installed one would be;
    the registry reloads on next use. For tests and programs that embed playground; `remove_plugin` undoes it."""
    with _lock:
        _in_process[name] = plugin
        reset()


def remove_plugin(name: str) -> None:
    with _lock:
        _in_process.pop(name, None)
        reset()


def _distribution_of(entry_point) -> tuple[str, str]:
    dist = getattr(entry_point, "dist", None)
    if dist is None:
        return "unknown", ""
    return str(dist.metadata["Name"] or dist.name), str(dist.version or "")


def _entry_points() -> list:
    from importlib.metadata import entry_points

    found = {}
    for entry_point in entry_points(group=GROUP):
        found.setdefault((_distribution_of(entry_point)[0].lower(), entry_point.name), entry_point)
    return [found[key] for key in sorted(found)]


def _register_plugins(manager, registry: Registry) -> dict[str, Origin]:
    origins: dict[str, Origin] = {}
    for name in BUILTIN_PLUGINS:
        manager.register(importlib.import_module(name), name=name)
        origins[name] = Origin(name, hookspecs.PROJECT, __version__, builtin=True)
    for entry_point in _entry_points():
        distribution, version = _distribution_of(entry_point)
        where = f"plugin {entry_point.name!r} (distribution {distribution} {version})".replace(" )", ")")
        try:
            module = entry_point.load()
            plugin_name = f"{distribution}:{entry_point.name}"
            manager.register(module, name=plugin_name)
        except Exception as error:  # noqa: BLE001 - one broken plugin must not stop the others or the built-ins
            registry.problems.append(f"{where} could not be loaded and is left out: {type(error).__name__}: {error}")
            continue
        except BaseException as error:  # an exit in a plugin's import must not end every command
            problem = exit_problem(error)
            if problem is None:
                raise
            registry.problems.append(f"{where} could not be loaded and is left out: its import {problem}")
            continue
        origins[plugin_name] = Origin(entry_point.name, distribution, version, builtin=False)
    for name, plugin in _in_process.items():
        manager.register(plugin, name=f"in-process:{name}")
        origins[f"in-process:{name}"] = Origin(name, "in-process", "", builtin=False)
    return origins


def _unknown_hooks(manager, origins: dict[str, Origin]) -> list[str]:
    known = sorted(kind.hook for kind in KINDS)
    problems = []
    for plugin_name, origin in origins.items():
        for caller in manager.get_hookcallers(manager.get_plugin(plugin_name)) or []:
            if caller.spec is None:
                problems.append(
                    f"plugin {origin.plugin!r} ({origin.distribution}) implements {caller.name}, which "
                    f"is no hook of playground (hooks: {', '.join(known)}); it is never called"
                )
    return problems


def _registrar(kind: Kind, origin: Origin, registry: Registry) -> Callable[[Any], None]:
    where = f"plugin {origin.plugin!r} ({origin.distribution})"

    def register(record: Any) -> None:
        if kind.record is ProgramKind and not isinstance(record, ProgramKind) and hasattr(record, "run"):
            record = ProgramKind(str(getattr(record, "name", "")), record, str(getattr(record, "description", "")))
        if not isinstance(record, kind.record):
            raise PlaygroundError(
                f"{where}: {kind.hook} registers {kind.record.__name__} records, not {type(record).__name__}"
            )
        name = getattr(record, "name", None)
        if not isinstance(name, str) or not name.strip() or name != name.strip() or ":" in name:
            raise PlaygroundError(
                f"{where}: {kind.record.__name__} name {name!r} must be a non-empty word "
                "without ':' or surrounding spaces"
            )
        taken = registry.origin(kind.name, name)
        if taken is not None:
            registry.problems.append(
                f"{where} registers {kind.title} {name!r}, already registered by plugin "
                f"{taken.plugin!r} ({taken.distribution}); the first one is kept"
            )
            return
        registry.entries[kind.name][name] = record
        registry.origins[(kind.name, name)] = origin

    return register


def _load(registry: Registry) -> None:
    import pluggy

    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    origins = _register_plugins(manager, registry)
    registry.problems.extend(_unknown_hooks(manager, origins))
    order = list(origins)
    hooks_of: dict[str, list[str]] = {name: [] for name in order}
    for kind in KINDS:
        implementations = getattr(manager.hook, kind.hook).get_hookimpls()
        for implementation in sorted(implementations, key=lambda impl: order.index(impl.plugin_name)):
            origin = origins[implementation.plugin_name]
            hooks_of[implementation.plugin_name].append(kind.hook)
            arguments = {"register": _registrar(kind, origin, registry)}
            try:
                implementation.function(**{name: arguments[name] for name in implementation.argnames})
            except BaseException as error:  # noqa: BLE001 - reported; what it registered before failing stays
                problem = exit_problem(error) if isinstance(error, (SystemExit, KeyboardInterrupt)) else None
                if origin.builtin or (problem is None and not isinstance(error, Exception)):
                    raise
                registry.problems.append(
                    f"plugin {origin.plugin!r} ({origin.distribution}) failed in {kind.hook}: "
                    + (problem or f"{type(error).__name__}: {error}")
                )
    registry.plugins = [PluginInfo(origins[name], hooks_of[name]) for name in order]
