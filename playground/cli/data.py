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
        description=f"Formats: {', '.join(importer_names())}, and docs (your own documents: a file or a folder of "
        "Markdown, RST, text, HTML and PDF, see docs/documents.md), and questions (your questions, JSONL or CSV, with "
        "their evidence in a corpus named by --corpus). The import is one transaction: on any error nothing changes.",
    )
    importer.add_argument("format", metavar="FORMAT", help=f"one of: {', '.join(importer_names())}, docs, questions")
    importer.add_argument("path", metavar="PATH", help="the file (or folder, for obqa, beir and docs) to read")
    importer.add_argument(
        "--name",
        default=None,
        help="name of the stored benchmark (and corpus, when it has one); questions: default the file's name",
    )
    importer.add_argument(
        "--corpus",
        default=None,
        metavar="NAME",
        help="questions: the corpus their evidence is in (documents for 'document', any corpus for 'passage_ids')",
    )
    importer.add_argument("--replace", action="store_true", help="overwrite an existing dataset of that name")
    importer.add_argument(
        "--language",
        default=None,
        metavar="CODE",
        help="the language of the text, as an ISO 639-1 code (en, zh, de, ...); default: detected from the text",
    )
    add_chunking_arguments(importer)
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


def add_chunking_arguments(parser) -> None:
    """--chunker, --chunk-size, --overlap: how `data import docs` cuts documents into passages."""
    from playground.data.documents.chunking import DEFAULT_CHUNK_SIZE, DEFAULT_CHUNKER, DEFAULT_OVERLAP

    parser.add_argument(
        "--chunker",
        default=None,
        metavar="NAME",
        help=f"docs: tokens, sentences or markdown (default {DEFAULT_CHUNKER})",
    )
    parser.add_argument(
        "--chunk-size",
        type=bounds.CHUNK_SIZE.flag("--chunk-size"),
        default=None,
        metavar="N",
        help=f"docs: at most N tokens of the embedder's tokenizer a passage (default {DEFAULT_CHUNK_SIZE}; "
        "dense retrievers read at most 254, BM25 any size)",
    )
    parser.add_argument(
        "--overlap",
        type=bounds.OVERLAP.flag("--overlap"),
        default=None,
        metavar="N",
        help=f"docs: tokens shared by neighbouring passages (default {DEFAULT_OVERLAP}; markdown shares them within a "
        "section; a plugin chunker may refuse them)",
    )


def import_command(args) -> int:
    from playground import PlaygroundError
    from playground.data.importers import read_dataset
    from playground.data.language import check_language_code, language_of_dataset
    from playground.store.datasets import save_dataset

    if args.format == "questions":
        return import_questions_command(args)
    if args.format == "traces":
        return import_traces_command(args)
    if args.corpus is not None:
        raise PlaygroundError("--corpus only applies to `data import questions`")
    if not args.name:
        raise PlaygroundError(f"`data import {args.format}` needs --name NAME")
    if args.format == "docs":
        return import_docs_command(args)
    given = [flag for flag, value in (("--chunker", args.chunker), ("--chunk-size", args.chunk_size),
             ("--overlap", args.overlap)) if value is not None]  # fmt: skip
    if given:
        raise PlaygroundError(f"{', '.join(given)} only apply to `data import docs`")
    if args.language:
        check_language_code(args.language)
    started = time.perf_counter()
    dataset = read_dataset(args.format, args.path)
    finding = language_of_dataset(dataset, args.language)
    with workspace_for(args) as workspace:
        summary = save_dataset(workspace, args.name, dataset, replace=args.replace)
    payload = {
        **summary,
        "format": dataset.format,
        "source": dataset.source,
        "workspace": str(workspace.path),
        "seconds": round(time.perf_counter() - started, 3),
        "language_found": finding.counts,
    }
    corpus = f"corpus {summary['corpus']!r} with {summary['passages']:,} passages" if summary["corpus"] else "no corpus"
    emit(
        args,
        payload,
        f"imported {args.format} {dataset.source} as benchmark {args.name!r} with "
        f"{summary['questions']:,} questions and {corpus} ({payload['seconds']:.2f} s)\n"
        f"language: {_language_text(finding, args.language)}",
    )
    return 0


def import_traces_command(args) -> int:
    """`data import traces FILE --name NAME`: traced questions, their passages, and production's answers as a run."""
    from playground import PlaygroundError
    from playground.traces import import_traces

    given = [flag for flag, value in (("--chunker", args.chunker), ("--chunk-size", args.chunk_size),
             ("--overlap", args.overlap), ("--corpus", args.corpus)) if value is not None]  # fmt: skip
    if given:
        raise PlaygroundError(f"{', '.join(given)} do not apply to `data import traces`")
    if not args.name:
        raise PlaygroundError("`data import traces` needs --name NAME")
    started = time.perf_counter()
    with workspace_for(args) as workspace:
        summary = import_traces(workspace, args.name, args.path, replace=args.replace, language=args.language)
    payload = {**summary, "format": "traces", "source": args.path, "seconds": round(time.perf_counter() - started, 3)}
    skipped = (
        f"; {summary['skipped_traces']} traces without an input question left out" if summary["skipped_traces"] else ""
    )
    corpus = f"corpus {summary['corpus']!r} with {summary['passages']:,} passages" if summary["corpus"] else "no corpus"
    emit(
        args,
        payload,
        f"imported traces {args.path} as benchmark {args.name!r} with {summary['questions']:,} questions and {corpus}; "
        f"production's answers ({summary['model']}) as run {summary['run_id']}{skipped} ({payload['seconds']:.2f} s)",
    )
    return 0


