"""The search's rounds: each makes its share of the candidate budget from a base, then runs successive halving on
them; the next round's base is the best candidate so far (on the whole validation split), run on *train* for the
scored examples its rewrites are proposed from. One round (the default) proposes everything from the start.

Everything a round does follows from the seed and the stored evaluations, so a resumed search replays the same
rounds, proposals and choices.
"""

from __future__ import annotations

from typing import Callable, Optional

from playground.optimize.candidates import Base, CandidateMaker, round_quotas
from playground.optimize.proposals import scored_examples
from playground.optimize.search import Budget, successive_halving

Notice = Callable[[str], None]


def best_so_far(start_entry: dict, candidates: list[dict]) -> dict:
    """The candidate with the best mean over the whole validation split (ties: the earlier), if it beats the start."""
    finished = [c for c in candidates if c.get("validation") is not None]
    best = min(finished, key=lambda c: (-c["validation"], c["index"]), default=None)
    return best if best is not None and best["validation"] > start_entry["validation"] else start_entry


def _base_of(context: dict, entry: dict, start_base: Base) -> Base:
    """A candidate as the next round's base: its own train answers scored (train only: never held-out)."""
    from playground.store.runs import get_results

    if entry is start_base.entry:
        return start_base
    evaluator = context["evaluator"]
    train = evaluator.run(
        entry["ref"],
        context["splits"]["train"],
        f"candidate {entry['index']} on train",
        overrides=entry.get("overrides"),
    )
    examples = scored_examples(
        context["questions"], get_results(context["workspace"], train["run_id"]), str(evaluator.metric)
    )
    entry["train_run"] = train["run_id"]
    return Base(entry, entry["_base"], examples, list(entry.get("_demos") or []), dict(entry.get("overrides") or {}))


def _make_round(
    maker: CandidateMaker, base: Base, quota: int, round_number: int, settings, context: dict, budget: Budget
) -> Optional[str]:
    """The round's candidates: variations (round 1), then demonstration subsets (half the rest, rounded up, when
    `--demos` found any), then rewrites; returns why proposing stopped early, if it did."""
    before = len(maker.candidates)
    if round_number == 1 and settings.vary:
        maker.variations(base, settings.vary, context["base_config"], quota)
    left = quota - (len(maker.candidates) - before)
    demos = (left + 1) // 2 if settings.demos and context.get("pool") else 0
    maker.demonstrations(base, demos, round_number)
    return maker.rewrites(base, left - demos, round_number, budget)


def search_rounds(
    context: dict, settings, budget: Budget, start_base: Base, save: Callable[[list], None], notice: Notice
) -> tuple[list[dict], list[dict], Optional[str]]:
    """All rounds: (the candidates, the proposals skipped, why the search stopped early or None)."""
    maker = CandidateMaker(context, notice)
    quotas = round_quotas(settings.budget, settings.rounds)
    base, stopped = start_base, None
    for round_number, quota in enumerate(quotas, start=1):
        if round_number > 1:
            base = _base_of(context, best_so_far(context["start_entry"], maker.candidates), start_base)
            notice(f"round {round_number}: proposing from {'the start' if base is start_base else base.entry['ref']}")
        first = len(maker.candidates)
        stopped = _make_round(maker, base, quota, round_number, settings, context, budget)
        save(maker.candidates)
        new = maker.candidates[first:]
        if not new:
            if stopped:
                break
            continue
        notice(f"{len(new)} candidate(s) proposed; searching by successive halving on validation")
        stopped = stopped or successive_halving(
            new,
            context["splits"]["validation"],
            context["evaluator"],
            settings.min_batch,
            lambda: save(maker.candidates),
            notice,
            keep=settings.finalists,
        )
        if stopped:
            break
    return maker.candidates, maker.skipped, stopped
