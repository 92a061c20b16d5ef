"""The one Jinja2 environment every template renders in: sandboxed, immutable, strict about undefined names.

Templates may come from an imported session file, so they are untrusted: the sandbox refuses private attributes
and mutating calls, and every operation that could allocate without bound is checked before it runs (`*`, `**`,
`+`, `%`, `~`, the center/format/indent/replace/join/batch/slice filters and string methods, lipsum, range), while
every loop step and call ticks the render's meter (playground.prompts.limits). The render worker's memory limit
and timeout (playground.prompts.worker) are the hard guard behind these checks.
"""

from __future__ import annotations

import functools
import re
from functools import lru_cache
from itertools import islice
from typing import Any, Callable, Iterable, Iterator

from jinja2 import StrictUndefined, nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import generate_lorem_ipsum
from jinja2.visitor import NodeTransformer

from playground.prompts.limits import (
    MAX_EXPONENT,
    MAX_INT_BITS,
    MAX_RANGE,
    MAX_REPEAT_LENGTH,
    MAX_STRING,
    BudgetExceeded,
    check_int,
    check_size,
    current_meter,
    tick,
)

_NESTED_WIDTH = re.compile(r"\*|\{[^{}]*\{")
_NUMBER = re.compile(r"\d{7,}")


def _range(*args: int) -> range:
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise BudgetExceeded(f"range of {len(numbers)} items is too long for a prompt (at most {MAX_RANGE})")
    return numbers


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:  # noqa: A002 - Jinja's names
    if int(n) * int(max) > 100_000:
        raise BudgetExceeded(f"lipsum(n={n}, max={max}) is too long for a prompt (n * max at most 100,000 words)")
    return generate_lorem_ipsum(n=n, html=html, min=min, max=max)


def _length(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes)) else len(str(value))


def _check_format(fmt: Any, args: Iterable[Any], what: str) -> None:
    """A format string may not ask for huge widths, literally or through an argument (`*`, nested `{}`)."""
    if not isinstance(fmt, str):
        return
    if any(int(number) > MAX_STRING for number in _NUMBER.findall(fmt)):
        raise BudgetExceeded(f"{what}: a width or precision over {MAX_STRING:,} is too large for a prompt")
    if _NESTED_WIDTH.search(fmt):
        for value in args:
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_STRING:
                raise BudgetExceeded(f"{what}: a width or precision of {value:,} is too large for a prompt")


def _replace_size(s: Any, old: Any, new: Any, count: Any = None) -> int:
    if not isinstance(s, (str, bytes)) or not isinstance(old, type(s)) or not isinstance(new, type(s)):
        return _length(s)
    found = s.count(old) if old else len(s) + 1
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    return len(s) + found * max(0, len(new) - len(old))


def _materialise(value: Any, what: str) -> list:
    items = []
    for item in islice(value, MAX_STRING + 1):
        items.append(item)
    tick(len(items))
    check_size(len(items), what)
    return items


def _join_size(items: list, separator: Any) -> int:
    return sum(_length(item) for item in items) + _length(separator or "") * max(0, len(items) - 1)


def _checked_filter(name: str, original: Callable, estimate: Callable) -> Callable:
    """Wrap a filter so `estimate(args, kwargs, what)` (args after any context argument) runs before it."""
    skip = 1 if getattr(original, "jinja_pass_arg", None) is not None else 0

    def checked(*args, **kwargs):
        rest = estimate(list(args[skip:]), kwargs, f"the {name} filter")
        return original(*args[:skip], *rest, **kwargs)

    return functools.wraps(original)(checked)


def _est_width(rest: list, kwargs: dict, what: str) -> list:
    width = rest[1] if len(rest) > 1 else kwargs.get("width", 80)
    if isinstance(width, int):
        check_size(width, what)
    return rest


def _est_indent(rest: list, kwargs: dict, what: str) -> list:
    value = rest[0] if rest else ""
    width = rest[1] if len(rest) > 1 else kwargs.get("width", 4)
    step = len(width) if isinstance(width, str) else int(width)
    check_size(_length(value) + (str(value).count("\n") + 1) * step, what)
    return rest


def _est_format(rest: list, kwargs: dict, what: str) -> list:
    _check_format(rest[0] if rest else "", [*rest[1:], *kwargs.values()], what)
    return rest


def _est_replace(rest: list, kwargs: dict, what: str) -> list:
    s, old, new = (rest + [None, None, None])[:3]
    count = rest[3] if len(rest) > 3 else kwargs.get("count")
    check_size(_replace_size(s, old, new, count), what)
    return rest


def _est_join(rest: list, kwargs: dict, what: str) -> list:
    if rest:
        rest[0] = _materialise(rest[0], what)
        separator = rest[1] if len(rest) > 1 else kwargs.get("d", "")
        check_size(_join_size(rest[0], separator), what)
    return rest


def _est_count(position: int, keyword: str) -> Callable:
    def estimate(rest: list, kwargs: dict, what: str) -> list:
        count = rest[position] if len(rest) > position else kwargs.get(keyword, 0)
        if isinstance(count, int) and count > MAX_REPEAT_LENGTH:
            raise BudgetExceeded(f"{what}: {count:,} is too many (at most {MAX_REPEAT_LENGTH:,})")
        return rest

    return estimate


_FILTER_CHECKS = {
    "center": _est_width,
    "indent": _est_indent,
    "format": _est_format,
    "replace": _est_replace,
    "join": _est_join,
    "batch": _est_count(1, "linecount"),
    "slice": _est_count(1, "slices"),
}


