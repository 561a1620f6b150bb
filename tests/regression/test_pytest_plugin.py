"""The pytest plugin runs a folder of recordings as tests, one per run, against the machine they name, the ini
option's, or a conftest hook's; a failure shows the step, the state and the old and the new request."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from agentsm_fn.durable import SqliteStore
from agentsm_fn.regression import record_stored, write_recording
from tests.regression.refunds import REFUNDS, Desk

PLUGIN = "agentsm_fn.regression.pytest_plugin"
ORDERS = ("o-1", "o-2", "o-3")


def record_folder(folder: Path) -> None:
    """Three recorded runs of the refund desk: o-1 (40, refunded), o-2 (120, waits for approval), o-3 (70)."""
    folder.mkdir(parents=True, exist_ok=True)
    store = SqliteStore.open(":memory:").unwrap()
    try:
        for order in ORDERS:
            REFUNDS.start(store, Desk(message="refund please", order=order), run_id=order)
            recording = record_stored(store, REFUNDS, order).unwrap()
            write_recording(folder / f"{order}.recording.json", recording).unwrap()
    finally:
        store.close()


def replay(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest run in process with the plugin (named, as an installed copy loads it by its entry point)."""
    return pytester.runpytest("-p", PLUGIN, "-p", "no:asyncio", "-p", "no:cacheprovider", *args)


@pytest.fixture
def recordings(pytester: pytest.Pytester) -> Path:
    folder = pytester.path / "recordings"
    record_folder(folder)
    return folder


def test_each_recording_is_one_test_that_passes_against_the_machine_it_names(
    pytester: pytest.Pytester, recordings: Path
) -> None:
    result = replay(pytester, "-v", str(recordings))
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*recordings/o-1.recording.json::replay PASSED*"])


def test_the_ini_option_replays_every_recording_against_a_changed_handler_and_fails_at_its_step(
    pytester: pytest.Pytester, recordings: Path
) -> None:
    pytester.makeini("[pytest]\nagentsm_replay_against = tests.regression.refunds:OVERPAYS\n")
    result = replay(pytester, str(recordings))
    result.assert_outcomes(passed=1, failed=2)  # o-2 waits before its refund: the change is not reached
    result.stdout.fnmatch_lines(
        [
            "*o-1.recording.json: diverges at step 4 (effect 2) in state REFUNDING: asks for another effect*",
            "*--- recorded",
            "*+++ now",
            '*-*"amount": 40',
            '*+*"amount": 41',
        ]
    )
    assert "Traceback" not in result.stdout.str() and "pytest_plugin.py" not in result.stdout.str()


def test_the_ini_option_replays_a_refactor_that_changes_nothing_and_every_test_passes(
    pytester: pytest.Pytester, recordings: Path
) -> None:
    pytester.makeini("[pytest]\nagentsm_replay_against = tests.regression.refunds:REFACTORED\n")
    replay(pytester, str(recordings)).assert_outcomes(passed=3)


def test_a_conftest_hook_chooses_the_machine_for_its_folder(
    pytester: pytest.Pytester, recordings: Path
) -> None:
    (recordings / "conftest.py").write_text(
        "from tests.regression.refunds import STRICT\n\n"
        "def pytest_agentsm_replay_target(recording, path):\n"
        "    return STRICT if path.name.startswith('o-3') else None\n"
    )
    result = replay(pytester, str(recordings))
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*o-3.recording.json: diverges at step 3 in state LOOKING: takes another row*",
            "*recorded: LOOKING -FOUND-> REFUNDING",
            "*now:      LOOKING -LARGE-> APPROVING",
        ]
    )


def test_a_corrupt_recording_and_an_unknown_machine_fail_with_their_typed_errors(
    pytester: pytest.Pytester, recordings: Path
) -> None:
    text = (recordings / "o-1.recording.json").read_text()
    (recordings / "o-1.recording.json").write_text(text.replace('"seq": 1', '"seq": "one"'))
    (recordings / "o-3.recording.json").write_text(
        text.replace('"tests.regression.refunds:REFUNDS"', '"tests.regression.nowhere:DESK"')
    )
    result = replay(pytester, str(recordings))
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "*o-1.recording.json: effects[[]1[]].seq: field: expected an integer, found a string",
            "*cannot replay against tests.regression.nowhere:DESK: ModuleNotFoundError*",
        ]
    )


def test_the_package_installs_the_plugin_under_its_module_name() -> None:
    declared = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"]["pytest11"] == {PLUGIN: PLUGIN}  # so -p PLUGIN loads it once
