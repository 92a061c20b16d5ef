"""`questions generate` on a Chinese corpus against a real local HTTP server playing the model: the generator's
template asks for Chinese, an answer found inside a sentence at character level is kept with its span, an English
reply is rejected as `wrong_language` (counted, printed and shown in the review), and a question holding its
answer character for character gives it away. Plus the script-aware checks on their own."""

from __future__ import annotations

import json
import re

import pytest

import playground.cli as cli
from playground.data.records import Dataset, Passage
from playground.questions.checks import find_answer, gives_answer_away, other_language
from playground.questions.review import generation_rejections, rejection_counts
from playground.store.datasets import load_questions, save_dataset
from tests.questions.test_generate import ScriptedModel

LIGHTHOUSE = """# 凯勒比灯塔

凯勒比的灯塔由工程师玛尔塔·福斯于1874年建成，灯最初燃烧鲸油，后来港务局买了一台煤油灯。

# 守塔人

三名守塔人住在塔下的小屋里，他们记录每一艘驶过格雷浅滩的船，并在冬季风暴中敲响雾钟。
"""

MINES = """# 邓莫尔矿

邓莫尔从1790年开始开采铜矿，矿石用驳船沿艾伦河运到佩洛的冶炼厂。

# 关闭

最后一座机房在1921年关闭，因为来自智利的廉价矿石使深井开采无利可图。
"""

REPLIES = {
    "鲸油": '{"question": "凯勒比的灯塔是哪一年建成的？", "answer": "1874年"}',
    "雾钟": '{"question": "What did the keepers ring in winter storms?", "answer": "雾钟"}',
    "驳船": '{"question": "邓莫尔的矿石用驳船运到哪里的冶炼厂？", "answer": "佩洛"}',
    "智利": '{"question": "来自智利的廉价矿石使深井开采变得怎样？", "answer": "深井开采"}',
}


def chinese_chunks(path: str, text: str) -> list[Passage]:
    """Paragraph chunks of a Markdown document, each an exact slice with its span, titled by its heading."""
    passages, heading = [], ""
    for match in re.finditer(r"[^\n]+", text):
        if match.group().startswith("#"):
            heading = match.group().lstrip("# ")
            continue
        span = {"document": path, "start": match.start(), "end": match.end()}
        passages.append(Passage(f"{path}#{len(passages) + 1}", heading, match.group(), span))
    return passages


def reply_to(prompt: str) -> str:
    return next((reply for marker, reply in REPLIES.items() if marker in prompt), '{"question": "?", "answer": ""}')


@pytest.fixture
def chinese_workspace(workspace):
    passages = chinese_chunks("guide/灯塔.md", LIGHTHOUSE) + chinese_chunks("guide/矿.md", MINES)
    dataset = Dataset("docs", "tests/questions", passages, [], {"document_set": "test"}, language="zh")
    save_dataset(workspace, "zh-guide", dataset)
    return workspace


