"""Subcommands: `render` (a template filled for one benchmark question) and `templates list|versions` (with the
label actions of playground.cli.template_labels)."""

from __future__ import annotations

from playground import PlaygroundError, bounds
from playground.cli.output import emit, timestamp, workspace_for
from playground.cli.template_labels import register_label_actions
from playground.terminal_text import one_line

DEFAULT_SHOTS = 3


def register(subparsers, common) -> None:
    render = subparsers.add_parser("render", parents=[common], help="print a template's messages for one question")
    source = render.add_mutually_exclusive_group(required=True)
    source.add_argument("--template", help="starter template NAME, or NAME@VERSION or NAME@LABEL in the workspace")
    source.add_argument("--template-file", help="any template file")
    render.add_argument("--dataset", required=True, help="benchmark name")
    render.add_argument("--question", required=True, help="question id")
    render.add_argument("--retriever", help="retrieve passages with this retriever kind (default: no passages)")
    render.add_argument("-k", type=bounds.K.flag("-k"), default=5, help="passages to retrieve (default 5)")
    render.add_argument(
        "--shots",
        type=bounds.SHOTS.flag("--shots"),
        default=None,
        help=f"few-shot examples from other questions (default {DEFAULT_SHOTS} when the template uses `examples`)",
    )
    render.add_argument("--reasoning", default="", help="the `reasoning` variable (zero-shot CoT extraction)")
    render.set_defaults(handler=cmd_render)

    templates = subparsers.add_parser("templates", parents=[common], help="list templates and their saved versions")
    actions = templates.add_subparsers(dest="templates_action", metavar="ACTION")
    listing = actions.add_parser(
        "list", parents=[common], help="the starter templates and your own (templates/NAME.jinja beside the workspace)"
    )
    listing.set_defaults(handler=cmd_templates_list)
    versions = actions.add_parser("versions", parents=[common], help="prompt versions saved in the workspace")
    versions.add_argument("name", nargs="?", help="only this template's versions")
    versions.set_defaults(handler=cmd_templates_versions)
    register_label_actions(actions, common)
    templates.set_defaults(handler=lambda args: templates.print_help() or 2)


def _examples(workspace, benchmark: str, exclude: str, shots: int) -> list[dict]:
    """The first `shots` other questions of the benchmark that have a reference answer."""
    from playground.store.datasets import load_questions

    examples = []
    for question in load_questions(workspace, benchmark):
        if len(examples) >= shots:
            break
        if question.id != exclude and question.answers and not question.choices:
            examples.append({"question": question.text, "answer": question.answers[0]})
    return examples


def _retrieved_passages(workspace, benchmark: str, query: str, kind: str, k: int) -> list[dict]:
    from playground.prompts.render import passage_variables
    from playground.store.datasets import corpus_of, get_passages

    corpus = corpus_of(workspace, benchmark)
    if not corpus:
        raise PlaygroundError(f"benchmark {benchmark!r} has no corpus to retrieve from; leave out --retriever")
    try:
        from playground.retrieval.index import open_retriever
    except ImportError as error:
        raise PlaygroundError(f"retrieval is not available in this install ({error})") from None
    if k < 1:
        raise PlaygroundError(f"-k must be at least 1, got {k}")
    hits = open_retriever(workspace, corpus, kind).search(query, k)
    found = get_passages(workspace, corpus, [hit.passage_id for hit in hits])
    kept = [hit for hit in hits if hit.passage_id in found]
    return passage_variables([found[hit.passage_id] for hit in kept], kept)


def cmd_render(args) -> int:
    from playground.prompts.library import load_template
    from playground.prompts.render import question_variables, render_messages
    from playground.prompts.variables import required_variables
    from playground.prompts.template import Template
    from playground.store.datasets import get_question

    with workspace_for(args, create=False) as workspace:
        template = (
            Template.from_file(args.template_file) if args.template_file else load_template(args.template, workspace)
        )
        needed = required_variables(template)
        question = get_question(workspace, args.dataset, args.question)
        passages = (
            _retrieved_passages(workspace, args.dataset, question.text, args.retriever, args.k)
            if args.retriever
            else []
        )
        shots = args.shots if args.shots is not None else (DEFAULT_SHOTS if "examples" in needed else 0)
        examples = _examples(workspace, args.dataset, question.id, shots) if shots > 0 else []
        variables = question_variables(question, passages, examples, args.reasoning)
        messages = render_messages(template, variables)
    payload = {"template": template.name, "variables_needed": needed, "messages": messages}
    lines = [
        f"template: {template.name}  (variables: {', '.join(needed) or 'none'}; answer format: {template.answer_format})"
    ]
    for message in messages:
        lines.append(f"--- {message['role']} ---")
        lines.append(message["content"])
    emit(args, payload, "\n".join(lines))
    return 0


def cmd_templates_list(args) -> int:
    from playground.config import workspace_path
    from playground.prompts.library import is_starter, list_templates

    if workspace_path(args.db).exists():
        with workspace_for(args, create=False) as workspace:
            templates = list_templates(workspace)
    else:
        templates = list_templates()
    origins = {t.name: "starter" if is_starter(t) else "own" for t in templates}
    payload = [
        {
            "name": t.name,
            "origin": origins[t.name],
            "description": t.description,
            "technique": t.technique,
            "answer_format": t.answer_format,
            "variables": t.variables,
            "path": t.path,
        }
        for t in templates
    ]
    width = max((len(t.name) for t in templates), default=4)
    text = (
        "\n".join(
            f"{t.name:<{width}}  {origins[t.name]:<7}  {t.answer_format:<6}  {', '.join(t.variables):<28}  "
            f"{t.description}"
            for t in templates
        )
        or "no templates"
    )
    emit(args, payload, text)
    return 0


def cmd_templates_versions(args) -> int:
    from playground.store.prompt_labels import labels_by_version
    from playground.store.prompts import list_prompt_versions

    with workspace_for(args, create=False) as workspace:
        rows = list_prompt_versions(workspace, args.name)
        labels = labels_by_version(workspace, args.name)
    payload = [
        {
            **{key: row[key] for key in ("id", "template", "parent", "message", "session_id", "created_at")},
            "labels": labels.get(row["id"], []),
        }
        for row in rows
    ]
    text = (
        "\n".join(
            f"{row['id']}  {one_line(row['template']):<24}  parent {row['parent'] or '-':<12}  {timestamp(row['created_at'])}  "
            f"{''.join(f'[{one_line(label)}] ' for label in labels.get(row['id'], []))}"
            f"{one_line(row['message'] or '')}".rstrip()
            for row in rows
        )
        or "no prompt versions saved"
    )
    emit(args, payload, text)
    return 0
