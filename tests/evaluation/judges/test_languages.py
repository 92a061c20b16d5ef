"""A Chinese benchmark end to end against a real local HTTP server playing the answering model and the judge: the
run is scored by MLQA's Chinese definition (and CMRC 2018's beside it) and says so in its signatures; the judge
templates ask for Chinese; the faithfulness judge stores the answer's Chinese claims with their verdicts; the
citation judge cuts the answer into sentences at 。 though no space follows it."""

from __future__ import annotations

import json
import re

import pytest

from playground.data.records import Dataset, Passage, Question
from playground.evaluation.judges.citations import sentences
from playground.evaluation.judges.judge_runs import run_judge
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.models.base import GenerationParams
from playground.runs import RunConfig, start_run
from playground.store.datasets import save_dataset
from playground.store.runs import get_results, get_run
from tests.questions.test_generate import ScriptedModel

PASSAGES = [
    Passage("p1", "巴黎", "巴黎是法国的首都，也是法国人口最多的城市，塞纳河流经市中心。"),
    Passage("p2", "柏林", "柏林是德国的首都，也是德国人口最多的城市，施普雷河流经这座城市。"),
]
QUESTION = Question("q1", "法国的首都是哪里？", ["巴黎"], gold_passage_ids=["p1"])
ANSWER = "巴黎是法国的首都[1]。巴黎有一千万人口。"
FACTS = {"巴黎是法国的首都。": "supported", "巴黎有一千万人口。": "not found"}


def reply_to(prompt: str) -> str:
    if "Answer with citations:" in prompt:
        return ANSWER
    if "List each factual claim" in prompt:
        assert "Write each claim in Chinese" in prompt  # the judge template got the benchmark's language
        answer = re.sub(r"\[\d+\]", "", prompt.split("Answer: ", 1)[1].split("\n", 1)[0])
        return json.dumps(
            {"claims": [piece + "。" for piece in answer.split("。") if piece.strip()]}, ensure_ascii=False
        )
    if "Claim: " in prompt:
        assert "Write the reason in Chinese" in prompt
        verdict = FACTS[prompt.split("Claim: ", 1)[1].split("\n", 1)[0]]
        passage = 1 if verdict == "supported" else None
        return json.dumps({"verdict": verdict, "passage": passage, "reason": "第一段这样说"}, ensure_ascii=False)
    if "Sentence: " in prompt:
        return json.dumps({"supported": "首都" in prompt.split("Sentence: ", 1)[1], "reason": "核对过"})
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


@pytest.fixture
def server():
    running = ScriptedModel(reply_to)
    yield running
    running.close()


@pytest.fixture
def chinese_run(workspace, server):
    save_dataset(workspace, "zh-tiny", Dataset("squad", "tests", PASSAGES, [QUESTION], language="zh"))
    config = RunConfig(
        dataset="zh-tiny",
        program="rag",
        templates={"main": "rag-citations"},
        retriever="bm25",
        k=2,
        model=f"openai:answerer@{server.url}",
        params=GenerationParams(max_tokens=64),
    )
    return workspace, start_run(workspace, config).run_id


def judge(workspace, kind: str, run_id: str, server) -> dict:
    config = JudgeConfig(model=f"openai:judge@{server.url}", params=GenerationParams(max_tokens=256))
    return run_judge(workspace, kind, [run_id], config)


@pytest.mark.slow
def test_a_chinese_run_is_scored_and_judged_in_chinese(chinese_run, server):
    workspace, run_id = chinese_run
    signatures = get_run(workspace, run_id).config["metric_signatures"]
    assert signatures["f1"].startswith("mlqa-v1|lang:zh|") and signatures["cmrc_f1"].startswith("cmrc2018|lang:zh|")
    (result,) = get_results(workspace, run_id)
    # the prediction is the whole answer: 16 characters once punctuation and [1] go, 巴黎 among them (twice); the
    # reference's 2 characters are all shared: MLQA's F1 = 2 * (2/16) * 1 / (2/16 + 1) = 2/9 (SQuAD's would be 0)
    assert result["prediction"].startswith("巴黎是法国的首都") and result["scores"]["f1"] == pytest.approx(2 / 9)
    assert result["scores"]["cover_em"] == 1.0 and "cmrc_f1" in result["scores"]

    faithfulness = judge(workspace, "faithfulness", run_id, server)
    (item,) = faithfulness["items"]
    assert [(c["claim"], c["verdict"]) for c in item["details"]["claims"]] == list(FACTS.items())
    assert item["score"]["mean"] == 0.5 and item["details"]["claims"][0]["reason"] == "第一段这样说"

    citations = judge(workspace, "citations", run_id, server)
    (item,) = citations["items"]
    assert [s["sentence"] for s in item["details"]["sentences"]] == ["巴黎是法国的首都[1]。", "巴黎有一千万人口。"]
    assert item["details"]["uncited"] == 1


def test_sentences_end_at_full_width_stops_and_keep_their_citations():
    assert sentences("巴黎是首都[1]。柏林是首都。[2]他说：「好。」然后走了！") == [
        "巴黎是首都[1]。",
        "柏林是首都。[2]",
        "他说：「好。」",
        "然后走了！",
    ]
    assert sentences("هل القاهرة عاصمة مصر؟ نعم [1].") == ["هل القاهرة عاصمة مصر؟", "نعم [1]."]
    assert sentences("Pi is 3.14 [1]. It never ends.") == ["Pi is 3.14 [1].", "It never ends."]
