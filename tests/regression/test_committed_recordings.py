"""The recordings in tests/regression/recordings are what recording their runs gives today, byte for byte (a
file does not depend on the process: hash seeds, set and map orders); the suite runs each as a test (the
plugin is named in tests/conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentsm_fn.durable import SqliteStore
from agentsm_fn.regression import record_stored, recording_to_json
from tests.regression.refunds import REFUNDS, Desk

FOLDER = Path(__file__).parent / "recordings"
RUNS = {"o-1": "Please refund my order", "o-2": "Please refund my order", "o-9": "Where is my parcel?"}


@pytest.mark.parametrize("order", sorted(RUNS))
def test_a_committed_recording_is_what_recording_its_run_gives_today(order: str) -> None:
    store = SqliteStore.open(":memory:").unwrap()
    try:
        REFUNDS.start(store, Desk(message=RUNS[order], order=order), run_id=order)
        text = recording_to_json(record_stored(store, REFUNDS, order).unwrap())
    finally:
        store.close()
    assert text == (FOLDER / f"{order}.recording.json").read_text(encoding="utf-8")


def test_the_suite_collects_each_committed_recording_as_one_test() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(FOLDER)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parents[2],
    )
    names = sorted(line for line in listed.stdout.splitlines() if "::" in line)
    assert names == [f"tests/regression/recordings/{order}.recording.json::replay" for order in sorted(RUNS)]
