"""What an agent asks for and what it got wrong: the output's description, its problems, a rejected reply.

These are plain frozen values: an agent's memory carries them (so a stored run keeps them
and replays them), and the prompt builder reads them to tell the model what to fix.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from agentsm_fn.llm.json import JsonObject, freeze_object

__all__ = ["OutputProblem", "OutputSpec", "RejectedOutput"]


def _problems(value: Iterable[OutputProblem]) -> tuple[OutputProblem, ...]:
    return tuple(value)


@attrs.frozen(kw_only=True)
class OutputSpec:
    """The result an agent must give: its name, what it is, and its JSON Schema (always an object).

    ``name`` names the JSON Schema in OpenAI's ``response_format`` and the final-result tool
    where a provider is asked through one; ``description`` is that tool's description.

    Example:
        >>> spec = OutputSpec(name="Invoice", schema={"type": "object"})
        >>> spec.tool_name, spec.instruction()[:40]
        ('final_result', 'Reply with a JSON object (Invoice) that ')
    """

    name: str
    schema: JsonObject = attrs.field(converter=freeze_object)
    description: str = ""
    tool_name: str = "final_result"

    def instruction(self) -> str:
        """The sentence that asks the model for this result (sent with each planning call's task).

        Example:
            >>> OutputSpec(name="Point", schema={"type": "object"}).instruction()
            'Reply with a JSON object (Point) that matches the given JSON Schema, and nothing else.'
        """
        return f"Reply with a JSON object ({self.name}) that matches the given JSON Schema, and nothing else."


@attrs.frozen(kw_only=True)
class OutputProblem:
    """One way a reply fails its result type: where (a JSON path, ``$`` for the whole) and what.

    Example:
        >>> str(OutputProblem(path="$.lines[0].qty", message="'1' is not of type 'integer'"))
        "$.lines[0].qty: '1' is not of type 'integer'"
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@attrs.frozen(kw_only=True)
class RejectedOutput:
    """A reply that did not give a valid result: the planning step, the reply's text, every problem.

    Example:
        >>> r = RejectedOutput(step=2, reply='{"qty": "1"}',
        ...                    problems=[OutputProblem(path="$.qty", message="'1' is not of type 'integer'")])
        >>> print(r.feedback("Line"))
        Your reply is not a valid Line:
        - $.qty: '1' is not of type 'integer'
        Reply again with the corrected JSON object only.
    """

    step: int
    reply: str
    problems: tuple[OutputProblem, ...] = attrs.field(converter=_problems)

    def feedback(self, name: str) -> str:
        """The message that sends the problems back to the model, one line each.

        Example:
            >>> RejectedOutput(step=1, reply="", problems=[]).feedback("X").splitlines()[0]
            'Your reply is not a valid X:'
        """
        lines = [f"Your reply is not a valid {name}:"]
        lines += [f"- {problem}" for problem in self.problems]
        lines.append("Reply again with the corrected JSON object only.")
        return "\n".join(lines)

    def describe(self) -> str:
        """The problems in one line (for a failure's message).

        Example:
            >>> problem = OutputProblem(path="$", message="not JSON")
            >>> RejectedOutput(step=1, reply="x", problems=[problem]).describe()
            '$: not JSON'
        """
        return "; ".join(str(problem) for problem in self.problems)
