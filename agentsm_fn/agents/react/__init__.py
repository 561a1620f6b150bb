"""The ReAct agent of agentsm-rs: pure handlers over frozen memory, as a core machine.

``REACT_MACHINE`` is the machine (table, handlers, narrator, safety cap). This package
is pure: to run the agent, build it with :class:`agentsm_fn.shell.react_agent.AgentBuilder`
(the shell wires the provider, tools, human channel and clock). See docs/react-agent.md.
"""

from agentsm_fn.agents.react.codec import CodecError
from agentsm_fn.agents.react.config import AgentConfig, TokenBudget, select_model
from agentsm_fn.agents.react.effects import AskHuman, RunTool, RunToolBatch
from agentsm_fn.agents.react.errors import (
    AgentFailed,
    BuildError,
    GuardrailTripped,
    InvalidTransitionError,
    LlmError,
    MemoryError,
    NoHandlerForState,
    OutputInvalidError,
    ReactError,
    SafetyCapExceededError,
    ToolEffectError,
    agent_failure,
)
from agentsm_fn.agents.react.guards import ReactGuardrails
from agentsm_fn.agents.react.machine import (
    CYCLE_LENGTH,
    DEFAULT_HANDLERS,
    REACT_MACHINE,
    narrate_react,
    react_machine,
    safety_cap,
)
from agentsm_fn.agents.react.memory import SUMMARY_TOOL, AgentMemory, HistoryEntry, HumanApprovalRequest
from agentsm_fn.agents.react.outcomes import (
    ApprovalDecision,
    Approved,
    Modified,
    ReactToolResult,
    Rejected,
    ToolBatchResult,
)
from agentsm_fn.agents.react.prompt import COMPRESSION_PROMPT, build_messages, compression_prompt
from agentsm_fn.agents.react.result import AgentOutcome, ReactCompleted, RunResult, Suspended, agent_result
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.agents.react.table import TRANSITIONS, is_valid_transition
from agentsm_fn.agents.react.thread import WORK_SUMMARY_PREFIX, react_thread_so_far, react_turn_messages

__all__ = [
    "AgentConfig",
    "AgentFailed",
    "AgentMemory",
    "AgentOutcome",
    "ApprovalDecision",
    "Approved",
    "AskHuman",
    "BuildError",
    "COMPRESSION_PROMPT",
    "CYCLE_LENGTH",
    "CodecError",
    "DEFAULT_HANDLERS",
    "Event",
    "GuardrailTripped",
    "HistoryEntry",
    "HumanApprovalRequest",
    "InvalidTransitionError",
    "LlmError",
    "MemoryError",
    "Modified",
    "NoHandlerForState",
    "OutputInvalidError",
    "REACT_MACHINE",
    "ReactCompleted",
    "ReactError",
    "ReactGuardrails",
    "ReactToolResult",
    "Rejected",
    "RunResult",
    "RunTool",
    "RunToolBatch",
    "SUMMARY_TOOL",
    "SafetyCapExceededError",
    "State",
    "Suspended",
    "TRANSITIONS",
    "TokenBudget",
    "ToolBatchResult",
    "ToolEffectError",
    "WORK_SUMMARY_PREFIX",
    "agent_failure",
    "agent_result",
    "build_messages",
    "compression_prompt",
    "is_valid_transition",
    "narrate_react",
    "react_machine",
    "react_thread_so_far",
    "react_turn_messages",
    "safety_cap",
    "select_model",
]