def _check_method(obj: Any, args: tuple, kwargs: dict) -> tuple:
    """Size checks for str/bytes methods that can build large results; returns args (join's iterable listed)."""
    method = getattr(obj, "__wrapped__", obj)  # the sandbox wraps str.format in a function of its own
    owner = getattr(method, "__self__", None)
    name = getattr(method, "__name__", "")
    if not isinstance(owner, (str, bytes)):
        return args
    what = f"{type(owner).__name__}.{name}"
    if name in ("center", "ljust", "rjust", "zfill") and args and isinstance(args[0], int):
        check_size(args[0], what)
    elif name == "expandtabs":
        size = args[0] if args else kwargs.get("tabsize", 8)
        check_size(len(owner) * max(1, int(size)), what)
    elif name == "replace":
        check_size(_replace_size(owner, *args[:3]), what)
    elif name == "join" and args:
        items = _materialise(args[0], what)
        check_size(_join_size(items, owner), what)
        return (items, *args[1:])
    elif name in ("format", "format_map"):
        values = [*args, *kwargs.values()]
        if name == "format_map" and args and isinstance(args[0], dict):
            values = list(args[0].values())
        _check_format(owner, values, what)
    return args


def checked_concat(*parts: Any) -> str:
    """The `~` operator, with its result's size checked before it is built."""
    texts = [part if isinstance(part, str) else str(part) for part in parts]
    check_size(sum(len(text) for text in texts), "the ~ operator")
    tick()
    return "".join(texts)


def metered_iter(iterable: Any) -> Iterator[Any]:
    """What every `{% for %}` loops over: each step ticks the render's meter."""
    meter = current_meter()
    for item in iterable:
        if meter is not None:
            meter.tick()
        yield item


class PromptSandbox(ImmutableSandboxedEnvironment):
    """The sandbox, plus checked arithmetic, sizes, calls and loops (see the module docstring)."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})
    metered_iter = staticmethod(metered_iter)
    checked_concat = staticmethod(checked_concat)

    def call_binop(self, context, operator: str, left: Any, right: Any) -> Any:
        tick()
        if operator == "*":
            for sequence, times in ((left, right), (right, left)):
                if isinstance(sequence, (str, bytes, list, tuple)) and isinstance(times, int):
                    if len(sequence) * times > MAX_REPEAT_LENGTH:
                        raise BudgetExceeded(
                            f"repeating a sequence to {len(sequence) * times:,} items is too long "
                            f"(at most {MAX_REPEAT_LENGTH:,})"
                        )
            if (
                isinstance(left, int)
                and isinstance(right, int)
                and left.bit_length() + right.bit_length() > MAX_INT_BITS
            ):
                raise BudgetExceeded(
                    f"multiplying integers of {left.bit_length():,} and {right.bit_length():,} "
                    f"bits is too large (at most {MAX_INT_BITS:,} bits)"
                )
        elif operator == "**":
            if isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
                raise BudgetExceeded(f"exponent {right} is too large (at most {MAX_EXPONENT})")
            if (
                isinstance(left, int)
                and isinstance(right, int)
                and right > 0
                and left.bit_length() * right > MAX_INT_BITS
            ):
                raise BudgetExceeded(
                    f"{left.bit_length():,}-bit integer to the power {right} is too large "
                    f"(at most {MAX_INT_BITS:,} bits)"
                )
        elif operator == "+":
            if isinstance(left, (str, bytes, list, tuple)) and isinstance(right, (str, bytes, list, tuple)):
                check_size(len(left) + len(right), "the + operator")
        elif operator == "%" and isinstance(left, (str, bytes)):
            _check_format(left, right if isinstance(right, (tuple, list)) else [right], "the % operator")
        result = super().call_binop(context, operator, left, right)
        check_int(result, f"the {operator} operator")
        return result

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805 - Jinja's own signature
        args = _check_method(__obj, args, kwargs)
        meter = current_meter()
        if meter is None:
            return super().call(__context, __obj, *args, **kwargs)
        with meter.call():
            return super().call(__context, __obj, *args, **kwargs)


class _LoopGuard(NodeTransformer):
    """Every for-loop iterates through `metered_iter`; every `~` becomes a call of `checked_concat`."""

    def visit_For(self, node: nodes.For) -> nodes.For:
        self.generic_visit(node)
        node.iter = nodes.Call(
            nodes.EnvironmentAttribute("metered_iter"), [node.iter], [], None, None, lineno=node.lineno
        )
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Call:
        self.generic_visit(node)
        return nodes.Call(
            nodes.EnvironmentAttribute("checked_concat"), list(node.nodes), [], None, None, lineno=node.lineno
        )


def guard_loops(template: nodes.Template) -> nodes.Template:
    """Rewrite a parsed template so its loops are metered and its concatenations checked."""
    return _LoopGuard().visit(template)


@lru_cache(maxsize=1)
def get_environment() -> PromptSandbox:
    """The shared environment: no autoescape (prompts are plain text), block tags do not leave blank lines."""
    environment = PromptSandbox(
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    environment.globals["range"] = _range
    environment.globals["lipsum"] = _lipsum
    environment.globals["language"] = None  # the corpus's language's name where a caller knows it (StepContext)
    for name, estimate in _FILTER_CHECKS.items():
        environment.filters[name] = _checked_filter(name, environment.filters[name], estimate)
    return environment
