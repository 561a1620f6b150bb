"""Scale out on Temporal: any machine runs as a durable workflow, its effects as activities.

Needs the ``temporal`` extra (the official ``temporalio`` SDK); ``import agentsm_fn``
never imports this package. See docs/temporal.md.
"""

from agentsm_fn.temporal.activity import MISCONFIGURED, EffectActivities
from agentsm_fn.temporal.agents import LLM_OPTIONS, TOOL_OPTIONS, plan_execute_on_temporal, react_on_temporal
from agentsm_fn.temporal.check import check_open_runs, check_run
from agentsm_fn.temporal.children import ProgramNotServed
from agentsm_fn.temporal.client import (
    RunCancelled,
    TemporalRun,
    TemporalRunError,
    connect,
    start_run,
)
from agentsm_fn.temporal.machines import TemporalMachine, WorkflowStart, as_temporal
from agentsm_fn.temporal.options import EffectOptions, activity_options
from agentsm_fn.temporal.payloads import (
    ENCODING,
    DurableCodec,
    PayloadDecodeError,
    ValueCodec,
    ValuePayloadConverter,
    ZlibPayloadCodec,
    data_converter,
)
from agentsm_fn.temporal.worker import (
    PASSED_THROUGH,
    machine_modules,
    machine_replayer,
    machine_worker,
    sandbox_runner,
)
from agentsm_fn.temporal.workflow import RUN_FAILED, MachineMismatch, MachineWorkflow, PendingEffect

__all__ = [
    "ENCODING",
    "LLM_OPTIONS",
    "MISCONFIGURED",
    "PASSED_THROUGH",
    "RUN_FAILED",
    "TOOL_OPTIONS",
    "DurableCodec",
    "EffectActivities",
    "EffectOptions",
    "MachineMismatch",
    "MachineWorkflow",
    "PayloadDecodeError",
    "PendingEffect",
    "ProgramNotServed",
    "RunCancelled",
    "TemporalMachine",
    "TemporalRun",
    "TemporalRunError",
    "ValueCodec",
    "ValuePayloadConverter",
    "WorkflowStart",
    "ZlibPayloadCodec",
    "activity_options",
    "as_temporal",
    "check_open_runs",
    "check_run",
    "connect",
    "data_converter",
    "machine_modules",
    "machine_replayer",
    "machine_worker",
    "plan_execute_on_temporal",
    "react_on_temporal",
    "sandbox_runner",
    "start_run",
]
