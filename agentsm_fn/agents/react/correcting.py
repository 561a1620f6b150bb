"""Correcting: a reply that was not a valid typed result goes back to the model, a bounded number of times.

Rules (a budgeted state: every visit spends ``output_retries`` or leaves):

* ``output_retries < config.max_output_retries``: ``output_retries += 1``, emit ``RetryOutput``
  (the next planning call carries the rejected reply and its problems, see
  :func:`~agentsm_fn.agents.react.prompt.build_messages`);
* otherwise set ``error`` (naming the problems), emit ``OutputRetriesExhausted``: the run ends
  in Error, and its failure (:class:`~agentsm_fn.agents.react.errors.OutputInvalidError`) keeps
  the last invalid reply.
"""

from __future__ import annotations

from typing import Literal

from returns.result import Failure, Result

from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.states import Event
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit

__all__ = ["correct"]


def correct(
    memory: AgentMemory,
) -> Result[tuple[Literal[Event.RetryOutput, Event.OutputRetriesExhausted], AgentMemory], Fault]:
    """Send the last rejected reply back for another try, or end the run when the budget is spent.

    Example:
        >>> from agentsm_fn.agents.output import OutputProblem, RejectedOutput
        >>> problem = OutputProblem(path="$", message="'n' is required")
        >>> bad = RejectedOutput(step=1, reply="{}", problems=[problem])
        >>> event, m = correct(AgentMemory.new("t").evolve(rejected_outputs=[bad])).unwrap()
        >>> event.name, m.output_retries
        ('RetryOutput', 1)
        >>> event, m = correct(m.evolve(output_retries=3)).unwrap()
        >>> event.name, m.error
        ('OutputRetriesExhausted', "Output invalid after 3 retries: $: 'n' is required")
    """
    if not memory.rejected_outputs:
        return Failure(Fault("Correcting entered with no rejected output"))
    if memory.output_retries >= memory.config.max_output_retries:
        last = memory.rejected_outputs[-1]
        message = f"Output invalid after {memory.output_retries} retries: {last.describe()}"
        return emit(Event.OutputRetriesExhausted, memory.evolve(error=message))
    return emit(Event.RetryOutput, memory.evolve(output_retries=memory.output_retries + 1))
