"""BLEU and chrF through sacrebleu, ROUGE-L as rouge-score computes it: the reference implementations, so the
numbers compare with papers. Each score's signature (sacrebleu's, or rouge-score's settings) says how it was computed.

Per question: sacrebleu's sentence BLEU (exponential smoothing, effective order: its defaults) and sentence chrF,
over the raw texts (sacrebleu tokenises itself), divided by 100 so every stored score is in [0, 1]; ROUGE-L is
rouge-score's F-measure (its own tokeniser, no stemming), the best over the references, computed by
playground.evaluation.rouge (equal to rouge-score, without its 2 s of nltk and scipy imports). Over a whole set of
answers, corpus BLEU and chrF pool the n-gram statistics (the figure papers report): `corpus_text_scores`.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from playground.evaluation.rouge import rouge_l_fmeasure

ROUGE_SIGNATURE = "rouge-score:{version}|rougeL|fmeasure|stemmer:no|max-over-refs"


def _bleu(tokenize: str = "13a"):
    """A fresh sacrebleu BLEU per call: its objects keep per-call state, and the app scores from several threads."""
    from sacrebleu.metrics import BLEU

    return BLEU(effective_order=True, tokenize=tokenize)


def _chrf():
    from sacrebleu.metrics import CHRF

    return CHRF()


def _unit(score: float) -> float:
    return min(1.0, max(0.0, score / 100.0))


def sentence_bleu(prediction: str, references: Sequence[str], tokenize: str = "13a") -> float:
    """sacrebleu sentence BLEU / 100 (its defaults: 13a tokens, exp smoothing, effective order; `tokenize` is
    sacrebleu's tokeniser for the answers' language: zh, char, intl)."""
    if not references:
        return 0.0
    return _unit(_bleu(tokenize).sentence_score(prediction or "", list(references)).score)


def sentence_chrf(prediction: str, references: Sequence[str]) -> float:
    """sacrebleu sentence chrF / 100 (character 6-grams, beta 2)."""
    if not references:
        return 0.0
    return _unit(_chrf().sentence_score(prediction or "", list(references)).score)


def rouge_l(prediction: str, references: Sequence[str]) -> float:
    """rouge-score's ROUGE-L F-measure, the maximum over the references."""
    return max((rouge_l_fmeasure(reference, prediction or "") for reference in references), default=0.0)


def text_scores(prediction: str, references: Sequence[str]) -> dict[str, float]:
    """{"bleu", "chrf", "rougeL"} of one prediction against its references."""
    return {
        "bleu": sentence_bleu(prediction, references),
        "chrf": sentence_chrf(prediction, references),
        "rougeL": rouge_l(prediction, references),
    }


def _version(package: str) -> str:
    from playground.packages import installed_version

    return installed_version(package) or "missing"


def _with_nrefs(signature: str, nrefs: str) -> str:
    return "|".join(f"nrefs:{nrefs}" if part.startswith("nrefs:") else part for part in signature.split("|"))


def metric_signatures(nrefs: str = "var", tokenize: str = "13a") -> dict[str, str]:
    """How bleu, chrf and rougeL were computed: sacrebleu signatures and rouge-score's settings (stored with runs)."""
    bleu, chrf = _bleu(tokenize), _chrf()
    bleu.sentence_score("a", ["a"])  # sacrebleu's signature names the reference count, known after one score
    chrf.sentence_score("a", ["a"])
    return {
        "bleu": "sentence/100 " + _with_nrefs(str(bleu.get_signature()), nrefs),
        "chrf": "sentence/100 " + _with_nrefs(str(chrf.get_signature()), nrefs),
        "rougeL": ROUGE_SIGNATURE.format(version=_version("rouge-score")),
    }


def corpus_text_scores(predictions: Iterable[str], references: Iterable[Sequence[str]], tokenize: str = "13a") -> dict:
    """Corpus BLEU and chrF (/100) over aligned predictions and reference lists, with sacrebleu's signatures
    (`tokenize`: sacrebleu's BLEU tokeniser for the answers' language)."""
    from sacrebleu.metrics import BLEU, CHRF

    predictions = [prediction or "" for prediction in predictions]
    reference_lists = [list(refs) for refs in references]
    depth = max((len(refs) for refs in reference_lists), default=0)
    if not predictions or depth == 0:
        return {"bleu": None, "chrf": None, "signatures": {}}
    streams = [[refs[i] if i < len(refs) else None for refs in reference_lists] for i in range(depth)]
    bleu, chrf = BLEU(tokenize=tokenize), CHRF()
    bleu_score, chrf_score = bleu.corpus_score(predictions, streams), chrf.corpus_score(predictions, streams)
    return {
        "bleu": _unit(bleu_score.score),
        "chrf": _unit(chrf_score.score),
        "signatures": {
            "bleu": "corpus/100 " + str(bleu.get_signature()),
            "chrf": "corpus/100 " + str(chrf.get_signature()),
        },
    }
