"""One analyser per script: words (with their combining marks), stop words and stemmers per language; English's as
it always was. Before analysers, a Chinese sentence was one token and Thai/Devanagari words were cut at every vowel
sign (a combining mark is not a letter to `\\w`)."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.retrieval.analyzers import ENGLISH, check_bm25_params, get_analyzer
from playground.retrieval.segmenters import cjk_bigrams, unicode_words
from playground.retrieval.tokenize import tokenize, tokenize_many, tokenize_to_ids


def test_chinese_sentences_become_words():
    terms = get_analyzer("zh").terms("北京大学的学生在图书馆学习。")
    assert {"北京", "大学", "学生", "图书馆", "学习"} <= set(terms)
    assert "北京大学的学生在图书馆学习" not in terms and "。" not in terms


def test_chinese_character_pairs_follow_lucenes_cjk_analyser():
    assert get_analyzer("zh-bigram").terms("北京大学") == ["北京", "京大", "大学"]
    assert cjk_bigrams("北京。大 Apple") == ["北京", "大", "apple"]  # a pair never spans punctuation


def test_thai_is_segmented_with_its_vowel_signs_kept_inside_words():
    terms = get_analyzer("th").terms("ทีมรับของแพนเธอร์สถอดใจที่คะแนน 308")
    assert {"ทีม", "คะแนน", "308"} <= set(terms)
    assert "ที่" not in terms  # a Thai stop word (pythainlp's list)
    assert all(not ("\u0e31" <= term[0] <= "\u0e3a") for term in terms)  # no word starts with a vowel sign


def test_devanagari_words_keep_their_vowel_signs_and_are_stemmed_in_hindi():
    words = get_analyzer("hi").words("भारत की राजधानी नई दिल्ली है")
    assert words == ["भारत", "की", "राजधानी", "नई", "दिल्ली", "है"]
    assert unicode_words("राजधानी") == ["राजधानी"]
    assert get_analyzer("hi").terms("राजधानी") == ["राजधान"]  # Snowball's Hindi stemmer


def test_arabic_words_keep_their_harakat_and_are_stemmed():
    arabic = get_analyzer("ar")
    assert arabic.words("وَالْمَكْتَبَاتُ الكبيرة") == ["وَالْمَكْتَبَاتُ", "الكبيرة"]
    assert arabic.terms("الكبيرة") == arabic.terms("كبيرة") == ["كبير"]  # the article is stripped by the stemmer
    assert arabic.terms("وَالْمَكْتَبَاتُ") == arabic.terms("والمكتبات")  # and the harakat


def test_german_and_russian_use_their_snowball_stemmers_and_stop_words():
    german = get_analyzer("de")
    assert german.terms("Die Häuser der Städte waren größer") == ["haus", "stadt", "gross"]
    russian = get_analyzer("ru")
    assert russian.terms("Студенты читали книги в библиотеках") == ["студент", "чита", "книг", "библиотек"]
    assert russian.terms("студент") == russian.terms("студенты")


def test_full_width_and_composed_forms_read_as_one_word():
    vietnamese = get_analyzer("vi")
    decomposed = "Vie\u0302\u0323t Nam"
    assert vietnamese.terms(decomposed) == vietnamese.terms("Việt Nam") == ["việt", "nam"]
    assert get_analyzer("zh").terms("ＧＢ３６") == ["gb36"]


def test_english_is_the_analyser_it_always_was():
    assert get_analyzer("en") is ENGLISH
    text = "The Rivers of FRANCE are flowing; Super_Bowl_50: Denver's win!"
    assert tokenize(text) == ["river", "franc", "flow", "super", "bowl", "50", "denver", "win"]
    assert tokenize(text, analyzer=ENGLISH) == tokenize(text)


@pytest.mark.parametrize("name", ["zh", "th", "de", "ru", "ar", "hi"])
def test_corpus_tokenisers_give_what_tokenize_gives(name):
    analyzer = get_analyzer(name)
    texts = ["北京大学的学生", "ทีมรับของแพนเธอร์ส", "Die Häuser", "Студенты читали", "المكتبات", "राजधानी है", ""]
    for stem in (True, False):
        expected = [tokenize(text, stem, analyzer) for text in texts]
        assert tokenize_many(texts, stem, analyzer=analyzer) == expected
        ids, vocab = tokenize_to_ids(texts, stem, analyzer=analyzer)
        names = {i: token for token, i in vocab.items()}
        assert [[names[i] for i in doc] for doc in ids] == expected


def test_an_unknown_analyser_is_refused_in_one_line():
    with pytest.raises(PlaygroundError, match="'klingon' is not an ISO 639-1 language code.*auto, zh-bigram, unicode"):
        check_bm25_params({"analyzer": "klingon"})
    assert check_bm25_params({"analyzer": "auto"}) == {"analyzer": "auto"}
    assert get_analyzer("sw").stemmer is None and get_analyzer("sw").segmenter == "unicode-words"


def test_the_description_names_segmenter_stemmer_and_versions():
    described = get_analyzer("zh").describe()
    assert described["segmenter"] == "jieba" and described["stemmer"] is None
    assert set(described["versions"]) == {"regex", "jieba"}
    assert get_analyzer("de").describe()["stemmer"] == "snowball-german"
    assert ENGLISH.describe()["stop_words"] == "bm25s STOPWORDS_EN_PLUS"
