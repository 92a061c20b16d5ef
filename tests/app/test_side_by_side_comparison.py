"""Side by side on a seeded sample: once the variants' runs (detached workers) end, the shared comparison panel
compares them with A (the numbers `playground compare` prints) and the power panel says how many questions a
difference would need."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from playground.evaluation.compare import compare_runs
from playground.store.runs import list_runs
from tests.app.conftest import page_path, until_finished


def test_sample_variants_are_compared_with_intervals_and_a_power_panel(app_workspace):
    at = AppTest.from_file(page_path("side-by-side"), default_timeout=300)
    at.session_state["sbs_mode"] = "Seeded sample"
    at.session_state["sbs_sample"] = 2
    at.run()
    assert at.number_input(key="sbs_sample").value == 2
    for index in range(2):
        at.number_input(key=f"sbs_{index}_model_max_tokens").set_value(4)
    [run] = [button for button in at.button if button.label == "Run all variants"]
    run.click().run(timeout=300)
    assert not at.exception, at.exception
    runs = {run.label: run.id for run in list_runs(app_workspace)}
    until_finished(app_workspace, runs.values())
    at.run()
    assert not at.exception, at.exception
    report = compare_runs(app_workspace, [runs["side by side A"], runs["side by side B"]])
    table = next(t for t in at.dataframe if "95% interval" in t.value.columns).value
    assert list(table["metric"]) == list(report["metrics"])
    assert list(table["B - A"]) == [round(row["diff"], 4) for row in report["metrics"].values()]
    assert any("2000 resamples, seed 0" in c.value for c in at.caption)
    assert any("power" in e.label.lower() for e in at.expander)
