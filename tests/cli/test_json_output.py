"""`--json` output is always JSON: a NaN or an infinity (stored before values were checked at the plugin boundary)
is written as null, never as `NaN`, which JSON does not have and strict readers refuse."""

from __future__ import annotations

import json

import pytest

import playground.cli as cli
from playground.models.base import GenerationParams
from playground.runs import RunConfig, start_run
from tests.openai_server import OpenAIServer


def strict(text: str):
    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow
def test_runs_json_writes_a_stored_nan_as_null(tiny_workspace, capsys):
    server = OpenAIServer().start()
    try:
        config = RunConfig(
            dataset="tiny", program="direct", model=server.spec(), params=GenerationParams(max_tokens=8), sample=1
        )
        run_id = start_run(tiny_workspace, config).run_id
    finally:
        server.close()
    tiny_workspace.db.execute("UPDATE runs SET metrics = ? WHERE id = ?", ['{"em": NaN, "f1": Infinity}', run_id])
    tiny_workspace.db.conn.commit()
    assert cli.main(["runs", "--db", str(tiny_workspace.path), "--json"]) == 0
    listed = strict(capsys.readouterr().out)
    row = next(row for row in listed if row["id"] == run_id)
    assert row["metrics"]["em"] is None and row["metrics"]["f1"] is None
