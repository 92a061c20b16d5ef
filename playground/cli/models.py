"""`playground models list|try`: see which model specs exist and generate once from one of them."""

from __future__ import annotations

from playground import bounds
from playground.cli.output import emit
from playground.models.registry import DEFAULT_MODEL_SPEC, model_spec_flag


def register(subparsers, common) -> None:
    models = subparsers.add_parser("models", parents=[common], help="list model providers; try a model once")
    commands = models.add_subparsers(dest="models_command", metavar="SUBCOMMAND")
    models.set_defaults(handler=lambda args: models.print_help() or 2)

    lister = commands.add_parser("list", parents=[common], help="show providers, spec patterns and key variables")
    lister.set_defaults(handler=list_command)

    trier = commands.add_parser("try", parents=[common], help="generate once from a model spec (no cache)")
    trier.add_argument("prompt", help="the user message")
    trier.add_argument(
        "--model",
        type=model_spec_flag("--model"),
        default=None,
        metavar="SPEC",
        help=f"model spec (default {DEFAULT_MODEL_SPEC})",
    )
    trier.add_argument("--system", default=None, help="an optional system message")
    trier.add_argument(
        "--max-tokens",
        type=bounds.MAX_TOKENS.flag("--max-tokens"),
        default=64,
        help="tokens to generate at most (default 64)",
    )
    trier.add_argument(
        "--temperature",
        type=bounds.TEMPERATURE.flag("--temperature"),
        default=0.0,
        help="sampling temperature (default 0)",
    )
    trier.add_argument(
        "--top-p", type=bounds.TOP_P.flag("--top-p"), default=1.0, help="nucleus sampling mass (default 1)"
    )
    trier.add_argument("--seed", type=bounds.SEED.flag("--seed"), default=0, help="sampling seed (default 0)")
    trier.add_argument("--stop", action="append", default=[], metavar="TEXT", help="a stop sequence (repeatable)")
    trier.add_argument("-n", type=bounds.SAMPLES.flag("-n"), default=1, help="number of samples (default 1)")
    trier.set_defaults(handler=try_command)


def list_command(args) -> int:
    from playground.models.local_files import LOCAL_ALIASES, alias_status
    from playground.models.registry import providers as registered
    from playground.redaction import env_secret

    providers = [
        {
            "provider": p.name,
            "pattern": p.pattern,
            "example": p.example,
            "key_env": p.key_env,
            "key_set": bool(env_secret(p.key_env)) if p.key_env else None,
            "description": p.description,
        }
        for p in registered().values()
    ]
    local = []
    for alias in LOCAL_ALIASES:
        local.append({"spec": f"local:{alias}", **alias_status(alias)})
    payload = {"default": DEFAULT_MODEL_SPEC, "providers": providers, "local_models": local}
    lines = [f"default model: {DEFAULT_MODEL_SPEC}", "", "providers:"]
    for p in providers:
        key = "" if p["key_env"] is None else f"  key: ${p['key_env']} ({'set' if p['key_set'] else 'not set'})"
        lines.append(f"  {p['pattern']}\n      {p['description']}; e.g. {p['example']}{key}")
    lines += ["", "local models:"]
    lines += [f"  {m['spec']}  {m['file'] if m['available'] else 'unavailable: ' + m['error']}" for m in local]
    emit(args, payload, "\n".join(lines))
    return 0


def try_command(args) -> int:
    from playground.models.base import GenerationParams
    from playground.models.registry import load_model

    spec = args.model or DEFAULT_MODEL_SPEC
    model = load_model(spec)
    messages = ([{"role": "system", "content": args.system}] if args.system else []) + [
        {"role": "user", "content": args.prompt}
    ]
    params = GenerationParams(
        temperature=args.temperature,
        top_p=args.top_p,
        max_tokens=args.max_tokens,
        stop=tuple(args.stop),
        seed=args.seed,
        n=args.n,
    )
    completion = model.generate(messages, params)
    payload = {
        "spec": model.spec,
        "model_id": completion.model_id,
        "text": completion.text,
        "samples": completion.samples,
        "finish_reason": completion.finish_reason,
        "prompt_tokens": completion.prompt_tokens,
        "completion_tokens": completion.completion_tokens,
        "latency_s": round(completion.latency_s, 4),
        "context_window": model.context_window,
        "params": params.to_dict(),
        "model": model.info,
    }
    text = "\n".join(
        [
            completion.text,
            "",
            f"[{completion.model_id}; {completion.prompt_tokens}+{completion.completion_tokens} tokens; "
            f"finish {completion.finish_reason}; {completion.latency_s:.2f} s]",
        ]
    )
    emit(args, payload, text)
    return 0
