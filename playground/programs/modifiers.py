"""Modifiers usable with any program, set by run options: few-shot examples (fixed or kNN), their order, and
self-consistency.

Options (all optional; a run without them runs the program unchanged):
- `examples`: a list of {"question", "answer"} to use as the demonstration pool, or
  `demonstrations`: a stored demonstration set "NAME", "NAME@N" or "NAME@ID" (playground.store.demonstrations);
- `shots`: how many examples to insert (default: all inline examples, 3 from a set); 0 inserts none;
- `selection`: "knn" (the most similar pool questions by the embedder; default for a set) or "first";
- `embedder`: the embedder name for kNN (default the bundled all-MiniLM-L6-v2);
- `order`: use the order-th permutation of the chosen examples (lexicographic, 0 = as chosen);
  `order_seed`: shuffle them with this seed instead;
- `self_consistency`: n samples of the whole program at `sc_temperature` (default 0.7), majority vote over
  normalised answers.
Examples reach every template through the `examples` variable; the run needs a template that reads it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from playground import PlaygroundError
from playground.data.records import Question
from playground.models.base import GenerationParams, Message
from playground.programs.base import Program, ProgramOutput, StepContext
from playground.programs.options import ModifierOptions, NoOptions, read_options
from playground.store.span_kinds import SpanKind

EXAMPLE_OPTIONS = ("examples", "demonstrations", "shots", "selection", "embedder", "order", "order_seed")
DEFAULT_SET_SHOTS = 3

_pool_vectors: dict[tuple[str, str], Any] = {}


def has_modifiers(options: Optional[dict]) -> bool:
    chosen = read_options(ModifierOptions, options)
    return (
        any(
            value not in (None, "", [])
            for value in (chosen.examples, chosen.demonstrations, chosen.order, chosen.order_seed)
        )
        or chosen.self_consistency > 1
    )


@dataclass
class ExamplesContext(StepContext):
    """A step context that fills the `examples` variable of every prompt it renders."""

    examples: list[dict] = field(default_factory=list)

    def _with_examples(self, variables: dict) -> dict:
        return variables if variables.get("examples") else {**variables, "examples": self.examples}

    def render(self, variables: dict, role: str = "main", name: str = "render") -> list[Message]:
        return super().render(self._with_examples(variables), role=role, name=name)

    def render_with_passages(
        self,
        variables: dict,
        passages: list[dict],
        role: str = "main",
        params: Optional[GenerationParams] = None,
        name: str = "render",
    ):
        return super().render_with_passages(
            self._with_examples(variables), passages, role=role, params=params, name=name
        )


def with_examples(context: StepContext, examples: list[dict]) -> ExamplesContext:
    values = {f.name: getattr(context, f.name) for f in dataclasses.fields(context)}
    values["examples"] = [{"question": e["question"], "answer": e["answer"]} for e in examples]
    return ExamplesContext(**values)


def permute(examples: list, order: int) -> list:
    """The order-th permutation of `examples` in lexicographic order of positions (wraps around n!)."""
    count = math.factorial(len(examples))
    if not examples or order % count == 0:
        return list(examples)
    return [
        examples[i] for i in next(itertools.islice(itertools.permutations(range(len(examples))), order % count, None))
    ]


def shuffle(examples: list, seed: int) -> list:
    """A seeded shuffle: the same seed always gives the same order."""
    shuffled = list(examples)
    random.Random(seed).shuffle(shuffled)
    return shuffled


def nearest_examples(question_text: str, pool: list[dict], n: int, embedder_name: Optional[str] = None) -> list[dict]:
    """The n pool examples whose questions are most similar to `question_text` (cosine; ties keep pool order).

    Each returned example gets a "similarity". Pool vectors are computed once per process per pool.
    """
    import numpy as np

    from playground.retrieval.embedders import get_embedder

    if n <= 0 or not pool:
        return []
    embedder = get_embedder(embedder_name)
    texts = [example["question"] for example in pool]
    key = (embedder.name, hashlib.sha256("\n\x00".join(texts).encode("utf-8")).hexdigest())
    if key not in _pool_vectors:
        _pool_vectors[key] = np.asarray(embedder.encode(texts), dtype=np.float32)
    similarities = _pool_vectors[key] @ np.asarray(embedder.encode([question_text]), dtype=np.float32)[0]
    best = np.argsort(-similarities, kind="stable")[:n]
    return [{**pool[i], "similarity": round(float(similarities[i]), 6)} for i in best]


def _pool(context: StepContext, options: ModifierOptions) -> tuple[list[dict], str]:
    """The demonstration pool and where it came from (inline examples, or a stored set)."""
    if options.examples and options.demonstrations:
        raise PlaygroundError("give either option 'examples' or option 'demonstrations', not both")
    if options.demonstrations:
        from playground.store.demonstrations import get_demonstration_set

        found = get_demonstration_set(context.workspace, options.demonstrations)
        return found["examples"], f"{found['name']}@{found['version']} ({found['id']})"
    examples = options.examples or []
    if not isinstance(examples, list) or not all(
        isinstance(e, dict) and "question" in e and "answer" in e for e in examples
    ):
        raise PlaygroundError('option \'examples\' must be a list of {"question": ..., "answer": ...}')
    return examples, "inline"


def _check_templates_read_examples(context: StepContext) -> None:
    from playground.prompts.variables import required_variables

    if not any("examples" in required_variables(template) for template in context.templates.values()):
        names = ", ".join(sorted(getattr(t, "name", "?") for t in context.templates.values()))
        raise PlaygroundError(
            f"few-shot examples were asked for, but no template of this run ({names}) reads "
            f"`examples`: pick one that does (e.g. --template few-shot)"
        )


def choose_examples(context: StepContext, question: Question) -> Optional[list[dict]]:
    """The examples for this question (a traced step), or None when the options ask for none."""
    options = read_options(ModifierOptions, context.options)
    if not (options.examples or options.demonstrations):
        if options.order is not None or options.order_seed is not None:
            raise PlaygroundError("options 'order'/'order_seed' reorder examples: give 'examples' or 'demonstrations'")
        return None
    pool, source = _pool(context, options)
    from_set = bool(options.demonstrations)
    shots = options.shots if options.shots is not None else DEFAULT_SET_SHOTS if from_set else len(pool)
    selection = options.selection or ("knn" if from_set else "first")
    inputs = {
        "source": source,
        "pool_size": len(pool),
        "shots": shots,
        "selection": selection,
        "order": options.order,
        "order_seed": options.order_seed,
    }
    with context.span(SpanKind.STEP, "select examples", inputs) as span:
        candidates = [
            e
            for e in pool
            if e.get("question_id") != question.id and e["question"].strip().lower() != question.text.strip().lower()
        ]
        if shots > 0:
            _check_templates_read_examples(context)
        chosen = (
            nearest_examples(question.text, candidates, shots, options.embedder)
            if selection == "knn"
            else [dict(e) for e in candidates[:shots]]
        )
        if options.order is not None:
            chosen = permute(chosen, options.order)
        elif options.order_seed is not None:
            chosen = shuffle(chosen, options.order_seed)
        span.outputs = {
            "examples": [
                {key: e[key] for key in ("question_id", "question", "answer", "similarity") if key in e} for e in chosen
            ],
            "excluded_same_question": len(pool) - len(candidates),
        }
    return chosen


def vote(answers: list[str]) -> dict:
    """Majority over SQuAD-normalised answers; empty answers vote only when all are empty; ties go to the earliest."""
    from playground.data.answers import normalize_answer

    normalised = [normalize_answer(answer or "") for answer in answers]
    voters = [i for i, value in enumerate(normalised) if value] or list(range(len(answers)))
    counts = Counter(normalised[i] for i in voters)
    top = max(counts.values())
    winner_index = next(i for i in voters if counts[normalised[i]] == top)
    return {
        "votes": dict(counts),
        "winner": normalised[winner_index],
        "sample": winner_index,
        "answer": answers[winner_index],
        "agreement": round(top / len(answers), 6),
    }


def self_consistency(
    base: Program, context: StepContext, question: Question, n: int, temperature: float
) -> ProgramOutput:
    """Run the program n times (seeds seed..seed+n-1, each sample under its own span), then vote."""
    outputs: list[ProgramOutput] = []
    for index in range(n):
        seed = None if context.params.seed is None else context.params.seed + index
        params = dataclasses.replace(context.params, temperature=temperature, seed=seed)
        sample = dataclasses.replace(context, params=params, sample_index=context.sample_index * n + index)
        with context.span(SpanKind.STEP, f"sample {index + 1}", {"temperature": temperature, "seed": seed}) as span:
            output = base.run(sample, question)
            span.outputs = {"answer": output.answer, "used_passage_ids": output.used_passage_ids}
        outputs.append(output)
    with context.span(SpanKind.STEP, "vote", {"answers": [o.answer for o in outputs]}) as span:
        result = vote([o.answer for o in outputs])
        span.outputs = result
    chosen = outputs[result["sample"]]
    return ProgramOutput(
        answer=chosen.answer,
        output=chosen.output,
        used_passage_ids=chosen.used_passage_ids,
        extra={**chosen.extra, "vote": result, "samples": n},
    )


@dataclass(frozen=True)
class ModifiedProgram:
    """`base` with the modifiers its run options ask for; with none, exactly `base`."""

    base: Program

    @property
    def name(self) -> str:
        return self.base.name

    @property
    def description(self) -> str:
        return self.base.description

    @property
    def needs_retriever(self) -> bool:
        return self.base.needs_retriever

    @property
    def default_templates(self) -> dict[str, str]:
        return self.base.default_templates

    @property
    def options(self) -> type:
        return getattr(self.base, "options", NoOptions)

    def run(self, context: StepContext, question: Question) -> ProgramOutput:
        if not has_modifiers(context.options):
            return self.base.run(context, question)
        examples = choose_examples(context, question)
        if examples is not None:
            context = with_examples(context, examples)
        n = read_options(ModifierOptions, context.options).self_consistency
        if n > 1:
            default = context.params.temperature if context.params.temperature > 0 else 0.7
            temperature = read_options(ModifierOptions, context.options).sc_temperature or default
            return self_consistency(self.base, context, question, n, temperature)
        return self.base.run(context, question)


def with_modifiers(program: Program) -> Program:
    """`program`, able to take the modifier options (idempotent)."""
    return program if isinstance(program, ModifiedProgram) else ModifiedProgram(program)


def apply_modifiers(program: Program, options: Optional[dict]) -> Program:
    """What a run should execute: `program` itself when `options` ask for no modifier, else it wrapped."""
    return with_modifiers(program) if has_modifiers(options) else program
