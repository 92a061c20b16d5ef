"""Generate questions from a corpus's chunks: sample chunks (and related pairs for two-hop questions), ask the
model through the generator template, read and filter each reply, and store what is kept as a new benchmark over
the corpus, with every rejection and its reason in the benchmark's metadata.

The filters, in order (a question gets the first reason that applies): `unparsable` (no question and answer in
the reply), `wrong_language` (the question is not in the corpus's language, as the language detector reads it;
only when the corpus's language is known), `unsupported` (the answer is not in the source chunk(s), even fuzzily), `gives_answer_away` (the
question holds its answer), `too_generic` (BM25 does not rank a source chunk in its top 20 for the question),
`near_duplicate` (cosine similarity at least 0.9 with a question kept before it, by the embedder for the corpus's
language: the bundled English one, else the multilingual one). `model_error` is a call that failed or ran past its deadline.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Optional

from playground import PlaygroundError
from playground.models.registry import DEFAULT_MODEL_SPEC
from playground.progress import ProgressCallback, report
from playground.questions.checks import find_answer, gives_answer_away, other_language, read_output
from playground.questions.chunks import Chunk, corpus_chunks, related_pair, spread_sample
from playground.questions.outcome import Candidate, QuestionKind, build_report, keep_distinct, store_questions

DEFAULT_TEMPLATE = "question-generation"
DEFAULT_DEADLINE_S = 300.0  # one question's model call, retries included (as a judgment's)
GENERIC_TOP_K = 20
DUPLICATE_THRESHOLD = 0.9
# The reply read_output wants; the answer is short (checks.MAX_ANSWER_WORDS), so it is bounded tighter.
REPLY_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": 120}, "question": {"type": "string", "maxLength": 300}},
    "required": ["answer", "question"],
}
REASONS = (
    "unparsable",
    "wrong_language",
    "unsupported",
    "gives_answer_away",
    "too_generic",
    "near_duplicate",
    "model_error",
)


@dataclass
class GenerationSettings:
    """What `questions generate` was asked for; everything that decides its output is recorded with the dataset."""

    corpus: str
    name: str
    n: int
    model: str = DEFAULT_MODEL_SPEC
    seed: int = 0
    template: str = DEFAULT_TEMPLATE
    two_hop_share: float = 0.25
    temperature: float = 0.0
    max_tokens: int = 128
    timeout_s: Optional[float] = None
    duplicate_threshold: float = DUPLICATE_THRESHOLD
    use_cache: bool = True
    replace: bool = False
    options: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        from playground import bounds

        self.n = bounds.QUESTIONS.count(self.n, "--n")
        self.seed = int(bounds.SEED.check(self.seed, "--seed"))
        self.two_hop_share = float(bounds.PROBABILITY.check(self.two_hop_share, "--two-hop-share"))
        self.duplicate_threshold = float(bounds.PROBABILITY.check(self.duplicate_threshold, "the duplicate threshold"))
        if self.timeout_s is not None:
            self.timeout_s = float(bounds.TIMEOUT.check(self.timeout_s, "--timeout"))


def plan_items(chunks: list[Chunk], settings: GenerationSettings, search) -> list[tuple[str, list[Chunk], str]]:
    """(kind, source chunks, link) per question to ask: a seeded spread of chunks, `two_hop_share` of them paired
    with a related chunk (a chunk without a partner is asked about alone)."""
    rng = random.Random(settings.seed)
    picked = spread_sample(chunks, settings.n, rng)
    two_hop = set(rng.sample(range(len(picked)), round(len(picked) * settings.two_hop_share)))
    items = []
    for index, chunk in enumerate(picked):
        pair = related_pair(chunks, chunk, prefer_link=rng.random() < 0.5, search=search) if index in two_hop else None
        items.append(
            (QuestionKind.TWO_HOP, [pair[0], pair[1]], pair[2]) if pair else (QuestionKind.SINGLE, [chunk], "")
        )
    return items


def _judge(candidate: Candidate, search, language: Optional[str] = None) -> None:
    """Read the reply and run the filters up to the duplicate check, setting the candidate's reason or spans."""
    read = read_output(candidate.output)
    if read is None:
        candidate.reject("unparsable", "no JSON object with a non-empty question and answer in the reply")
        return
    candidate.question, candidate.answer = read
    written_in = other_language(candidate.question, language)
    if written_in is not None:
        candidate.reject("wrong_language", f"the question is in {written_in}, the corpus in {language}")
        return
    for chunk in candidate.sources:
        found = find_answer(candidate.answer, chunk.passage.text)
        if found:
            candidate.matches.append((chunk, found))
    if not candidate.matches:
        candidate.reject("unsupported", "the answer is not in the source chunk(s), even fuzzily")
    elif gives_answer_away(candidate.question, candidate.answer):
        candidate.reject("gives_answer_away", "the question holds its answer")
    else:
        ranked = [hit.passage_id for hit in search(candidate.question, GENERIC_TOP_K)]
        if not any(chunk.id in ranked for chunk in candidate.sources):
            candidate.reject("too_generic", f"no source chunk in BM25's top {GENERIC_TOP_K} for the question")


