"""EM, F1 and cover-EM by language, on cases worked out by hand from the published definitions (MLQA's evaluation
script, CMRC 2018's, and the documented default): articles, Unicode punctuation, mixed segmentation, partial
answers in scripts without spaces."""

import pytest

from playground import PlaygroundError
from playground.data.scripts import script_tokens
from playground.evaluation.answer_rules import (
    AnswerRule,
    answer_rule,
    answer_signatures,
    language_code,
    rule_for_benchmark,
    rule_for_language,
    rule_from_signature,
)
from playground.evaluation.compare import definition_warnings
from playground.evaluation.scoring import score_prediction

SQUAD = AnswerRule("squad", "en")


def mlqa(language: str) -> AnswerRule:
    return AnswerRule("mlqa", language)


@pytest.mark.parametrize(
    "language, prediction, reference",
    [
        ("es", "el Río Amazonas", "Río Amazonas"),
        ("es", "Las Meninas", "meninas"),
        ("de", "die Deutsche Bank", "Deutsche Bank"),
        ("de", "des Vertrags", "Vertrags"),
        ("vi", "những con mèo", "con mèo"),
        ("ar", "الكتاب", "كتاب"),
        ("en", "the Eiffel Tower", "Eiffel Tower"),
    ],
)
def test_mlqa_removes_each_languages_articles(language, prediction, reference):
    assert mlqa(language).exact_match(prediction, [reference]) == 1.0
    assert SQUAD.exact_match(prediction, [reference]) == float(language == "en")  # English articles only


def test_articles_are_whole_words_only():
    assert mlqa("es").exact_match("Laredo", ["redo"]) == 0.0  # "la" inside a word stays
    assert mlqa("de").tokens("Dieses Haus") == ["dieses", "haus"]
    assert mlqa("hi").tokens("भारत का इतिहास") == ["भारत", "का", "इतिहास"]  # no articles, matras stay in words


def test_unicode_punctuation_is_removed_where_squad_keeps_it():
    assert mlqa("en").exact_match("«Paris»", ["Paris"]) == 1.0
    assert SQUAD.exact_match("«Paris»", ["Paris"]) == 0.0  # SQuAD deletes ASCII punctuation only
    assert mlqa("de").exact_match("„Faust“", ["Faust"]) == 1.0
    assert mlqa("zh").exact_match("北京。", ["「北京」"]) == 1.0
    assert mlqa("ar").tokens("مصر، القاهرة؟") == ["مصر", "قاهرة"]  # Arabic comma and question mark, and "ال"


def test_mixed_segmentation_makes_each_chinese_character_a_token():
    assert mlqa("zh").tokens("1990年的北京 Olympics") == ["1990", "年", "的", "北", "京", "olympics"]
    assert SQUAD.tokens("1990年的北京") == ["1990年的北京"]


def test_a_partial_chinese_answer_gets_partial_f1():
    # prediction 北京大学 (4 tokens), reference 北京 (2 tokens): 2 shared, P = 1/2, R = 1, F1 = 2/3
    assert mlqa("zh").f1("北京大学", ["北京"]) == pytest.approx(2 / 3)
    assert mlqa("zh").exact_match("北京大学", ["北京"]) == 0.0
    assert mlqa("zh").cover_exact_match("北京大学", ["北京"]) == 1.0
    assert SQUAD.f1("北京大学", ["北京"]) == 0.0  # one whitespace token each: all or nothing


def test_cmrc_f1_is_the_longest_common_substring_of_tokens():
    # 北京是首都 vs 首都北京: the longest common run is 2 tokens (北京 or 首都); P = 2/5, R = 2/4, F1 = 4/9
    cmrc = AnswerRule("cmrc", "zh")
    assert cmrc.f1("北京是首都", ["首都北京"]) == pytest.approx(4 / 9)
    assert mlqa("zh").f1("北京是首都", ["首都北京"]) == pytest.approx(8 / 9)  # a bag of tokens: 4 shared
    assert cmrc.f1("北京是首都", ["上海", "首都北京"]) == pytest.approx(4 / 9)  # the best reference
    assert cmrc.f1("", ["北京"]) == 0.0


def test_cmrc_exact_match_drops_its_own_punctuation_list_only():
    cmrc = AnswerRule("cmrc", "zh")
    assert cmrc.exact_match("《红楼梦》", ["红楼梦"]) == 1.0
    assert cmrc.exact_match("Beijing", ["beijing"]) == 1.0  # lower-cased
    assert cmrc.exact_match("红楼梦.", ["红楼梦"]) == 0.0  # the ASCII full stop is not in CMRC's list
    assert cmrc.tokens("2008年 Beijing-Olympics") == ["2008", "年", "beijingolympics"]  # its "-" is deleted


def test_default_rule_reads_thai_and_japanese_by_character_with_marks_kept():
    rule = AnswerRule("default", "th")
    assert rule.tokens("กรุงเทพ") == ["ก", "รุ", "ง", "เ", "ท", "พ"]  # the vowel sign U+0E38 stays on ร
    # 12 tokens against 6, all 6 shared: P = 1/2, R = 1, F1 = 2/3
    assert rule.f1("กรุงเทพมหานคร", ["กรุงเทพ"]) == pytest.approx(2 / 3)
    japanese = AnswerRule("default", "ja")
    assert japanese.f1("東京都", ["東京"]) == pytest.approx(0.8)  # P = 2/3, R = 1
    assert japanese.exact_match("ＴＯＫＹＯ！", ["tokyo"]) == 1.0  # NFKC, case-folding, punctuation


