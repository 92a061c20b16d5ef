"""How EM, F1 and cover-EM read an answer in each language: the published definitions, each named in a signature.

- `squad`: SQuAD v1.1's official normalisation (playground.data.answers): English articles, ASCII punctuation,
  whitespace tokens. Runs on English benchmarks, and on benchmarks of no known language, score by it as always.
- `mlqa`: the MLQA evaluation (Lewis et al. 2020, mlqa_evaluation_v1.py) in its seven languages: lower-case, delete
  Unicode punctuation (every P* character, and ASCII's punctuation symbols), delete the language's articles (en
  a/an/the; es un/una/unos/unas/el/la/los/las; de ein/eine/einen/einem/eines/einer/der/die/das/den/dem/des; vi
  của/là/cái/chiếc/những; ar every "ال"; hi and zh none), then whitespace tokens, or for zh mixed segmentation:
  each character of U+4E00-U+9FA5 (the range MLQA names) a token, the runs between split at whitespace.
- `cmrc`: CMRC 2018's evaluation (cmrc2018_evaluate.py), for Chinese: its own punctuation list (ASCII - : _ * ^ /
  \\ ~ ` + = and the full-width marks it names), mixed segmentation, EM on the lower-cased text without that
  punctuation, and F1 from the longest common substring of the token sequences, the maximum over the references.
  The runs between Chinese characters are split at whitespace with punctuation split off (the published script
  uses nltk's word_tokenize there; CMRC's answers are Chinese, where the two agree).
- `default`: any other language: NFKC, case-folding, Unicode punctuation deleted, no articles, script-aware tokens
  (playground.data.scripts: each character of Chinese, Japanese kana, Thai, Lao, Khmer or Myanmar a token with its
  combining marks; whitespace between the words of other scripts).

Like SQuAD's script, F1 is 0 when either side has no tokens. A rule's `signature` names the definition and the
language, so runs scored under different definitions are never compared silently. Outside SQuAD's English, BLEU
takes sacrebleu's tokeniser for the language (zh; char for the other unspaced scripts; intl) and ROUGE-L runs its
longest common subsequence over the rule's tokens, since rouge-score's tokeniser keeps ASCII letters and digits only.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional, Sequence

from playground import PlaygroundError
from playground.data.scripts import contains_run

MLQA_LANGUAGES = ("en", "es", "hi", "vi", "de", "ar", "zh")
MLQA_ARTICLES = {
    "en": r"\b(?:a|an|the)\b",
    "es": r"\b(?:un|una|unos|unas|el|la|los|las)\b",
    "vi": r"\b(?:của|là|cái|chiếc|những)\b",
    "de": r"\b(?:ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des)\b",
    "ar": r"\sال^|ال",  # as MLQA writes it: every "ال" goes, wherever it is
}
MLQA_HAN = re.compile(r"[\u4e00-\u9fa5]")
CMRC_PUNCTUATION = frozenset("-:_*^/\\~`+=，。：？！“”；’《》·、「」（）－～『』")
RULE_NAMES = ("squad", "mlqa", "cmrc", "default")
_LANGUAGE_CODE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*$")
_SIGNATURES = {
    "squad": "squad-v1.1|lang:{language}|punct:ascii|articles:en|tokens:whitespace",
    "mlqa": "mlqa-v1|lang:{language}|punct:unicode|articles:{articles}|tokens:{tokens}",
    "cmrc": "cmrc2018|lang:{language}|punct:cmrc|tokens:mixed|f1:longest-common-substring",
    "default": "default-v1|lang:{language}|nfkc|casefold|punct:unicode|articles:none|tokens:script",
}


def language_code(value: Optional[str], where: str = "--language") -> Optional[str]:
    """The ISO 639-1 code of "zh", "ZH", "zh-Hant" or "zh_TW" ("zh"); None for None or ""; anything that is not
    an ISO 639-1 code is refused in one line."""
    from playground.data.language import ISO_639_1

    if value is None or not str(value).strip():
        return None
    text = str(value).strip()
    code = re.split(r"[-_]", text)[0].lower()
    if not _LANGUAGE_CODE.match(text) or code not in ISO_639_1:
        raise PlaygroundError(f"{where}: {text!r} is not an ISO 639-1 language code (two letters, e.g. en, zh, de)")
    return code


def tokens_f1(prediction: Sequence[str], reference: Sequence[str]) -> float:
    shared = sum((Counter(prediction) & Counter(reference)).values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(prediction), shared / len(reference)
    return 2 * precision * recall / (precision + recall)


def longest_common_run(first: Sequence[str], second: Sequence[str]) -> int:
    """The length of the longest contiguous run of tokens the two sequences share."""
    best, previous = 0, [0] * (len(second) + 1)
    for token in first:
        current = [0] * (len(second) + 1)
        for index, other in enumerate(second):
            if token == other:
                current[index + 1] = previous[index] + 1
                best = max(best, current[index + 1])
        previous = current
    return best


@dataclass(frozen=True)
class AnswerRule:
    """One definition of EM, F1 and cover-EM, in one language."""

    name: str  # one of RULE_NAMES
    language: str  # ISO 639-1

    @property
    def spec(self) -> str:
        """ "mlqa:zh": what a ScoringItem carries to name its rule."""
        return f"{self.name}:{self.language}"

    @property
    def signature(self) -> str:
        articles = "none" if self.language not in MLQA_ARTICLES else self.language
        tokens = "mixed" if self.language == "zh" else "whitespace"
        return _SIGNATURES[self.name].format(language=self.language, articles=articles, tokens=tokens)

    def normalize(self, text: str) -> str:
        """The answer as the rule compares it: its tokens joined by single spaces."""
        if self.name == "squad":
            from playground.data.answers import normalize_answer

            return normalize_answer(text)
        return " ".join(self.tokens(text))

    def tokens(self, text: str) -> list[str]:
        text = text or ""
        if self.name == "squad":
            return self.normalize(text).split()
        if self.name == "mlqa":
            return _mlqa_tokens(text, self.language)
        if self.name == "cmrc":
            return _cmrc_tokens(text)
        return _default_tokens(text)

    def exact_match(self, prediction: str, references: Sequence[str]) -> float:
        if self.name == "cmrc":
            predicted = _cmrc_exact_form(prediction)
            return max((float(predicted == _cmrc_exact_form(reference)) for reference in references), default=0.0)
        predicted = self.normalize(prediction)
        return max((float(predicted == self.normalize(reference)) for reference in references), default=0.0)

    def f1(self, prediction: str, references: Sequence[str]) -> float:
        predicted = self.tokens(prediction)
        if self.name == "cmrc":
            return max((_lcs_f1(predicted, self.tokens(reference)) for reference in references), default=0.0)
        return max((tokens_f1(predicted, self.tokens(reference)) for reference in references), default=0.0)

    def cover_exact_match(
        self, prediction: str, references: Sequence[str], tokens: Optional[Callable[[str], list[str]]] = None
    ) -> float:
        """Some reference's tokens occur in the prediction's as a run (an empty reference covers only nothing).
        `tokens`: this rule's tokens, read through a cache where the same texts come back (retrieval evaluation)."""
        read = tokens or self.tokens
        predicted = read(prediction)
        return max((float(contains_run(predicted, read(reference))) for reference in references), default=0.0)


