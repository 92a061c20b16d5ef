"""The kinds of span stored in table `spans` (and a session file's spans): what each step of a program over one
question, or of a judge over one answer, was. Programs and judges open spans of these kinds (programs/tracing.py);
the trace page, the CLI's `trace`, exports and demonstrations read each back by its kind."""

from __future__ import annotations

from typing import Final


class SpanKind:
    """The built-in kinds. A plugin may open spans of other kinds: those are shown and exported as plain values."""

    PROGRAM: Final = "program"  # the root: one program over one question
    STEP: Final = "step"  # a group of steps (a hop, a round, a sample)
    RETRIEVE: Final = "retrieve"
    RENDER: Final = "render"  # a template rendered into messages
    GENERATE: Final = "generate"  # one model call
    PARSE: Final = "parse"  # a model's reply read as an answer, a query, an action
    TOOL: Final = "tool"
    JUDGE: Final = "judge"  # one judge call
    CLAIM: Final = "claim"  # faithfulness: one claim of the answer
    SENTENCE: Final = "sentence"  # citations: one sentence and the passages it cites
    PASSAGE: Final = "passage"  # context precision: one passage shown
    REWRITE: Final = "rewrite"  # the retrieval stages under a retrieve span (retrieval/stages.py)
    SEARCH: Final = "search"
    RERANK: Final = "rerank"
    EMBED: Final = "embed"  # none built in opens one; OpenInference has a kind for it