def generate_questions(
    workspace, settings: GenerationSettings, model=None, on_progress: Optional[ProgressCallback] = None
) -> dict:
    """Ask, filter and store; returns the report (asked, kept, rejected by reason, each rejection). A run that
    keeps nothing still stores benchmark NAME, with no question, when a reply was rejected: its rejections stay
    reviewable (review.accept_rejection). Only a run whose every call failed stores nothing ("dataset" None); "why"
    says what happened and "hint" how to do better."""
    from playground.models.base import GenerationParams
    from playground.prompts.library import load_template
    from playground.retrieval.index import open_retriever
    from playground.store.content_ids import prompt_version_id
    from playground.store.datasets import check_benchmark_name, get_corpus, load_passages
    from playground.store.prompts import save_prompt_version

    corpus = get_corpus(workspace, settings.corpus)
    language = corpus.get("language") or None
    check_benchmark_name(workspace, settings.name, settings.replace)
    template = load_template(settings.template, workspace)
    chunks = corpus_chunks(load_passages(workspace, settings.corpus))
    retriever = open_retriever(workspace, settings.corpus, "bm25")
    items = plan_items(chunks, settings, retriever.search)
    if not items:
        raise PlaygroundError(
            f"corpus {settings.corpus!r} has no chunk of at least a few words to ask about; no dataset written"
        )
    if model is None:
        from playground.models.registry import load_model

        model = load_model(settings.model)
    version = prompt_version_id(template.content)  # stored only with the questions: a failed run leaves no version
    params = GenerationParams(temperature=settings.temperature, max_tokens=settings.max_tokens, seed=settings.seed)
    if template.answer_format == "json":  # JSON mode with the reply's shape; a template answering otherwise opts out
        params = params.as_json(REPLY_SCHEMA)
    candidates = _ask_all(workspace, model, template, version, params, settings, items, on_progress, language)
    for candidate in candidates:
        if candidate.reason is None:
            _judge(candidate, retriever.search, language)
    embedder = keep_distinct(candidates, settings.duplicate_threshold, language)
    generator = {"prompt_version": version, "template": template.name, "model": model.spec}
    result = build_report(settings, corpus, candidates, generator, embedder, REASONS)
    if result["dataset"]:  # kept questions, or replies rejected that a person may still review and accept
        save_prompt_version(workspace, template)
        store_questions(workspace, settings, corpus, candidates, generator, result)
    return result


def _ask_all(
    workspace, model, template, version, params, settings, items, on_progress, language=None
) -> list[Candidate]:
    """One model call per item, through the response cache, each under its own deadline; templates get the
    corpus's `language`."""
    from playground.models.errors import ModelError
    from playground.models.retry import question_deadline
    from playground.programs.base import StepContext
    from playground.programs.tracing import describe_error
    from playground.prompts.render import passage_variables

    context = StepContext(
        workspace=workspace,
        model=model,
        params=params,
        templates={"main": template},
        prompt_versions={"main": version},
        use_cache=settings.use_cache,
        language=language,
    )
    candidates = []
    report(on_progress, 0, len(items), "")
    for index, (kind, sources, link) in enumerate(items):
        candidate = Candidate(kind=kind, sources=sources, link=link)
        step = context.for_question()
        try:
            with question_deadline(settings.timeout_s or DEFAULT_DEADLINE_S):
                messages = step.render({"passages": passage_variables([chunk.passage for chunk in sources])})
                completion = step.generate(messages)
            candidate.output, candidate.model_id = completion.text or "", completion.model_id
        except ModelError as error:
            candidate.reject("model_error", describe_error(error))
        candidates.append(candidate)
        report(on_progress, index + 1, len(items), sources[0].id)
    return candidates
