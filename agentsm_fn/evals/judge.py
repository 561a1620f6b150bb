"""An LLM judge with a rubric: a small machine whose one effect is the judge's LLM call.

The judge is an ordinary machine (``ASKING --GRADED--> DONE``): its handler asks the model
to grade an answer against a rubric (``LlmCall`` with a JSON answer schema) and reads the
reply into :class:`JudgeMemory`. An experiment runs it as a durable run
(:mod:`agentsm_fn.evals.judging`), so the judge's call is an effect journaled like any other:
the grade of a judged case is read back by replay, and judging again never asks the model twice.
Everything here is pure: the prompt, the request and reading the reply.
"""

from __future__ import annotations

import enum
import json
from typing import Literal, cast

import attrs
from returns.result import Result

from agentsm_fn.core import Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.evals.evidence import Evidence
from agentsm_fn.evals.grades import Grade
from agentsm_fn.llm.call import AnyLlmProvider, LlmCall, LlmRequest
from agentsm_fn.llm.json import JsonObject, JsonValue, freeze_object, thaw
from agentsm_fn.llm.messages import SystemMessage, UserMessage
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome

__all__ = [
    "GRADE_SCHEMA",
    "JUDGE_MACHINE",
    "JudgeEvent",
    "JudgeMemory",
    "JudgeState",
    "LlmJudge",
    "judge_grade",
]


class JudgeState(enum.Enum):
    """The judge's states."""

    ASKING = "asking"
    DONE = "done"


class JudgeEvent(enum.Enum):
    """The judge's one event."""

    GRADED = "graded"


GRADE_SCHEMA: JsonObject = freeze_object(
    {
        "type": "object",
        "properties": {
            "passed": {"type": "boolean"},
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "reason": {"type": "string"},
        },
        "required": ["passed", "score", "reason"],
        "additionalProperties": False,
    }
)
"""What the judge asks the model to answer with."""

_INSTRUCTIONS = (
    "You grade an AI agent's answer against a rubric. Reply with a JSON object only: "
    '{"passed": true or false, "score": a number from 0 to 1, "reason": one short sentence}.'
)


@attrs.frozen(kw_only=True)
class JudgeMemory:
    """What the judge is asked (rubric, question, answer, expected) and, once DONE, what it said."""

    rubric: str
    question: str
    answer: str
    expected: str = ""
    model: str = ""
    passed: bool | None = None
    score: float | None = None
    reason: str = ""
    error: str = ""


def judge_request(memory: JudgeMemory) -> LlmRequest:
    """The judge's request: the instructions, then the rubric, question, answer (and expected output).

    Example:
        >>> request = judge_request(JudgeMemory(rubric="Is it right?", question="2+2", answer="4"))
        >>> request.messages[1].content.splitlines()[0]
        'Rubric: Is it right?'
    """
    parts = [f"Rubric: {memory.rubric}", f"Question: {memory.question}", f"Answer: {memory.answer}"]
    if memory.expected:
        parts.append(f"Expected answer: {memory.expected}")
    return LlmRequest(
        model=memory.model,
        messages=(SystemMessage(_INSTRUCTIONS), UserMessage("\n".join(parts))),
        temperature=0.0,
        response_schema=GRADE_SCHEMA,
    )


def ask(memory: JudgeMemory) -> Result[Perform[LlmOutcome, JudgeMemory], Fault]:
    """ASKING: ask the model for a grade."""
    return perform(LlmCall(judge_request(memory), purpose="judge"), memory)


def _read(content: str) -> tuple[bool | None, float | None, str, str]:
    """(passed, score, reason, error) from the model's reply text."""
    text = content.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, None, "", f"the judge did not answer JSON ({exc.msg}): {content[:80]!r}"
    if not isinstance(data, dict):
        return None, None, "", f"the judge answered {type(data).__name__}, not an object"
    passed, score, reason = data.get("passed"), data.get("score"), data.get("reason", "")
    if not isinstance(passed, bool):
        return None, None, "", "the judge's answer has no boolean 'passed'"
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        score = float(passed)
    return passed, float(score), str(reason), ""


def graded(
    memory: JudgeMemory, outcome: LlmOutcome
) -> Result[tuple[Literal[JudgeEvent.GRADED], JudgeMemory], Fault]:
    """ASKING, on the reply: the grade (or why there is none: a failed call, an unreadable reply)."""
    if isinstance(outcome, LlmFailure):
        return emit(
            JudgeEvent.GRADED, attrs.evolve(memory, error=f"the judge's call failed: {outcome.message}")
        )
    passed, score, reason, error = _read(outcome.content)
    return emit(
        JudgeEvent.GRADED, attrs.evolve(memory, passed=passed, score=score, reason=reason, error=error)
    )


JUDGE_MACHINE: Machine[JudgeState, JudgeEvent, JudgeMemory] = define_machine(
    name="llm-judge",
    states=JudgeState,
    events=JudgeEvent,
    initial=JudgeState.ASKING,
    terminals={JudgeState.DONE},
    table={(JudgeState.ASKING, JudgeEvent.GRADED): JudgeState.DONE},
    handlers={JudgeState.ASKING: effectful(ask, graded)},
)
"""The judge: one LLM call, then DONE with the grade in its memory."""


def _text(value: object) -> str:
    if value is None:
        return ""
    shown = thaw(cast(JsonValue, value))  # frozen JSON thawed; anything else is left as it is
    return value if isinstance(value, str) else json.dumps(shown, sort_keys=True, default=str)


@attrs.frozen(kw_only=True)
class LlmJudge:
    """An evaluator that asks a model to grade the answer against ``rubric`` (through ``provider``).

    Its call is an effect of the evaluation: an experiment runs the judge durably next to
    the case's run, so a judged experiment replays exactly and resuming one asks no model twice.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> judge = LlmJudge(rubric="Names the capital of France.", provider=ScriptedLlm([]))
        >>> judge.name, judge.memory(Evidence(case="c", run_id="r", status="finished", state="DONE",
        ...                                   input="Capital of France?", answer="Paris")).question
        ('judge', 'Capital of France?')
    """

    rubric: str
    provider: AnyLlmProvider = attrs.field(eq=False, repr=False)
    model: str = ""
    name: str = "judge"
    spec: JsonObject | None = None
    """How a dataset file writes this judge (its provider as ``module:attribute``); None from Python."""

    def memory(self, evidence: Evidence) -> JudgeMemory:
        """The judge's start memory for one case's run."""
        question = getattr(evidence.input, "task", None) or getattr(evidence.input, "input", None)
        return JudgeMemory(
            rubric=self.rubric,
            question=_text(question if isinstance(question, str) else evidence.input),
            answer=_text(evidence.answer),
            expected=_text(evidence.expected),
            model=self.model,
        )


def judge_grade(name: str, memory: JudgeMemory) -> Grade:
    """The grade a finished judge's memory holds (a failed judge fails the case, saying why).

    Example:
        >>> judge_grade("judge", JudgeMemory(rubric="r", question="q", answer="a", passed=True, score=0.9,
        ...                                  reason="right")).score
        0.9
    """
    if memory.error or memory.passed is None:
        return Grade(evaluator=name, passed=False, label="judge error", reason=memory.error or "no grade")
    return Grade(evaluator=name, passed=memory.passed, score=memory.score, reason=memory.reason)
