"""The Sweep tab speaks the app's language (no CLI flag in its form or its refusal) and its comparison calls each
point by its value (k=3), not by a letter."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.conftest import page_path, plain


def test_a_long_sweep_is_confirmed_by_a_box_the_form_names_not_by_a_cli_flag(app_workspace):
    at = AppTest.from_file(page_path("experiments"), default_timeout=120).run()
    box = at.checkbox(key="experiments_long_sweep")
    assert "--yes" not in box.label and box.label.startswith("Go ahead with a long sweep")
    at.text_input(key="experiments_values").set_value("0..60")
    at.button(key="experiments_run_sweep").click().run()
    assert not at.exception, at.exception
    [message] = [plain(e.value) for e in at.error]
    assert "long work" in message and "a tick in 'Go ahead with a long sweep'" in message and "--yes" not in message
    assert app_workspace.db["runs"].count == 0


def test_the_comparison_of_sweep_points_is_labelled_by_their_values(runs_env):
    from playground.app.components.comparison import comparison_rows, relabelled
    from playground.evaluation.compare import compare_runs
    from playground.store import open_workspace

    ws = open_workspace(runs_env["path"])
    try:
        report = compare_runs(ws, [runs_env["direct"], runs_env["rag"]], seed=0, n_resamples=200)
    finally:
        ws.close()
    rows = comparison_rows(relabelled(report, ["k=0", "k=2"]))
    assert {"mean k=0", "mean k=2", "k=2 - k=0", "k=2 wins", "k=2 losses"} <= set(rows[0])
    assert not [column for column in rows[0] if column.split()[-1] in ("A", "B")]
