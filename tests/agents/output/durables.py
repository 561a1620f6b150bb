"""Durable invoice agents whose result is typed (``Invoice``), ReAct and plan-and-execute.

For the store, server, CLI and AG-UI tests.
"""

from __future__ import annotations

from agentsm_fn.agents import plan_execute
from agentsm_fn.agents.react import AgentMemory, Event, State, agent_failure, agent_result
from agentsm_fn.durable import Durable
from agentsm_fn.llm import LlmOutcome, LlmReply, LlmRequest
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import AgentBuilder
from tests.agents.output.invoices import INVOICE_JSON, Invoice, totals_match


class InvoiceLlm:
    """Replies the invoice (deterministic: a replay or another process gets the same)."""

    def complete(self, request: LlmRequest) -> LlmOutcome:
        return LlmReply(content=INVOICE_JSON)


AGENT = (
    AgentBuilder.new("Extract the invoice: INV-7")
    .result_type(Invoice)
    .validate_result(totals_match)
    .llm(InvoiceLlm())
    .build()
    .unwrap()
)
"""The agent (its machine reads replies as Invoices)."""

INVOICES: Durable[State, Event, AgentMemory] = Durable(
    name="tests.agents.output.durables:INVOICES",
    machine=AGENT.machine,
    shell=AGENT.shell,
    failure=agent_failure,
    result=agent_result,
    template=AGENT.memory,
)
"""The agent as a durable program whose stored runs show their Invoice."""


class PlanInvoiceLlm:
    """Plans one step, then replies the invoice when asked for one (deterministic, as InvoiceLlm)."""

    def complete(self, request: LlmRequest) -> LlmOutcome:
        if request.response_name == "Invoice":
            return LlmReply(content=INVOICE_JSON)
        return LlmReply(content='{"goal": "extract the invoice", "initial_steps": ["read it"]}')


PLANNER = (
    AgentFSM(provider=PlanInvoiceLlm(), max_iterations=3).result_type(Invoice).validate_result(totals_match)
)
"""The plan-and-execute agent whose final result is an Invoice."""

PLAN_INVOICES: Durable[plan_execute.State, plan_execute.Event, plan_execute.PlanExecuteMemory] = Durable(
    name="tests.agents.output.durables:PLAN_INVOICES",
    machine=PLANNER.machine,
    shell=PLANNER.shell,
    failure=plan_execute.plan_execute_failure,
    result=plan_execute.plan_execute_result,
    template=PLANNER.memory(""),
)
"""The plan-and-execute agent as a durable program whose stored runs show their Invoice."""
