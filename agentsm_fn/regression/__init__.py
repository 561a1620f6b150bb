"""Recorded runs as regression tests (docs/evals.md, "Recorded runs as tests").

A recording (:class:`Recording`, one JSON file a run: :func:`load_recording`,
:func:`recording_to_json`) holds a run's machine and fingerprint, its start memory, its
journal (each request and outcome), its rows and its end. :func:`replay_recording` replays it
against the current code, free and deterministic, and reports the first step where the code
asks for another effect, takes another row or ends otherwise (:class:`Divergence`).
:func:`record_run` and :func:`record_stored` write recordings (``agentsm-runs record RUN``);
:func:`rerecord` runs a recording's start again through a live Durable when a change was
meant (``agentsm-runs rerecord FILE``). The pytest plugin
(:mod:`agentsm_fn.regression.pytest_plugin`) runs a folder of recordings as tests.
"""

from agentsm_fn.regression.errors import (
    Divergence,
    DivergenceKind,
    RecordingInvalid,
    RecordingProblem,
    RegressionError,
    TargetUnusable,
)
from agentsm_fn.regression.json_form import from_json_form, to_json_form
from agentsm_fn.regression.record import record_run, record_stored
from agentsm_fn.regression.recording import (
    RECORDING_SUFFIX,
    load_recording,
    recording_from_json,
    recording_to_json,
    write_recording,
)
from agentsm_fn.regression.replay import Replayed, replay_recording
from agentsm_fn.regression.rerecord import rerecord
from agentsm_fn.regression.values import RECORDING_FORMAT, RecordedEffect, RecordedEnd, Recording

__all__ = [
    "RECORDING_FORMAT",
    "RECORDING_SUFFIX",
    "Divergence",
    "DivergenceKind",
    "RecordedEffect",
    "RecordedEnd",
    "Recording",
    "RecordingInvalid",
    "RecordingProblem",
    "RegressionError",
    "Replayed",
    "TargetUnusable",
    "from_json_form",
    "load_recording",
    "record_run",
    "record_stored",
    "recording_from_json",
    "recording_to_json",
    "replay_recording",
    "rerecord",
    "to_json_form",
    "write_recording",
]
