"""`playground data import|list|sample`: bring benchmarks into the workspace and see what is there."""

from __future__ import annotations

import time

from playground import bounds
from playground.cli.output import emit, text_table, workspace_for


def register(subparsers, common) -> None:
    from playground.data.importers import importer_names

    data = subparsers.add_parser("data", parents=[common], help="import, list and sample benchmarks and corpora")
    commands = data.add_subparsers(dest="data_command", metavar="SUBCOMMAND")
    data.set_defaults(handler=lambda args: data.print_help() or 2)

    importer = commands.add_parser(
        "import",
        parents=[common],
        help="import a benchmark file or folder as corpus and benchmark NAME",
        description=f"Formats: {', '.join(importer_names())}. The import is one transaction: on any error nothing changes.",
    )
    importer.add_argument("format", metavar="FORMAT", help=f"one of: {', '.join(importer_names())}")
    importer.add_argument("path", metavar="PATH", help="the file (or folder, for obqa and beir) to read")
    importer.add_argument("--name", required=True, help="name of the stored benchmark (and corpus, when it has one)")
    importer.add_argument("--replace", action="store_true", help="overwrite an existing dataset of that name")
    importer.set_defaults(handler=import_command)

    lister = commands.add_parser("list", parents=[common], help="show corpora and benchmarks with their counts")
    lister.set_defaults(handler=list_command)

    sampler = commands.add_parser("sample", parents=[common], help="print the question ids a seeded sample picks")
    sampler.add_argument("--dataset", required=True, help="benchmark name")
    sampler.add_argument(
        "--sample", type=bounds.SAMPLE.flag("--sample"), required=True, metavar="N", help="number of questions"
    )
    sampler.add_argument(
        "--seed", type=bounds.SEED.flag("--seed"), default=0, metavar="S", help="sampling seed (default 0)"
    )
    sampler.set_defaults(handler=sample_command)


def import_command(args) -> int:
    from playground.data.importers import read_dataset
    from playground.store.datasets import save_dataset

    started = time.perf_counter()
    dataset = read_dataset(args.format, args.path)
    with workspace_for(args) as workspace:
        summary = save_dataset(workspace, args.name, dataset, replace=args.replace)
    payload = {
        **summary,
        "format": dataset.format,
        "source": dataset.source,
        "workspace": str(workspace.path),
        "seconds": round(time.perf_counter() - started, 3),
    }
    corpus = f"corpus {summary['corpus']!r} with {summary['passages']:,} passages" if summary["corpus"] else "no corpus"
    emit(
        args,
        payload,
        f"imported {args.format} {dataset.source} as benchmark {args.name!r} with "
        f"{summary['questions']:,} questions and {corpus} ({payload['seconds']:.2f} s)",
    )
    return 0


def list_command(args) -> int:
    from playground.store.datasets import list_datasets

    with workspace_for(args, create=False) as workspace:
        listing = list_datasets(workspace)
    if not listing["corpora"] and not listing["benchmarks"]:
        text = f"no datasets in {workspace.path} yet (try `playground demo` or `playground data import`)"
    else:
        text = "\n".join(
            [
                "corpora:",
                text_table(
                    ["name", "format", "passages"],
                    [[c["name"], c["format"], c["n_passages"]] for c in listing["corpora"]],
                ),
                "",
                "benchmarks:",
                text_table(
                    ["name", "corpus", "format", "questions"],
                    [[b["name"], b["corpus"] or "-", b["format"], b["n_questions"]] for b in listing["benchmarks"]],
                ),
            ]
        )
    emit(args, listing, text)
    return 0


def sample_command(args) -> int:
    from playground import PlaygroundError
    from playground.data.sampling import sample_questions
    from playground.store.datasets import load_questions

    if args.sample < 1:
        raise PlaygroundError("--sample must be at least 1")
    with workspace_for(args, create=False) as workspace:
        questions = load_questions(workspace, args.dataset)
    picked = [question.id for question in sample_questions(questions, args.sample, args.seed)]
    payload = {
        "dataset": args.dataset,
        "n": len(picked),
        "seed": args.seed,
        "of": len(questions),
        "question_ids": picked,
    }
    emit(args, payload, "\n".join(picked))
    return 0
