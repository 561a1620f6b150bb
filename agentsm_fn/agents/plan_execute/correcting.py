"""CORRECTING: a final answer that is not a valid typed result goes back to the model, boundedly.

Rules (a budgeted state: every visit spends one of ``config.finalizer.max_output_retries``, or leaves):

* ``output_retries < max_output_retries``: ``output_retries += 1``; the rejected answer becomes the
  assistant's turn and a user message names every problem; the final result is cleared; emit
  RETRY_OUTPUT (EXECUTE asks again, its request carrying the result's schema);
* otherwise halt (OUTPUT_RETRIES_EXHAUSTED, cause ``output_invalid``): the run's failure
  (:class:`~agentsm_fn.agents.output.OutputInvalidError`, as the ReAct agent's) keeps the last
  invalid answer (``memory.rejected_outputs[-1]``) and its problems.
"""

from __future__ import annotations

from typing import Literal

import attrs
from returns.result import Failure, Result

from agentsm_fn.agents.plan_execute.graph import Event, State
from agentsm_fn.agents.plan_execute.memory import PlanExecuteMemory
from agentsm_fn.agents.plan_execute.moves import advance, halt
from agentsm_fn.agents.plan_execute.values import HaltCause, HaltError
from agentsm_fn.core.faults import Fault
from agentsm_fn.llm.messages import AssistantMessage, UserMessage

__all__ = ["correct_output"]

CorrectOut = Result[
    tuple[Literal[Event.RETRY_OUTPUT, Event.OUTPUT_RETRIES_EXHAUSTED], PlanExecuteMemory], Fault
]


def correct_output(mem: PlanExecuteMemory) -> CorrectOut:
    """Send the last rejected answer back with its problems, or halt when the budget is spent.

    Example:
        >>> from agentsm_fn.agents.output import OutputProblem, OutputSpec, RejectedOutput
        >>> problem = OutputProblem(path="$", message="'n' is required")
        >>> bad = RejectedOutput(step=1, reply="{}", problems=[problem])
        >>> mem = PlanExecuteMemory(input="x", output=OutputSpec(name="N", schema={"type": "object"}),
        ...                         rejected_outputs=[bad])
        >>> event, after = correct_output(mem).unwrap()
        >>> event.name, after.output_retries, after.messages[-1].content.splitlines()[1]
        ('RETRY_OUTPUT', 1, "- $: 'n' is required")
        >>> event, after = correct_output(attrs.evolve(after, output_retries=3)).unwrap()
        >>> event.name, after.error.message
        ('OUTPUT_RETRIES_EXHAUSTED', "Output invalid after 3 retries: $: 'n' is required")
    """
    if not mem.rejected_outputs:
        return Failure(Fault("CORRECTING entered with no rejected output"))
    last = mem.rejected_outputs[-1]
    name = "answer" if mem.output is None else mem.output.name  # text with output validators: an answer
    if mem.output_retries >= mem.config.finalizer.max_output_retries:
        message = f"Output invalid after {mem.output_retries} retries: {last.describe()}"
        error = HaltError(cause=HaltCause.OUTPUT_INVALID, state=State.CORRECTING, message=message)
        return halt(Event.OUTPUT_RETRIES_EXHAUSTED, mem, error)
    messages = mem.messages
    if not (messages and isinstance(messages[-1], AssistantMessage) and messages[-1].content == last.reply):
        messages = messages.append(AssistantMessage(last.reply))
    retried = attrs.evolve(
        mem,
        output_retries=mem.output_retries + 1,
        final_result=None,
        messages=messages.append(UserMessage(last.feedback(name))),
    )
    left = mem.config.finalizer.max_output_retries - retried.output_retries
    return advance(Event.RETRY_OUTPUT, State.CORRECTING, retried, f"Output invalid: retry ({left} left)")