def _mlqa_tokens(text: str, language: str) -> list[str]:
    from playground.data.scripts import remove_punctuation

    cleaned = remove_punctuation(text.lower())
    if language in MLQA_ARTICLES:
        cleaned = re.sub(MLQA_ARTICLES[language], " ", cleaned)
    if language != "zh":
        return cleaned.split()
    return _mixed_segmentation(cleaned, lambda char: bool(MLQA_HAN.match(char)), str.split)


def _mixed_segmentation(text: str, alone, split_run) -> list[str]:
    """Each character `alone` says is one a token; the runs between split by `split_run`."""
    tokens: list[str] = []
    run: list[str] = []
    for char in text:
        if alone(char):
            tokens.extend(split_run("".join(run)))
            run = []
            tokens.append(char)
        else:
            run.append(char)
    tokens.extend(split_run("".join(run)))
    return [token for token in tokens if token.strip()]


def _split_off_punctuation(run: str) -> list[str]:
    """Whitespace words with each punctuation character split off as a token of its own."""
    return re.findall(r"\w+|[^\w\s]", run)


def _cmrc_tokens(text: str) -> list[str]:
    cleaned = "".join(char for char in (text or "").lower().strip() if char not in CMRC_PUNCTUATION)
    return _mixed_segmentation(cleaned, lambda char: bool(MLQA_HAN.match(char)), _split_off_punctuation)


def _cmrc_exact_form(text: str) -> str:
    return "".join(char for char in (text or "").lower().strip() if char not in CMRC_PUNCTUATION)


def _lcs_f1(predicted: Sequence[str], reference: Sequence[str]) -> float:
    shared = longest_common_run(reference, predicted)
    if shared == 0:
        return 0.0
    precision, recall = shared / len(predicted), shared / len(reference)
    return 2 * precision * recall / (precision + recall)