def import_questions_command(args) -> int:
    """`data import questions FILE --corpus NAME`: your questions, with gold spans in your documents."""
    from pathlib import Path

    from playground import PlaygroundError
    from playground.questions.imported import import_questions

    given = [flag for flag, value in (("--chunker", args.chunker), ("--chunk-size", args.chunk_size),
             ("--overlap", args.overlap), ("--language", args.language)) if value is not None]  # fmt: skip
    if given:
        raise PlaygroundError(f"{', '.join(given)} do not apply to `data import questions` (the corpus has its own)")
    if not args.corpus:
        raise PlaygroundError("`data import questions` needs --corpus NAME: the corpus the questions' evidence is in")
    name = args.name or Path(args.path).stem
    started = time.perf_counter()
    with workspace_for(args) as workspace:
        summary = import_questions(workspace, args.path, args.corpus, name, replace=args.replace)
    payload = {**summary, "workspace": str(workspace.path), "seconds": round(time.perf_counter() - started, 3)}
    gold = summary["gold"]
    fuzzy = f", {summary['fuzzy_quotes']:,} quote(s) found fuzzily" if summary["fuzzy_quotes"] else ""
    emit(
        args,
        payload,
        f"imported {summary['questions']:,} questions as benchmark {name!r} over corpus {args.corpus!r} "
        f"({gold['spans']:,} with gold spans, {gold['passages']:,} with gold passages only{fuzzy}; "
        f"{payload['seconds']:.2f} s)\n"
        f"score retrieval on them: playground eval-retrieval --dataset {name} --retriever bm25",
    )
    return 0


def _language_text(finding, given) -> str:
    if given:
        return f"{finding.language} (given with --language)"
    if finding.language is None:
        return "not detected (searched as English; give --language CODE)"
    return f"{finding.describe()} (detected; --language CODE overrides it)"


def import_docs_command(args) -> int:
    from playground.cli.output import progress_bar
    from playground.data.documents.chunking import Chunking
    from playground.terminal_text import one_line
    from playground.data.language import LanguageFinding, check_language_code
    from playground.documents.importing import import_documents

    defaults = Chunking()
    chunking = Chunking(
        args.chunker or defaults.chunker,
        defaults.chunk_size if args.chunk_size is None else args.chunk_size,
        defaults.overlap if args.overlap is None else args.overlap,
    )
    language = check_language_code(args.language) if args.language else None
    started = time.perf_counter()
    on_progress, close = progress_bar("documents")
    try:
        with workspace_for(args) as workspace:
            summary = import_documents(
                workspace, args.path, args.name, chunking, on_progress=on_progress, language=language
            )
    finally:
        close()
    seconds = time.perf_counter() - started
    payload = {**summary, "workspace": str(workspace.path), "seconds": round(seconds, 3)}
    lines = [f"skipped {one_line(item['path'])}: {one_line(item['reason'])}" for item in summary["skipped"]]
    settings = f"{summary['chunker']}, {summary['chunk_size']} tokens, overlap {summary['overlap']}"
    if summary["version"] == "unchanged":
        lines.append(
            f"documents {args.name!r} unchanged: the same {summary['documents']:,} files and chunking ({settings})"
        )
    else:
        lines.append(
            f"imported {summary['documents']:,} documents ({summary['bytes'] / 1024**2:.1f} MB) from {args.path} as "
            f"corpus {args.name!r} with {summary['passages']:,} passages ({settings}; {len(summary['skipped']):,} "
            f"files skipped; {seconds:.2f} s)"
        )
        lines += [f"kept the earlier version: {move}" for move in summary["moved"]]
    found = LanguageFinding(summary["language"], summary["language_found"])
    lines.append(f"language: {_language_text(found, args.language)}")
    emit(args, payload, "\n".join(lines))
    return 0


def _chunking_text(documents) -> str:
    if not documents:
        return ""
    return (
        f"{documents['n_documents']:,} documents of set {documents['document_set'][:8]}: {documents['chunker']}, "
        f"{documents['chunk_size']} tokens, overlap {documents['overlap']}"
    )


def list_command(args) -> int:
    from playground.store.datasets import list_datasets

    from playground.store.document_corpora import docs_corpora

    with workspace_for(args, create=False) as workspace:
        listing = list_datasets(workspace)
        chunkings = {c["name"]: c["metadata"] for c in docs_corpora(workspace)}
    for corpus in listing["corpora"]:
        if corpus["name"] in chunkings:
            corpus["documents"] = {
                k: chunkings[corpus["name"]].get(k)
                for k in ("document_set", "n_documents", "chunker", "chunk_size", "overlap", "chunk_digest")
            }
    if not listing["corpora"] and not listing["benchmarks"]:
        text = f"no datasets in {workspace.path} yet (try `playground demo` or `playground data import`)"
    else:
        text = "\n".join(
            [
                "corpora:",
                text_table(
                    ["name", "format", "language", "passages", "chunking"],
                    [
                        [
                            c["name"],
                            c["format"],
                            c["language"] or "-",
                            c["n_passages"],
                            _chunking_text(c.get("documents")),
                        ]
                        for c in listing["corpora"]
                    ],
                ),
                "",
                "benchmarks:",
                text_table(
                    ["name", "corpus", "format", "language", "questions"],
                    [
                        [b["name"], b["corpus"] or "-", b["format"], b["language"] or "-", b["n_questions"]]
                        for b in listing["benchmarks"]
                    ],
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
