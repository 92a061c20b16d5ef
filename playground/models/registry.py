"""Model specs ("PROVIDER:...", e.g. "local:smollm2", "openai:MODEL@URL") -> loaded models, through the providers
that plugins register (the built-ins in playground.models.plugin).

Each provider parses what follows its "NAME:" and constructs its models; this module only dispatches, so a new
provider is one registration, never a branch here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlparse

from playground.models.base import Model
from playground.models.errors import ModelSpecError
from playground.redaction import register_url

DEFAULT_MODEL_SPEC = "local:smollm2"


@dataclass(frozen=True)
class ParsedSpec:
    provider: str
    model: str
    base_url: Optional[str] = None
    hf_provider: Optional[str] = None


def providers() -> dict:
    """Provider name -> its registration (playground.plugins.ModelProvider), built-ins first."""
    from playground.plugins import registry

    return dict(registry().of("providers"))


def _expected() -> str:
    return "; ".join(p.pattern for p in providers().values())


def check_url(url: str, spec: str) -> str:
    """A spec's base URL, registered for redaction; a bad scheme or credentials in it are a ModelSpecError."""
    from playground.redaction import app_key_vars

    try:
        parsed = urlparse(url)
        parsed.port  # noqa: B018 - a port out of range or not a number raises here, not later in a client
    except ValueError as error:  # "Invalid IPv6 URL", "Port out of range 0-65535"
        raise ModelSpecError(f"bad base URL '{url}' in model spec '{spec}': {error}") from None
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ModelSpecError(f"bad base URL '{url}' in model spec '{spec}': expected http(s)://HOST[:PORT][/PATH]")
    if parsed.username or parsed.password:
        raise ModelSpecError(
            f"the base URL in model spec '{spec.split('@', 1)[0]}@...' carries credentials; "
            f"put keys in the environment ({', '.join(app_key_vars())}), never in a spec"
        )
    return register_url(url).rstrip("/")


def split_model_url(rest: str, spec: str) -> tuple[str, Optional[str]]:
    """ "MODEL@http(s)://URL" -> (MODEL, checked URL); without an @URL, (rest, None)."""
    match = re.match(r"^(?P<model>.*?)@(?P<url>[A-Za-z][A-Za-z0-9+.-]*://.*)$", rest)
    if not match:
        return rest, None
    return match["model"], check_url(match["url"], spec)


def parse_model_and_url(provider: str, rest: str, spec: str) -> ParsedSpec:
    """The default reading of what follows "PROVIDER:": MODEL, or MODEL@BASE_URL."""
    model, url = split_model_url(rest, spec)
    if not model:
        raise ModelSpecError(f"model spec '{spec}' names no model; expected {providers()[provider].pattern}")
    return ParsedSpec(provider, model, base_url=url)


def provider_of(spec: str):
    """(the provider registration, what follows its "NAME:") of a spec, or a ModelSpecError saying what is expected."""
    if not isinstance(spec, str) or not spec.strip():
        raise ModelSpecError(f"empty model spec; expected one of: {_expected()} (default {DEFAULT_MODEL_SPEC})")
    spec = spec.strip()
    name, sep, rest = spec.partition(":")
    if not sep:
        raise ModelSpecError(f"model spec '{spec}' has no provider prefix; expected one of: {_expected()}")
    known = providers()
    if name not in known:
        raise ModelSpecError(f"unknown model provider '{name}' in '{spec}'; known providers: {', '.join(known)}")
    if not rest.strip():
        raise ModelSpecError(f"model spec '{spec}' names no model; expected {known[name].pattern}")
    return known[name], rest


def parse_spec(spec: str) -> ParsedSpec:
    """Split a spec into its parts, or raise ModelSpecError naming the spec and what was expected: the one reader
    of specs, which never raises anything else (a plugin's parser failing is said as the spec's error)."""
    from playground import PlaygroundError
    from playground.plugins import load_ref
    from playground.plugins.calls import call_plugin, instance_of

    provider, rest = provider_of(spec)
    if provider.parse is None:
        return parse_model_and_url(provider.name, rest, spec.strip())
    try:
        parse = load_ref(provider.parse, f"model provider {provider.name!r}")
        return call_plugin(
            "providers",
            provider.name,
            "parse",
            parse,
            rest,
            spec.strip(),
            returns=instance_of(ParsedSpec, "a ParsedSpec"),
        )
    except ModelSpecError:
        raise
    except PlaygroundError as error:
        raise ModelSpecError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - a plugin's parser is not trusted to raise the project's error
        raise ModelSpecError(
            f"model spec '{spec.strip()}' cannot be read by provider {provider.name!r} "
            f"({type(error).__name__}: {error})"
        ) from None


def model_spec_flag(flag: str):
    """An argparse `type=` reading a model spec with `parse_spec`: a bad one is the CLI's one `error:` line (exit 1)
    before anything runs; the spec is kept as written (stripped)."""

    def parse_flag(text: str) -> str:
        from playground import PlaygroundError

        try:
            parse_spec(text)
        except PlaygroundError as error:
            raise PlaygroundError(f"{flag}: {error}") from None
        return text.strip()

    parse_flag.__name__ = "model spec"
    return parse_flag


def load_model(spec: str = DEFAULT_MODEL_SPEC, api_key: Optional[str] = None, **options) -> Model:
    """The model a spec names. `options` go to the provider: n_ctx (local), context_window, retry (remote).

    `api_key` (remote only) wins over the provider's environment variable for this model object alone; it is
    registered for redaction and never appears in .spec or .info. Local models need no key and ignore it.
    Every returned model has .spec, .context_window, .info, .generate, .count_tokens, .count_prompt_tokens.
    """
    from playground.plugins import load_ref
    from playground.plugins.calls import call_plugin

    parsed = parse_spec(spec)
    provider = providers()[parsed.provider]
    load = load_ref(provider.load, f"model provider {provider.name!r}")
    return call_plugin(
        "providers", provider.name, "load", load, parsed, spec.strip(), api_key=api_key, returns=_a_model, **options
    )


def _a_model(value):
    """What a provider's load returned, if it is a model (a text .spec, .generate and .count_tokens)."""
    from playground.plugins.calls import WrongReturn

    if not isinstance(getattr(value, "spec", None), str) or not all(
        callable(getattr(value, method, None)) for method in ("generate", "count_tokens")
    ):
        raise WrongReturn("expected a model (with a text .spec, .generate() and .count_tokens())")
    return value


def key_env_for(spec: str) -> Optional[str]:
    """The environment variable holding the key for a spec's provider (e.g. OPENAI_API_KEY); None for local."""
    return providers()[parse_spec(spec).provider].key_env
