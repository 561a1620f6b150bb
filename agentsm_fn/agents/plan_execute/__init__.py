"""The plan-and-execute agent (agent_runtime's ``AgentFSM``) as a machine of pure handlers.

INTAKE -> PLAN -> DECIDE -> EXECUTE <-> OBSERVE -> LOOP_CHECK, ending in FINALIZE or
HALT. A plan step may name a step agent (:class:`StepAgent`), run as a child run
(``plan_execute_machine(steps=...)``). :data:`PLAN_EXECUTE_MACHINE` is the machine;
:class:`PlanExecuteMemory` its memory; run it with the shell (``agentsm_fn.shell.plan_execute_agent.AgentFSM``
is the ready-made facade) and read the outcome with :func:`interpret_plan_execute`.
"""

from agentsm_fn.agents.output.failure import OutputInvalidError
from agentsm_fn.agents.plan_execute.config import (
    DECISION_SCHEMA,
    DEFAULT_DECIDE_PROMPT,
    DEFAULT_EXECUTOR_PROMPT,
    DEFAULT_PLAN_PROMPT,
    DEFAULT_PLAN_SCHEMA,
    DEFAULT_SUMMARY_PROMPT,
    DecideMode,
    DeciderConfig,
    ExecutorConfig,
    FinalizerConfig,
    PlanExecuteConfig,
    PlanExecuteConfigError,
    PlannerConfig,
)
from agentsm_fn.agents.plan_execute.effects import PlanExecuteToolResult, ReadClock, RunTools, ToolBatch
from agentsm_fn.agents.plan_execute.graph import TABLE, Event, State
from agentsm_fn.agents.plan_execute.machine import PLAN_EXECUTE_MACHINE, plan_execute_machine
from agentsm_fn.agents.plan_execute.memory import (
    DEFAULT_MAX_ITERATIONS,
    Awaiting,
    PlanExecuteMemory,
    plan_execute_thread_so_far,
    plan_execute_turn_messages,
)
from agentsm_fn.agents.plan_execute.outcome import (
    EngineFailed,
    ExecutionError,
    Fsm,
    MaxIterationsExceeded,
    PlanExecuteCompleted,
    PlanExecuteError,
    PlanExecuteOutcome,
    interpret_plan_execute,
    plan_execute_failure,
    plan_execute_result,
)
from agentsm_fn.agents.plan_execute.policy import PlanExecutePolicy, PolicyViolation
from agentsm_fn.agents.plan_execute.step_values import AgentStep, StepAgent
from agentsm_fn.agents.plan_execute.stepping import (
    AgentProgram,
    ExecutingSteps,
    StepChild,
    step_agent,
    step_child,
    step_children,
)
from agentsm_fn.agents.plan_execute.values import (
    AuditEntry,
    FinalResult,
    FsmTransition,
    HaltCause,
    HaltError,
    Observation,
    Plan,
    PlanDecision,
)

__all__ = [
    "AgentProgram",
    "AgentStep",
    "AuditEntry",
    "Awaiting",
    "DECISION_SCHEMA",
    "DEFAULT_DECIDE_PROMPT",
    "DEFAULT_EXECUTOR_PROMPT",
    "DEFAULT_MAX_ITERATIONS",
    "DEFAULT_PLAN_PROMPT",
    "DEFAULT_PLAN_SCHEMA",
    "DEFAULT_SUMMARY_PROMPT",
    "DecideMode",
    "DeciderConfig",
    "EngineFailed",
    "Event",
    "ExecutingSteps",
    "ExecutionError",
    "ExecutorConfig",
    "FinalResult",
    "FinalizerConfig",
    "Fsm",
    "FsmTransition",
    "HaltCause",
    "HaltError",
    "MaxIterationsExceeded",
    "Observation",
    "OutputInvalidError",
    "PLAN_EXECUTE_MACHINE",
    "Plan",
    "PlanDecision",
    "PlanExecuteCompleted",
    "PlanExecuteConfig",
    "PlanExecuteConfigError",
    "PlanExecuteError",
    "PlanExecuteMemory",
    "PlanExecuteOutcome",
    "PlanExecutePolicy",
    "PlanExecuteToolResult",
    "PlannerConfig",
    "PolicyViolation",
    "ReadClock",
    "RunTools",
    "State",
    "StepAgent",
    "StepChild",
    "TABLE",
    "ToolBatch",
    "interpret_plan_execute",
    "plan_execute_failure",
    "plan_execute_machine",
    "plan_execute_result",
    "plan_execute_thread_so_far",
    "plan_execute_turn_messages",
    "step_agent",
    "step_child",
    "step_children",
]
