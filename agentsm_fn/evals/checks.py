"""The deterministic evaluators: the answer (equals, contains, a pattern, a JSON Schema) and the run.

Answer checks read :attr:`Evidence.answer`; run checks read the recorded run: its status,
its steps, its tokens, its seconds, the states it entered and the tools it called (read
from the effects its steps asked for, replayed from the journal). None performs anything.
"""

from __future__ import annotations

import json
import re
from typing import cast

import jsonschema

from agentsm_fn.core.effects import Effect
from agentsm_fn.evals.check import Check
from agentsm_fn.evals.evidence import Evidence
from agentsm_fn.evals.grades import Grade
from agentsm_fn.evals.tool_calls import tools_called
from agentsm_fn.llm.json import JsonObject, JsonValue, freeze, freeze_object, thaw

__all__ = [
    "answer_schema",
    "at_most_seconds",
    "at_most_steps",
    "at_most_tokens",
    "contains",
    "equals_expected",
    "matches",
    "never_reached",
    "no_failure",
    "reached",
    "tool_called",
    "tool_never_called",
]


def _spec(kind: str, value: JsonValue) -> JsonObject:
    return freeze_object({kind: value})


def _text(answer: JsonValue) -> str:
    if answer is None:
        return ""
    return answer if isinstance(answer, str) else json.dumps(thaw(answer), sort_keys=True)


def _short(value: JsonValue, most: int = 60) -> str:
    shown = _text(value)
    return shown if len(shown) <= most else shown[: most - 1] + "…"


def equals_expected(*, strip: bool = True) -> Check:
    """The answer equals the case's expected output (text, or JSON compared as values).

    A case without an expected output is not graded by it (no pass, no fail).

    Example:
        >>> e = Evidence(case="c", run_id="r", status="finished", state="DONE", answer=" 4 ", expected="4")
        >>> equals_expected().grade(e).passed
        True
    """
    name = "equals expected"

    def judge(e: Evidence) -> Grade:
        if e.expected is None:
            return Grade(evaluator=name, label="no expected output", reason="the case gives none")
        answer, expected = e.answer, e.expected
        if isinstance(answer, str) and isinstance(expected, str):
            same = (answer.strip() == expected.strip()) if strip else answer == expected
        else:
            same = freeze(thaw(answer) if answer is not None else None) == freeze(thaw(expected))
        why = "" if same else f"expected {_short(expected)!s}, got {_short(answer)!s}"
        return Grade(evaluator=name, passed=same, reason=why)

    return Check(name=name, judge=judge, spec=freeze_object({"equals_expected": True}))


def contains(text: str, *, case_sensitive: bool = False) -> Check:
    """The answer contains ``text`` (ignoring case unless ``case_sensitive``).

    Example:
        >>> e = Evidence(case="c", run_id="r", status="finished", state="DONE", answer="It is PARIS.")
        >>> contains("Paris").grade(e).passed
        True
    """
    name = f"contains {text!r}"

    def judge(e: Evidence) -> Grade:
        answer = _text(e.answer)
        found = text in answer if case_sensitive else text.casefold() in answer.casefold()
        return Grade(evaluator=name, passed=found, reason="" if found else f"not in {_short(e.answer)!s}")

    return Check(name=name, judge=judge, spec=_spec("contains", text))


def matches(pattern: str) -> Check:
    r"""The answer matches the regular expression ``pattern`` somewhere (``re.search``).

    Example:
        >>> e = Evidence(case="c", run_id="r", status="finished", state="DONE", answer="total: 42")
        >>> matches(r"\d+").grade(e).passed
        True
    """
    compiled = re.compile(pattern)
    name = f"matches /{pattern}/"

    def judge(e: Evidence) -> Grade:
        found = compiled.search(_text(e.answer)) is not None
        return Grade(
            evaluator=name, passed=found, reason="" if found else f"no match in {_short(e.answer)!s}"
        )

    return Check(name=name, judge=judge, spec=_spec("regex", pattern))


def answer_schema(schema: JsonValue, *, name: str = "answer schema") -> Check:
    """The answer (JSON, or text holding JSON) is valid against the JSON Schema ``schema``.

    Example:
        >>> e = Evidence(case="c", run_id="r", status="finished", state="DONE", answer='{"n": 1}')
        >>> answer_schema({"type": "object", "required": ["n"]}).grade(e).passed
        True
    """
    plain = cast(dict[str, object], thaw(schema))  # a schema is a JSON object (jsonschema checks it)
    jsonschema.validators.validator_for(plain).check_schema(plain)  # a bad schema: an error where it is made
    validator = jsonschema.validators.validator_for(plain)(plain)

    def judge(e: Evidence) -> Grade:
        answer: object = thaw(e.answer) if e.answer is not None else None
        if isinstance(answer, str):
            try:
                answer = json.loads(answer)
            except json.JSONDecodeError as exc:
                return Grade(evaluator=name, passed=False, reason=f"the answer is not JSON: {exc}")
        problem = jsonschema.exceptions.best_match(validator.iter_errors(cast(JsonValue, answer)))
        if problem is None:
            return Grade(evaluator=name, passed=True)
        where = "/".join(str(p) for p in problem.absolute_path) or "(the answer)"
        return Grade(evaluator=name, passed=False, reason=f"{where}: {problem.message}")

    return Check(name=name, judge=judge, spec=_spec("answer_schema", schema))


