"""The held-out confirmation of a search's finalists: the top F candidates on the whole validation split among those
that finished it and beat the start there, each run on the held-out split against the start. Their p-values are
Holm-adjusted as one family (so trying more finalists does not buy a false confirmation), each gets its verdict, and
the report's winner is the confirmed finalist with the largest held-out gain, else the validation winner (its gain
did not hold). With F = 1 this is the single winner's confirmation, as before finalists."""

from __future__ import annotations

from typing import Optional, Sequence

from playground.optimize.confirm import CONFIRMED, confirm, held_out_verdict

WINNER_KEYS = ("index", "version", "ref", "instruction", "note", "validation")
FINALIST_KEYS = ("held_out_gain", "ci95", "p_value", "p_adjusted", "validation_gain", "gap", "verdict")


def choose_finalists(candidates: Sequence[dict], start_validation: float, count: int) -> list[dict]:
    """The top `count` by whole-validation score (ties: the earlier candidate) of those that finished the validation
    split and beat the start there: a candidate dropped early has no whole-validation score to rank by."""
    finished = [c for c in candidates if c.get("validation") is not None and c["validation"] > start_validation]
    return sorted(finished, key=lambda c: (-c["validation"], c["index"]))[:count]


def adjust(confirmations: Sequence[dict]) -> list[dict]:
    """Each confirmation with its Holm-adjusted p-value over the family (`p_adjusted`, `finalists`: the family's
    size) and its verdict on that adjusted p-value."""
    from playground.evaluation.compare import holm

    adjusted = holm([c.get("p_value") for c in confirmations])
    for confirmation, p_adjusted in zip(confirmations, adjusted):
        confirmation.update(
            p_adjusted=p_adjusted,
            finalists=len(confirmations),
            verdict=held_out_verdict(confirmation["metric"], confirmation.get("held_out_gain"), p_adjusted),
        )
    return list(confirmations)


def pick_winner(finalists: Sequence[dict], confirmations: Sequence[dict]) -> Optional[int]:
    """The position of the confirmed finalist with the largest held-out gain (ties: the better on validation), else
    of the validation winner (the first finalist); None when there is no finalist."""
    from playground.evaluation.scoring import higher_is_better

    if not finalists:
        return None
    confirmed = [i for i, c in enumerate(confirmations) if c["verdict"] == CONFIRMED]
    if not confirmed:
        return 0
    sign = 1 if higher_is_better(confirmations[0]["metric"]) else -1
    return max(confirmed, key=lambda i: (sign * confirmations[i]["held_out_gain"], -i))


def _public(candidates: Sequence[dict]) -> list[dict]:
    return [{k: v for k, v in c.items() if not k.startswith("_")} for c in candidates]


def confirm_finalists(
    evaluator, splits: dict, metric: str, settings, start_entry: dict, candidates: list[dict]
) -> dict:
    """Run the start and each finalist on the held-out split (a finalist with its own run overrides, k or the
    retriever, runs with them); the report with the winner's confirmation and, per finalist, its raw and
    Holm-adjusted p-value, gain, interval and verdict."""
    finalists = choose_finalists(candidates, start_entry["validation"], settings.finalists)
    start_test = evaluator.run(start_entry["ref"], splits["test"], "start on held-out")
    confirmations, runs = [], []
    for rank, finalist in enumerate(finalists):
        # the validation winner keeps the evaluation key it had before finalists: older searches resume as they were
        what = "winner on held-out" if rank == 0 else f"finalist {finalist['index']} on held-out"
        finalist_test = evaluator.run(finalist["ref"], splits["test"], what, overrides=finalist.get("overrides"))
        gain = finalist["validation"] - start_entry["validation"]
        confirmation = confirm(start_test["scores"], finalist_test["scores"], metric, gain, settings.seed, False)
        confirmations.append(confirmation)
        runs.append(finalist_test["run_id"])
    adjust(confirmations)
    chosen = pick_winner(finalists, confirmations)
    if chosen is None:
        winner = start_entry
        confirmation = confirm(start_test["scores"], start_test["scores"], metric, 0.0, settings.seed, True)
        confirmation.update(p_adjusted=confirmation["p_value"], finalists=0, winner_run=start_test["run_id"])
    else:
        winner, confirmation = finalists[chosen], dict(confirmations[chosen])
        confirmation["winner_run"] = runs[chosen]
    confirmation["start_run"] = start_test["run_id"]
    return {
        "status": "done",
        "splits": {name: len(ids) for name, ids in splits.items()},
        "metric": metric,
        "start": _public([start_entry])[0],
        "candidates": _public(candidates),
        "winner": {k: winner.get(k) for k in WINNER_KEYS},
        "validation_winner": finalists[0]["index"] if finalists else 0,
        "finalists_asked": settings.finalists,
        "finalists": [
            {
                **{k: f.get(k) for k in ("index", "version", "ref", "validation")},
                **{k: c.get(k) for k in FINALIST_KEYS},
                "held_out_run": run,
            }
            for f, c, run in zip(finalists, confirmations, runs)
        ],
        "confirmation": confirmation,
        "verdict": confirmation["verdict"],
    }