@pytest.mark.slow
def test_chinese_corpus_keeps_character_level_answers_and_rejects_english_replies(chinese_workspace, capsys):
    server = ScriptedModel(reply_to)
    try:
        code = cli.main(
            ["questions", "generate", "--db", str(chinese_workspace.path), "--corpus", "zh-guide", "--model",
             server.spec, "--name", "zh-qs", "--n", "4", "--two-hop-share", "0"]
        )  # fmt: skip
        out, err = capsys.readouterr()
    finally:
        server.close()
    assert code == 0, err
    assert len(server.prompts) == 4
    assert all("The text is in Chinese: write the question in Chinese" in prompt for prompt in server.prompts)
    counts = dict(re.findall(r"^(asked|kept|rejected: \w+)\s+(\d+)$", out, re.MULTILINE))
    assert counts["asked"] == "4" and counts["rejected: wrong_language"] == "1", out
    assert counts["rejected: gives_answer_away"] == "1" and counts["rejected: unsupported"] == "0", out

    questions = {q.answers[0]: q for q in load_questions(chinese_workspace, "zh-qs")}
    assert set(questions) == {"1874年", "佩洛"}
    (span,) = questions["1874年"].metadata["gold_spans"]
    assert span["document"] == "guide/灯塔.md" and LIGHTHOUSE[span["start"] : span["end"]] == "1874年"
    assert questions["1874年"].metadata["answer_match"][0]["ratio"] == 1.0  # found exactly, inside a sentence

    rejections = generation_rejections(chinese_workspace, "zh-qs")
    wrong = next(r for r in rejections if r["reason"] == "wrong_language")
    assert wrong["question"].startswith("What did the keepers") and "in en, the corpus in zh" in wrong["detail"]
    assert rejection_counts(rejections) == {"gives_answer_away": 1, "wrong_language": 1}
    stored = json.loads(
        chinese_workspace.db.execute("SELECT metadata FROM benchmarks WHERE name = 'zh-qs'").fetchone()[0]
    )
    assert stored["rejected"]["wrong_language"] == 1 and stored["filters"]["language"] == "zh"


@pytest.mark.parametrize(
    "answer, text, found",
    [
        ("1874年", "灯塔于1874年建成。", "1874年"),  # inside a sentence: no spaces around it
        ("国际标准代码", "它的国际\n标准代码是GB36。", "国际\n标准代码"),  # a Chinese line wrapped anywhere
        ("「雾钟」。", "他们敲响雾钟。", "雾钟"),  # full-width quotes and stop hang on it
        ("กรุงเทพ", "เมืองหลวงคือกรุงเทพมหานคร", "กรุงเทพ"),  # Thai: no spaces between words either
    ],
)
def test_answers_are_found_by_character_in_unspaced_scripts(answer, text, found):
    start, end, ratio = find_answer(answer, text)
    assert text[start:end] == found and ratio == 1.0


def test_a_chinese_partial_match_is_found_fuzzily_and_punctuation_alone_is_no_answer():
    start, end, ratio = find_answer("胆经穴位", "外丘穴是足少阳胆经的穴位。")
    assert "外丘穴是足少阳胆经的穴位。"[start:end] == "胆经的穴位" and 0.85 <= ratio < 1.0
    assert find_answer("，", "外丘穴是足少阳胆经的穴位。") is None
    assert find_answer("北京", "外丘穴是足少阳胆经的穴位。") is None


def test_a_question_gives_its_answer_away_character_for_character():
    assert gives_answer_away("1874年建成的凯勒比灯塔是谁设计的？", "1874年")
    assert gives_answer_away("凯勒比灯塔是谁设计的？", "凯勒比灯塔")
    assert not gives_answer_away("凯勒比的灯塔是哪一年建成的？", "1874年")
    assert not gives_answer_away("Which river flows through Paris?", "the Seine")


def test_other_language_names_the_language_a_reply_is_in():
    assert other_language("What did the keepers ring in winter storms?", "zh") == "en"
    assert other_language("凯勒比的灯塔是哪一年建成的？", "zh") is None
    assert other_language("What did the keepers ring?", None) is None  # no corpus language: nothing to check
    assert other_language("1874", "zh") is None  # digits are in no language


def test_words_of_spaced_text_are_the_same_with_or_without_an_unspaced_character_beside_them():
    """Text with no unspaced character takes a fast path: its words must be those of the per-character reading."""
    from playground.data.scripts import script_tokens, word_count

    spaced = "Cafe\u0301 \u0301x  naïve\u00a0word\u3000end"
    words = ["Cafe\u0301", "\u0301x", "naïve", "word", "end"]
    assert script_tokens(spaced) == words and word_count(spaced) == 5
    assert script_tokens(spaced + " 東\u0301京") == [*words, "東\u0301", "京"] and word_count(spaced + " 東京") == 6
