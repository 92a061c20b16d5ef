import pytest

from playground import PlaygroundError
from playground.data.importers import importer_names, read_dataset
from tests.data import FIXTURES


def test_registry_names_every_format():
    assert set(importer_names()) == {"hotpotqa", "squad", "obqa", "helps", "beir", "jsonl", "traces"}


def test_read_dataset_dispatches_on_format():
    dataset = read_dataset("squad", str(FIXTURES / "squad" / "dev-v1.1.json"))
    assert dataset.format == "squad" and len(dataset.questions) == 5


def test_unknown_format_lists_the_known_ones():
    with pytest.raises(
        PlaygroundError, match="unknown dataset format 'csv'.*hotpotqa, squad, obqa, helps, beir, jsonl"
    ):
        read_dataset("csv", FIXTURES)
