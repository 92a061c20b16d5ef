"""A query's terms located in a text by the corpus's analyser: what BM25 matched, in every script."""

from __future__ import annotations

from playground.retrieval.analyzers import get_analyzer
from playground.retrieval.term_locations import located_terms


def _marked(text: str, query: str, analyzer: str) -> list[str]:
    return [text[start:end] for start, end in located_terms(text, query, get_analyzer(analyzer))]


def test_chinese_terms_are_words_not_the_whole_sentence():
    text = "北京是中华人民共和国的首都，也是政治中心。"
    marked = _marked(text, "中华人民共和国的首都在哪里？", "zh")
    assert "首都" in marked and "中华人民共和国" in marked
    assert all(len(word) < 10 for word in marked)  # never the run of Han characters up to the comma
    assert "政治中心" not in "".join(marked)
    assert _marked("北京是中华人民共和国的首都", "首都在哪里", "zh-bigram") == ["首都"]


def test_arabic_and_english_terms_are_found_by_their_stems_and_case():
    assert _marked("القاهرة هي عاصمة مصر وأكبر مدنها.", "ما عاصمة مصر؟", "ar") == ["عاصمة", "مصر"]
    assert _marked("Capitals of France: Paris.", "the capital of france", "en") == ["Capitals", "France"]


def test_thai_terms_are_dictionary_words():
    assert _marked("กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย", "เมืองหลวงของไทยคืออะไร", "th") == ["เมืองหลวง", "ไทย"]


def test_nothing_is_located_for_an_empty_query_or_text():
    english = get_analyzer("en")
    assert located_terms("Paris", "", english) == [] and located_terms("", "Paris", english) == []
    assert located_terms("the of", "the of", english) == []  # stop words are not terms
