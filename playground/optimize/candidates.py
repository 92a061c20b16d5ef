"""A search's candidates, each a prompt version (and config overrides) the evaluator can run, built from a base:
the start, or the best candidate so far. Three kinds:
- rewrites: the proposer rewrites the base's instruction from the base's own scored train examples;
- demonstrations: seeded subsets of the demonstrations bootstrapped on train, written after the base's instruction;
- variations: the start with one retrieval setting changed (`--vary k=3,5,10`, `--vary retriever=bm25,dense`).
A candidate's prompt version has the version it was made from as its parent; its note says what it answers.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from playground import PlaygroundError
from playground.optimize.proposals import propose

Notice = Callable[[str], None]
NO_INSTRUCTION = 'the proposer\'s reply held no instruction (a JSON object with a non-empty "instruction")'
SAME_INSTRUCTION = "the same instruction as an earlier candidate"
SAME_CANDIDATE = "the same prompt and settings as an earlier candidate"
UNUSABLE = "the proposed instruction is no usable template: "
REPLY_KEPT = 300  # characters of a skipped proposal's reply kept in the report
VARIED = ("k", "retriever")  # the run settings `--vary` can change
JINJA_MARKS = ("{{", "}}", "{%", "%}", "{#", "#}")


@dataclass
class Base:
    """What a round's candidates are made from: a candidate (or the start), its instruction without demonstrations,
    the demonstrations and overrides it carries, and its scored train examples (what the proposer sees)."""

    entry: dict
    instruction: str
    examples: list[dict]
    demonstrations: list[dict] = field(default_factory=list)
    overrides: dict = field(default_factory=dict)


def round_quotas(budget: int, rounds: int) -> list[int]:
    """The candidate budget spread over `rounds` (the earlier rounds take the remainder); rounds left empty dropped."""
    if rounds < 1:
        raise PlaygroundError(f"--rounds must be at least 1, got {rounds}")
    quotas = [budget // rounds + (1 if r < budget % rounds else 0) for r in range(rounds)]
    return [q for q in quotas if q > 0]


def parse_vary(texts: Sequence[str]) -> dict[str, list]:
    """`--vary k=3,5,10` and `--vary retriever=bm25,dense` as {"k": [3, 5, 10], "retriever": ["bm25", "dense"]}."""
    from playground import bounds

    vary: dict[str, list] = {}
    for text in texts or []:
        name, sep, values = (text or "").partition("=")
        name = name.strip()
        items = [v.strip() for v in values.split(",") if v.strip()]
        if not sep or not items:
            raise PlaygroundError(f"--vary {text!r}: write NAME=V1,V2 (e.g. k=3,5,10 or retriever=bm25,dense)")
        if name not in VARIED:
            raise PlaygroundError(f"--vary {text!r}: cannot vary {name!r} (only {' and '.join(VARIED)})")
        if name == "k":
            try:
                vary[name] = [bounds.K.count(int(v)) for v in items]
            except ValueError:
                raise PlaygroundError(f"--vary {text!r}: k must be whole numbers") from None
        else:
            vary[name] = items
    return vary


def check_vary(vary: dict, program: str) -> None:
    """One line before anything is stored: a program that does not retrieve, an unknown retriever."""
    from playground.programs.registry import get_program
    from playground.retrieval.registry import check_kind

    if not vary:
        return
    if not get_program(program).needs_retriever:
        raise PlaygroundError(
            f"--vary {', '.join(sorted(vary))}: program {program!r} does not retrieve (vary k or the retriever only "
            f"for a program that does, e.g. rag)"
        )
    for name, values in vary.items():
        if name not in VARIED:
            raise PlaygroundError(f"--vary: cannot vary {name!r} (only {' and '.join(VARIED)})")
        if name == "retriever":
            for kind in values:
                try:
                    check_kind(kind)
                except PlaygroundError as error:
                    raise PlaygroundError(f"--vary retriever: {error}") from None


def overrides_text(overrides: Optional[dict]) -> str:
    """Config overrides as a person reads them: "k=10, retriever=dense"."""
    return ", ".join(f"{k}={v}" for k, v in sorted((overrides or {}).items()))


def describe(candidate: dict) -> str:
    """What a candidate changes besides its instruction, in a few words (the candidate table's column)."""
    parts = []
    if candidate.get("overrides"):
        parts.append(overrides_text(candidate["overrides"]))
    if candidate.get("demonstrations"):
        parts.append(f"{len(candidate['demonstrations'])} demos ({', '.join(candidate['demonstrations'])})")
    return "; ".join(parts)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def demonstration_block(demonstrations: Sequence[dict]) -> str:
    """Worked examples as literal prompt text (Jinja marks inside kept literal)."""
    lines = ["Examples:"]
    for demo in demonstrations:
        lines += [f"Question: {_one_line(demo['question'])}", f"Answer: {_one_line(demo['answer'])}", ""]
    block = "\n".join(lines).rstrip()
    return "{% raw %}" + block + "{% endraw %}" if any(mark in block for mark in JINJA_MARKS) else block


def with_demonstrations(instruction: str, demonstrations: Sequence[dict]) -> str:
    """The system part of a candidate: its instruction, then its demonstrations (if any)."""
    if not demonstrations:
        return instruction
    return f"{instruction}\n\n{demonstration_block(demonstrations)}".strip()


def demonstration_subsets(pool: Sequence[dict], n: int, count: int, seed: int, round_number: int) -> list[list[dict]]:
    """`count` seeded subsets of `n` demonstrations (the whole pool when it is smaller), in pool order."""
    ordered = sorted(pool, key=lambda d: d["question_id"])
    subsets = []
    for j in range(count):
        rng = random.Random(f"playground-optimize-demos:{seed}:{round_number}:{j}")
        chosen = set(rng.sample(range(len(ordered)), min(n, len(ordered))))
        subsets.append([d for i, d in enumerate(ordered) if i in chosen])
    return subsets


def bootstrap_pool(workspace, run_id: str, metric: str, name: str) -> tuple[list[dict], Optional[str]]:
    """The train run's right answers as demonstrations, saved as set `name` (programs/demonstrations.py, as
    `playground demos bootstrap` keeps them); ([], None) when it answered none right."""
    from playground.evaluation.scoring import is_binary
    from playground.programs.demonstrations import demonstrations_from_run, save_demonstrations_from_run

    threshold = 1.0 if is_binary(metric) else 0.5
    examples, _ = demonstrations_from_run(workspace, run_id, metric, threshold)
    if not examples:
        return [], None
    stored = save_demonstrations_from_run(workspace, run_id, name, metric, threshold)
    return stored["examples"], f"{stored['name']}@{stored['version']}"


class CandidateMaker:
    """Adds candidates to one list, each saved as a prompt version; skips repeats (same prompt, same overrides).

    `context` holds: workspace, start (Template), start_version, session_id, proposer, proposal_template, summary,
    evaluator, seed, demos (N per subset), pool (bootstrapped demonstrations) and pool_ref."""

    def __init__(self, context: dict, notice: Notice):
        self.context = context
        self.notice = notice
        self.candidates: list[dict] = []
        self.skipped: list[dict] = []
        self.seen = {(context["start_version"], "{}")}
        self.proposals = 0  # proposals asked so far, over all rounds (each one's number seeds its examples)

    def _add(
        self,
        base: Base,
        kind: str,
        note: str,
        instruction: str,
        demonstrations: Sequence[dict],
        overrides: dict,
        **extra,
    ) -> Optional[dict]:
        from playground.store.prompts import save_prompt_version

        start = self.context["start"]
        system = with_demonstrations(instruction, demonstrations)
        if system == base.entry["instruction"]:  # the base's own prompt (another k or retriever): its own version
            version, ref = base.entry["version"], base.entry["ref"]
        else:
            template = start.with_changes(name=f"{start.name}.opt", system=system, path=None)
            version = save_prompt_version(
                self.context["workspace"],
                template,
                parent=base.entry["version"],
                message=note,
                session_id=self.context["session_id"],
            )
            ref = f"{template.name}@{version}"
        key = (version, json.dumps(overrides, sort_keys=True))
        if key in self.seen:
            return None
        self.seen.add(key)
        candidate = {
            "index": len(self.candidates) + 1,
            "version": version,
            "ref": ref,
            "parent": base.entry["version"],
            "instruction": system,
            "note": note,
            "kind": kind,
            **extra,
            **({"overrides": dict(overrides)} if overrides else {}),
            **(
                {
                    "demonstrations": [d["question_id"] for d in demonstrations],
                    "demonstration_set": self.context.get("pool_ref"),
                }
                if demonstrations
                else {}
            ),
            "rungs": [],
            "_base": instruction,
            "_demos": list(demonstrations),
        }
        self.candidates.append(candidate)
        return candidate

    def _skip(self, index: int, why: str, reply: str) -> None:
        self.skipped.append({"proposal": index + 1, "why": why, "reply": reply[:REPLY_KEPT]})
        self.notice(f"proposal {index + 1}: {why}; skipped")

    def template_problem(self, system: str) -> Optional[str]:
        """Why the start with this system part could not be run, in one line (its syntax, a variable no program gives
        it, a sandbox refusal when rendered for a train question as the start renders); None when it can."""
        from playground.prompts.compiled import check_template
        from playground.prompts.render import question_variables, render_parts
        from playground.prompts.variables import required_variables
        from playground.terminal_text import one_line

        start = self.context["start"]
        candidate = start.with_changes(name=f"{start.name}.opt", system=system, path=None)
        train = self.context.get("splits", {}).get("train") or []
        questions = self.context.get("questions") or {}
        variables = question_variables(questions[train[0]]) if train and train[0] in questions else {}
        try:
            check_template(candidate)
            given = set(required_variables(start)) | set(variables)
            unknown = [name for name in required_variables(candidate) if name not in given]
            if unknown:
                return f"it reads {', '.join(repr(name) for name in unknown)}, which no program gives the prompt"
            try:
                render_parts(start, variables)
            except PlaygroundError:
                return None  # the start needs more than a question's variables: no trial render
            render_parts(candidate, variables)
        except PlaygroundError as error:
            return one_line(str(error))
        return None

    def rewrites(self, base: Base, count: int, round_number: int, budget) -> Optional[str]:
        """Up to `count` proposals rewriting the base's instruction; returns why proposing stopped early, if it did."""
        context = self.context
        for _ in range(count):
            spent = budget.exhausted()
            if spent:
                self.notice(f"proposals stopped: {spent}")
                return spent
            context["evaluator"].check_stop()
            index = self.proposals
            self.proposals += 1
            proposal, cost, reply = propose(
                context["workspace"],
                context["proposer"],
                context["proposal_template"],
                base.instruction,
                base.examples,
                context["summary"],
                index,
                context["seed"],
            )
            context["evaluator"].charge_once(f"proposal {index + 1}", cost)
            if proposal is None:
                self._skip(index, NO_INSTRUCTION, reply)
                continue
            problem = self.template_problem(with_demonstrations(proposal.instruction, base.demonstrations))
            if problem:
                self._skip(index, UNUSABLE + problem, reply)
                continue
            failure = proposal.failure["question_id"] if proposal.failure else None
            extra = {"failure": failure, "round": round_number}
            if (
                self._add(
                    base, "rewrite", proposal.note(), proposal.instruction, base.demonstrations, base.overrides, **extra
                )
                is None
            ):
                self._skip(index, SAME_INSTRUCTION, reply)
        return None

    def demonstrations(self, base: Base, count: int, round_number: int) -> None:
        """`count` seeded subsets of the bootstrapped demonstrations written after the base's instruction."""
        pool, n = self.context.get("pool") or [], self.context.get("demos") or 0
        subsets = demonstration_subsets(pool, n, count, self.context["seed"], round_number) if pool and n else []
        for subset in subsets:
            note = (
                f"adds {len(subset)} demonstration(s) bootstrapped on train "
                f"({', '.join(d['question_id'] for d in subset)}; set {self.context.get('pool_ref')}) "
                f"to the instruction of {made_from(base)}"
            )
            self._add(base, "demonstrations", note, base.instruction, subset, base.overrides, round=round_number)

    def variations(self, base: Base, vary: dict, base_config, count: int) -> None:
        """The base with one retrieval setting changed, one candidate per value other than the base's (at most
        `count`)."""
        from playground.runs.config import DEFAULT_RETRIEVER

        current = {"k": base_config.k, "retriever": base_config.retriever or DEFAULT_RETRIEVER}
        for name in sorted(vary):
            for value in vary[name]:
                if count <= 0 or value == current[name]:
                    continue
                note = f"{name}={value} instead of {current[name]}, with the instruction of {made_from(base)}"
                overrides = {**base.overrides, name: value}
                if self._add(base, "variation", note, base.instruction, base.demonstrations, overrides, round=1):
                    count -= 1


def made_from(base: Base) -> str:
    return "the start" if base.entry["index"] == 0 else f"candidate {base.entry['index']}"