def _effects(e: Evidence) -> tuple[Effect[object], ...]:
    return tuple(effect for t in e.transitions() for effect in t.effects)


def tool_called(tool: str) -> Check:
    """The run called the tool ``tool`` at least once (an effect that ran it was performed).

    Example:
        >>> tool_called("search").name
        "tool 'search' called"
    """
    name = f"tool {tool!r} called"

    def judge(e: Evidence) -> Grade:
        called = tools_called(_effects(e))
        ok = tool in called
        return Grade(evaluator=name, passed=ok, reason="" if ok else f"called: {', '.join(called) or 'none'}")

    return Check(name=name, judge=judge, spec=_spec("tool_called", tool))


def tool_never_called(tool: str) -> Check:
    """The run never called the tool ``tool``.

    Example:
        >>> tool_never_called("delete_account").name
        "tool 'delete_account' never called"
    """
    name = f"tool {tool!r} never called"

    def judge(e: Evidence) -> Grade:
        times = tools_called(_effects(e)).count(tool)
        return Grade(evaluator=name, passed=times == 0, reason=f"called {times} time(s)" if times else "")

    return Check(name=name, judge=judge, spec=_spec("tool_never_called", tool))


def _entered(e: Evidence) -> tuple[str, ...]:
    return tuple(t.target.name for t in e.transitions())


def reached(state: str) -> Check:
    """The run entered the state named ``state``.

    Example:
        >>> reached("DONE").name
        'reached DONE'
    """
    name = f"reached {state}"

    def judge(e: Evidence) -> Grade:
        ok = state in _entered(e) or e.state == state
        return Grade(evaluator=name, passed=ok, reason="" if ok else f"stopped in {e.state}")

    return Check(name=name, judge=judge, spec=_spec("reached", state))


def never_reached(state: str) -> Check:
    """The run never entered the state named ``state``.

    Example:
        >>> never_reached("ERROR").name
        'never reached ERROR'
    """
    name = f"never reached {state}"

    def judge(e: Evidence) -> Grade:
        steps = [t.index for t in e.transitions() if t.target.name == state]
        return Grade(evaluator=name, passed=not steps, reason=f"entered at step {steps[0]}" if steps else "")

    return Check(name=name, judge=judge, spec=_spec("never_reached", state))


def at_most_steps(limit: int) -> Check:
    """The run took at most ``limit`` transitions.

    Example:
        >>> run = Evidence(case="c", run_id="r", status="finished", state="D", steps=5)
        >>> at_most_steps(3).grade(run).reason
        '5 steps'
    """
    name = f"at most {limit} steps"
    return Check(
        name=name,
        judge=lambda e: Grade(evaluator=name, passed=e.steps <= limit, reason=f"{e.steps} steps"),
        spec=_spec("max_steps", limit),
    )


def at_most_tokens(limit: int) -> Check:
    """The run's LLM replies used at most ``limit`` tokens (input and output).

    Example:
        >>> at_most_tokens(1000).name
        'at most 1000 tokens'
    """
    name = f"at most {limit} tokens"

    def judge(e: Evidence) -> Grade:
        used = e.usage.total_tokens
        return Grade(evaluator=name, passed=used <= limit, reason=f"{used} tokens")

    return Check(name=name, judge=judge, spec=_spec("max_tokens", limit))


def at_most_seconds(limit: float) -> Check:
    """The run took at most ``limit`` seconds by its recorded clock (first to last reading).

    Example:
        >>> at_most_seconds(2.5).name
        'at most 2.5 seconds'
    """
    name = f"at most {limit:g} seconds"

    def judge(e: Evidence) -> Grade:
        return Grade(evaluator=name, passed=e.seconds <= limit, reason=f"{e.seconds:.3f} s")

    return Check(name=name, judge=judge, spec=_spec("max_seconds", limit))


def no_failure() -> Check:
    """The run finished, and did not fail (a machine failure, or an agent that ended in its error state).

    Example:
        >>> no_failure().grade(Evidence(case="c", run_id="r", status="failed", state="ERROR",
        ...                             failure="budget spent")).reason
        'failed: budget spent'
    """
    name = "no failure"

    def judge(e: Evidence) -> Grade:
        if e.ok:
            return Grade(evaluator=name, passed=True)
        return Grade(evaluator=name, passed=False, reason=f"{e.status}: {e.failure or e.state}")

    return Check(name=name, judge=judge, spec=freeze_object({"no_failure": True}))
