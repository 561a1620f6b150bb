"""The pytest plugin: every ``*.recording.json`` file among the tests is one test, its run replayed.

Installed with the library (the ``pytest11`` entry point ``agentsm_fn.regression.pytest_plugin``).
Each recording is replayed against the machine it names (``module:attribute``, imported from
the rootdir as pytest imports tests), or against the one the ini option
``agentsm_replay_against`` names, or against what a ``conftest.py`` returns from the hook
``pytest_agentsm_replay_target(recording, path)`` (a Durable, a Machine, a ``module:attribute``,
or None for the default): the hook is asked first, so one folder of recordings can replay
against a candidate machine. A test fails at the first step where the current code asks for
another effect, takes another row or ends otherwise, and its report shows the step, the state,
the recorded and the new request side by side; a corrupt recording or a machine that cannot
be imported fails with the typed error that says why.

Nothing is read until a recording's test runs, so the plugin costs nothing in a project with none.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentsm_fn.core.machine import Machine
from agentsm_fn.durable import Durable
from agentsm_fn.regression.errors import RegressionError, TargetUnusable
from agentsm_fn.regression.recording import RECORDING_SUFFIX, load_recording
from agentsm_fn.regression.replay import replay_recording
from agentsm_fn.regression.values import Recording
from agentsm_fn.shell.targets import import_target

__all__ = ["RecordedRun", "RecordedRunFailed", "RecordingFile"]

INI_TARGET = "agentsm_replay_against"


class Hooks:
    """The hook a ``conftest.py`` may implement to choose what a recording replays against."""

    @pytest.hookspec(firstresult=True)
    def pytest_agentsm_replay_target(self, recording: Recording, path: Path) -> object:
        """What ``recording`` replays against: a Durable, Machine or ``module:attribute`` (None: default)."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the plugin's hook."""
    pluginmanager.add_hookspecs(Hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ini option naming the machine every recording replays against."""
    parser.addini(
        INI_TARGET,
        "module:attribute of the Durable or Machine recorded runs replay against "
        "(default: the one each recording names)",
        default="",
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> RecordingFile | None:
    """A recording file is collected as one test."""
    if file_path.name.endswith(RECORDING_SUFFIX):
        found: RecordingFile = RecordingFile.from_parent(parent, path=file_path)
        return found
    return None


class RecordingFile(pytest.File):
    """A ``*.recording.json`` file: one recorded run, one test."""

    def collect(self) -> Iterator[RecordedRun]:
        """The file's one test."""
        yield RecordedRun.from_parent(self, name="replay")


class RecordedRunFailed(Exception):
    """A recorded run's test failed: the typed error says how (reported without a traceback)."""

    def __init__(self, error: RegressionError) -> None:
        super().__init__(error.describe())
        self.error = error


class RecordedRun(pytest.Item):
    """One recorded run replayed against the current code."""

    def runtest(self) -> None:
        """Load the recording, find the machine, replay; fail with the first difference."""
        loaded = load_recording(self.path)
        recording = loaded.value_or(None)
        if recording is None:
            raise RecordedRunFailed(loaded.failure())
        target = self._target(recording)
        if isinstance(target, TargetUnusable):
            raise RecordedRunFailed(target)
        replayed = replay_recording(recording, target, self._source())
        error = replayed.swap().value_or(None)
        if error is not None:
            raise RecordedRunFailed(error)

    def _source(self) -> str:
        return self.path.name

    def _target(
        self, recording: Recording
    ) -> Durable[Any, Any, Any] | Machine[Any, Any, Any] | TargetUnusable:
        chosen: object = self.ihook.pytest_agentsm_replay_target(recording=recording, path=self.path)
        if chosen is None:
            chosen = str(self.config.getini(INI_TARGET)) or recording.machine
        if isinstance(chosen, Durable | Machine):
            return chosen
        if not isinstance(chosen, str):
            return TargetUnusable(
                name=repr(chosen)[:80], detail="the hook returned neither a Durable nor a Machine"
            )
        imported = import_target(chosen)
        found = imported.map(lambda target: target.value).value_or(None)
        if found is None:
            return TargetUnusable(name=chosen, detail=imported.failure())
        if not isinstance(found, Durable | Machine):
            return TargetUnusable(
                name=chosen, detail=f"it is a {type(found).__name__}, not a Durable or a Machine"
            )
        return found

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str | Any:
        """The typed error's report, without a traceback into the plugin."""
        if isinstance(excinfo.value, RecordedRunFailed):
            return excinfo.value.error.describe()
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Where the test is: the recording file."""
        return self.path, 0, f"recorded run {self.path.name}"