def _default_tokens(text: str) -> list[str]:
    from playground.data.scripts import remove_punctuation, script_tokens

    return script_tokens(remove_punctuation(unicodedata.normalize("NFKC", text).casefold()))


@lru_cache(maxsize=256)
def answer_rule(spec: Optional[str]) -> AnswerRule:
    """The rule a spec names ("mlqa:zh", "cmrc:zh", "default:th", "squad:en"); None is SQuAD's."""
    if not spec:
        return AnswerRule("squad", "en")
    name, _, language = spec.partition(":")
    if name not in RULE_NAMES:
        raise PlaygroundError(f"unknown answer scoring rule {name!r} (known: {', '.join(RULE_NAMES)})")
    return AnswerRule(name, language_code(language, "answer scoring rule") or "en")


def rule_for_language(language: Optional[str]) -> AnswerRule:
    """The rule a language asks for by name (`score --language`): MLQA's in its seven languages (English too),
    the default elsewhere."""
    code = language_code(language) or "en"
    return AnswerRule("mlqa" if code in MLQA_LANGUAGES else "default", code)


def rule_for_benchmark(language: Optional[str], benchmark_format: Optional[str] = None) -> AnswerRule:
    """The rule a run scores by: SQuAD's for an English benchmark or one of no known language (as every run before
    languages), CMRC's for the "cmrc" format, else the language's (rule_for_language)."""
    code = language_code(language, "the benchmark's language")
    if benchmark_format == "cmrc":
        return AnswerRule("cmrc", "zh")
    if code in (None, "en"):
        return AnswerRule("squad", "en")
    return rule_for_language(code)


def rule_from_signature(signature: Optional[str]) -> Optional[AnswerRule]:
    """The rule a stored em signature names (a resumed run scores as it began); None when it names none."""
    if not signature:
        return None
    for name, template in _SIGNATURES.items():
        head = template.split("|", 1)[0]
        match = re.match(rf"^{re.escape(head)}\|lang:([a-z]{{2,3}})\|", signature)
        if match:
            return AnswerRule(name, match.group(1))
    return None


UNSPACED_LANGUAGES = ("ja", "th", "lo", "km", "my")  # written without spaces: BLEU reads them by character


def bleu_tokenizer(rule: AnswerRule) -> str:
    """sacrebleu's BLEU tokeniser for the rule's language: 13a for SQuAD's English (as always), zh for Chinese,
    char for the other scripts without spaces, intl (Unicode punctuation and symbols) for the rest."""
    if rule.name == "squad":
        return "13a"
    if rule.language == "zh":
        return "zh"
    return "char" if rule.language in UNSPACED_LANGUAGES else "intl"


def rouge_l_tokens(rule: AnswerRule, text: str) -> list[str]:
    """The tokens ROUGE-L's longest common subsequence runs over outside English: the rule's own (rouge-score's
    tokeniser keeps ASCII letters and digits only, so it reads no Chinese, Arabic or Russian at all)."""
    return rule.tokens(text)


def answer_signatures(rule: AnswerRule, benchmark_format: Optional[str] = None) -> dict[str, str]:
    """How em, f1 and cover_em (and on Chinese, CMRC 2018's cmrc_em and cmrc_f1) were computed; outside SQuAD's
    English also bleu (its tokeniser) and rougeL (its tokens)."""
    signatures = {"em": rule.signature, "f1": rule.signature, "cover_em": rule.signature}
    if rule.name != "squad":
        from playground.evaluation.text_metrics import metric_signatures

        signatures["bleu"] = metric_signatures(tokenize=bleu_tokenizer(rule))["bleu"]
        signatures["rougeL"] = f"lcs-fmeasure|max-over-refs|tokens:{rule.signature}"
    if rule.name == "squad" and benchmark_format == "hotpotqa":
        signatures["f1"] = "hotpotqa-v1|lang:en|punct:ascii|articles:en|tokens:whitespace|yes-no-noanswer:exact"
    if rule.language == "zh" and rule.name != "cmrc":
        signatures["cmrc_em"] = signatures["cmrc_f1"] = AnswerRule("cmrc", "zh").signature
    return signatures


def describe(rule: AnswerRule) -> str:
    """The rule in words, for the line beside the scores."""
    names = {"squad": "SQuAD v1.1", "mlqa": "MLQA", "cmrc": "CMRC 2018", "default": "the default (script-aware)"}
    return f"{names[rule.name]} definition, language {rule.language}"