def test_script_tokens_keep_combining_marks_and_split_unspaced_scripts():
    assert script_tokens("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]
    assert script_tokens("abc東京def") == ["abc", "東", "京", "def"]
    assert script_tokens("  ") == []


def test_which_rule_a_language_or_a_benchmark_gets():
    assert rule_for_benchmark(None) == SQUAD and rule_for_benchmark("en") == SQUAD  # English scores as always
    assert rule_for_benchmark("zh") == mlqa("zh") and rule_for_benchmark("de") == mlqa("de")
    assert rule_for_benchmark("th") == AnswerRule("default", "th")
    assert rule_for_benchmark("zh", "cmrc") == AnswerRule("cmrc", "zh")
    assert rule_for_language("en") == mlqa("en")  # asked for by name: MLQA's, with Unicode punctuation
    assert language_code("zh-Hant") == "zh" and language_code("PT_br") == "pt" and language_code("") is None
    for bad in ("chinese!", "xx", "zho"):
        with pytest.raises(PlaygroundError, match=f"'{bad}' is not an ISO 639-1 language code"):
            language_code(bad)


@pytest.mark.parametrize("rule", [SQUAD, mlqa("zh"), mlqa("ar"), AnswerRule("cmrc", "zh"), AnswerRule("default", "th")])
def test_a_signature_names_its_rule_and_language(rule):
    assert f"lang:{rule.language}" in rule.signature
    assert rule_from_signature(rule.signature) == rule
    assert answer_rule(rule.spec) == rule


def test_chinese_runs_also_get_cmrc_metrics_and_english_ones_stay_squad():
    scores = score_prediction("北京是首都", ["首都北京"], answer_rule="mlqa:zh")
    assert scores["f1"] == pytest.approx(8 / 9) and scores["cmrc_f1"] == pytest.approx(4 / 9)
    assert scores["cmrc_em"] == 0.0
    english = score_prediction("the Seine.", ["Seine"])
    assert english == score_prediction("the Seine.", ["Seine"], answer_rule="squad:en")
    assert "cmrc_f1" not in english and english["em"] == 1.0
    assert set(answer_signatures(mlqa("zh"))) == {"em", "f1", "cover_em", "cmrc_em", "cmrc_f1", "bleu", "rougeL"}


def test_compare_warns_when_runs_were_scored_under_different_definitions():
    old = {"id": "r1", "kind": "answer", "signatures": {}}  # from before answer signatures: SQuAD's
    chinese = {"id": "r2", "kind": "answer", "signatures": answer_signatures(mlqa("zh"))}
    same = {"id": "r3", "kind": "answer", "signatures": answer_signatures(SQUAD)}
    warnings = definition_warnings([old, chinese], ["em", "f1"])
    assert len(warnings) == 1 and "em was scored under different definitions" in warnings[0]
    assert "mlqa-v1|lang:zh" in warnings[0] and "squad-v1.1|lang:en" in warnings[0]
    assert definition_warnings([old, same], ["em", "f1", "cover_em"]) == []


def test_rouge_l_and_bleu_read_chinese_by_character_and_english_as_before():
    chinese = score_prediction("北京大学的校长", ["北京大学"], answer_rule="mlqa:zh")
    squad = score_prediction("北京大学的校长", ["北京大学"])
    # ROUGE-L: LCS 4 of 7 prediction and 4 reference characters: P = 4/7, R = 1, F = 8/11
    assert chinese["rougeL"] == pytest.approx(8 / 11) and squad["rougeL"] == 0.0  # rouge-score keeps ASCII only
    assert chinese["bleu"] > 0.0 and squad["bleu"] == 0.0  # sacrebleu's zh tokeniser against 13a's one token
    signatures = answer_signatures(mlqa("zh"))
    assert "tok:zh" in signatures["bleu"] and signatures["rougeL"].endswith("tokens:" + mlqa("zh").signature)
    assert "tok:char" in answer_signatures(AnswerRule("default", "th"))["bleu"]
    assert "bleu" not in answer_signatures(SQUAD)  # English keeps the run's sacrebleu and rouge-score signatures
    english = score_prediction("the cat sat", ["the cat sat on the mat"])
    assert english == score_prediction("the cat sat", ["the cat sat on the mat"], answer_rule="squad:en")


def test_remove_punctuation_deletes_exactly_what_is_punctuation_names_in_every_script():
    """Its translate table decides each character once and remembers: the second pass reads the remembered ones."""
    from playground.data.scripts import is_punctuation, remove_punctuation

    blocks = [(0x0000, 0x0250), (0x0370, 0x0700), (0x0E00, 0x0F00), (0x2000, 0x2070), (0x3000, 0x3100)]
    text = "".join(chr(code) for low, high in blocks for code in range(low, high)) + "\U0001f600\U000e0001"
    kept = "".join(char for char in text if not is_punctuation(char))
    assert remove_punctuation(text) == kept and remove_punctuation(text) == kept
    assert remove_punctuation("«Ça va?» 你好，世界。") == "Ça va 你好世界"


def test_contains_run_finds_whole_token_runs_only():
    from playground.data.scripts import contains_run

    tokens = ["the", "river", "seine", "flows", "the", "river"]
    assert contains_run(tokens, ["river", "seine"]) and contains_run(tokens, ["the", "river"])
    assert contains_run(tuple(tokens), ("flows", "the", "river")) and contains_run(tokens, tokens)
    assert not contains_run(tokens, ["seine", "river"]) and not contains_run(tokens, ["riv"])
    assert not contains_run(tokens, tokens + ["x"]) and not contains_run([], ["x"])
    assert contains_run([], []) and not contains_run(tokens, [])
