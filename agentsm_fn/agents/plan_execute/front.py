"""The handlers before the loop: INTAKE, PLAN and DECIDE (each runs once per run).

* INTAKE normalizes the input, starts the message history and, when the policy
  has a time limit, reads the clock once (an effect, so replay needs no clock). In a
  thread whose earlier turns are over its context budget, it first asks the LLM to
  summarize the older ones (an effect too); a failed call, or a spent thread budget,
  drops them instead, so the planner's context is within the budget either way.
* PLAN makes one structured LLM call; the reply must be JSON that satisfies the
  planner's schema and the policy's plan rules, else ``invalid_plan``.
* DECIDE continues when the plan has steps and stops on an empty plan (rules),
  or asks the LLM for ``{continue, reason}``; the policy checks the decision.
"""

from __future__ import annotations

import unicodedata
from typing import Literal

import attrs
from returns.result import Failure, Result

from agentsm_fn.agents.plan_execute.config import DecideMode
from agentsm_fn.agents.plan_execute.effects import ReadClock
from agentsm_fn.agents.plan_execute.graph import Event, State
from agentsm_fn.agents.plan_execute.memory import Awaiting, PlanExecuteMemory
from agentsm_fn.agents.plan_execute.moves import Reading, advance, audit, finish, halt, summarized
from agentsm_fn.agents.plan_execute.policy import check_decision, check_plan, check_thread
from agentsm_fn.agents.plan_execute.prompts import decide_request, intake_compression_request, plan_request
from agentsm_fn.agents.plan_execute.steps import planner_schema
from agentsm_fn.agents.plan_execute.structured import parse_decision, parse_plan
from agentsm_fn.agents.plan_execute.values import HaltCause, HaltError, Plan, PlanDecision, cause_of
from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import perform
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.messages import UserMessage
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome, LlmReply

__all__ = [
    "decide_enter",
    "decide_receive",
    "intake_enter",
    "intake_receive",
    "normalize_input",
    "plan_enter",
    "plan_receive",
    "rule_decision",
]

Mem = PlanExecuteMemory
IntakeOut = Result[
    tuple[Literal[Event.NORMALIZED], Mem] | Perform[float | LlmOutcome | EffectFailure, Mem], Fault
]
PlanOut = Result[tuple[Literal[Event.VALID_PLAN, Event.INVALID_PLAN], Mem] | Perform[LlmOutcome, Mem], Fault]
DecideOut = Result[
    tuple[Literal[Event.CONTINUE, Event.STOP, Event.INVALID, Event.OUTPUT_INVALID], Mem]
    | Perform[LlmOutcome, Mem],
    Fault,
]


def normalize_input(text: str) -> str:
    r"""Unicode NFC, ``\n`` line ends, no control characters, no surrounding whitespace.

    Example:
        >>> normalize_input("  Find the best\r\nPDF library\x00 ")
        'Find the best\nPDF library'
    """
    unified = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    kept = "".join(c for c in unified if c in "\n\t" or unicodedata.category(c) != "Cc")
    return kept.strip()


def _normalized(mem: Mem) -> Result[tuple[Literal[Event.NORMALIZED], Mem], Fault]:
    return advance(Event.NORMALIZED, State.INTAKE, mem, "Input normalized")


def _clock_or_normalized(ready: Mem) -> IntakeOut:
    if ready.config.policy.time_limit_seconds is not None and ready.started_at is None:
        return perform(ReadClock(), attrs.evolve(ready, awaiting=Awaiting.CLOCK))
    return _normalized(ready)


def _compressed(mem: Mem, budget: int, summary: str, note: str) -> IntakeOut:
    thread = mem.conversation.compressed(summary, budget)
    done = attrs.evolve(mem, conversation=thread, awaiting=Awaiting.NOTHING)
    kept = f"{len(thread.messages)} earlier messages kept, {thread.summarized} summarized"
    return _clock_or_normalized(audit(done, State.INTAKE, "thread", f"{note}: {kept}"))


def intake_enter(mem: Mem) -> IntakeOut:
    """INTAKE: normalize the input, start the history; compress a long thread; read the clock if asked.

    Example:
        >>> ev, mem = intake_enter(PlanExecuteMemory(input=" hi ")).unwrap()
        >>> ev.name, mem.normalized_input, mem.messages[0].content
        ('NORMALIZED', 'hi', 'hi')
    """
    text = normalize_input(mem.input)
    ready = attrs.evolve(mem, normalized_input=text, messages=mem.messages.append(UserMessage(text)))
    ready = audit(ready, State.INTAKE, "intake", f"input normalized ({len(text)} characters)")
    budget = ready.config.thread.context
    if budget is not None and ready.conversation.over(budget):
        spent = check_thread(ready.config.thread, ready.conversation.usage + ready.usage)
        if spent is not None:
            return _compressed(
                ready, budget, "", "earlier turns dropped (no call: the thread's budget is spent)"
            )
        waiting = attrs.evolve(ready, awaiting=Awaiting.COMPRESSION)
        return perform(LlmCall(intake_compression_request(waiting, budget), purpose="compress"), waiting)
    return _clock_or_normalized(ready)


def intake_receive(mem: Mem, now: float | LlmOutcome | EffectFailure) -> IntakeOut:
    """INTAKE after the thread's compression or the clock reading.

    The summary replaces the older turns (a failed call drops them). A clock reading is
    when the run started; a clock that failed is noted in the audit log, and the time
    limit then starts at LOOP_CHECK's first reading.

    Example:
        >>> intake_receive(PlanExecuteMemory(input="x"), 12.0).unwrap()[1].started_at
        12.0
        >>> failed = EffectFailure.raised("ReadClock", OSError("no clock"))
        >>> intake_receive(PlanExecuteMemory(input="x"), failed).unwrap()[1].audit_log[-1].message
        'clock unavailable (performer raised OSError: no clock); the time limit starts at the next reading'
    """
    budget = mem.config.thread.context
    if mem.awaiting is Awaiting.COMPRESSION and budget is not None:
        if isinstance(now, LlmReply) and not now.is_tool_call:
            summed = attrs.evolve(mem, usage=mem.usage + now.usage)
            return _compressed(summed, budget, now.content, "earlier turns compressed")
        return _compressed(mem, budget, "", "earlier turns dropped (the compression call failed)")
    if isinstance(now, EffectFailure):
        note = f"clock unavailable ({now.problem()}); the time limit starts at the next reading"
        return _normalized(audit(mem, State.INTAKE, "clock", note))
    return _normalized(attrs.evolve(mem, started_at=now) if isinstance(now, float) else mem)


def _invalid_plan(
    mem: Mem, cause: HaltCause, message: str, *, llm_failure: LlmFailure | None = None, rule: str = ""
) -> PlanOut:
    error = HaltError(cause=cause, state=State.PLAN, message=message, llm_failure=llm_failure, rule=rule)
    return halt(Event.INVALID_PLAN, mem, error)


def plan_enter(mem: Mem) -> PlanOut:
    """PLAN: ask for the plan once, with the planner's schema as the response format.

    Example:
        >>> step = plan_enter(PlanExecuteMemory(input="x", normalized_input="x")).unwrap()
        >>> step.effect.purpose, step.memory.awaiting.name
        ('plan', 'PLAN')
    """
    if not mem.normalized_input:
        return _invalid_plan(mem, HaltCause.INVALID_PLAN, "the input is empty; there is nothing to plan")
    spent = check_thread(mem.config.thread, mem.conversation.usage + mem.usage)
    if spent is not None:
        return _invalid_plan(
            mem, spent.cause, f"the thread's token budget is spent: {spent.message}", rule=spent.rule
        )
    waiting = attrs.evolve(mem, awaiting=Awaiting.PLAN)
    return perform(LlmCall(plan_request(waiting), purpose="plan"), waiting)


def plan_receive(mem: Mem, outcome: LlmOutcome) -> PlanOut:
    """PLAN after the reply: valid JSON, the schema, the policy; else ``invalid_plan``.

    Example:
        >>> from agentsm_fn.llm.replies import LlmReply
        >>> mem = PlanExecuteMemory(input="x", normalized_input="x")
        >>> plan_receive(mem, LlmReply(content="no plan, sorry")).unwrap()[0].name
        'INVALID_PLAN'
    """
    if isinstance(outcome, LlmFailure):
        message = f"the planner call failed: {outcome.describe()}"
        return _invalid_plan(mem, cause_of(outcome), message, llm_failure=outcome)
    mem = attrs.evolve(mem, usage=mem.usage + outcome.usage)
    parsed = parse_plan(outcome.content, planner_schema(mem.config), mem.normalized_input)
    if isinstance(parsed, Failure):
        return _invalid_plan(mem, HaltCause.INVALID_PLAN, parsed.failure())
    plan = parsed.unwrap()
    violation = check_plan(mem.config.policy, plan, mem.config.tool_names)
    if violation is not None:
        message = f"the policy rejects the plan: {violation.message}"
        return _invalid_plan(mem, HaltCause.INVALID_PLAN, message, rule=violation.rule)
    planned = audit(
        attrs.evolve(mem, plan=plan),
        State.PLAN,
        "plan",
        f"plan created: {len(plan.initial_steps)} steps, capabilities {list(plan.required_capabilities)}",
    )
    return advance(Event.VALID_PLAN, State.PLAN, planned, "Plan created")


def rule_decision(plan: Plan) -> PlanDecision:
    """The rule-based decision: continue when the plan has steps, stop when it is empty.

    Example:
        >>> rule_decision(Plan(goal="g")).reason
        'the plan has no steps'
    """
    if plan.is_empty:
        return PlanDecision(proceed=False, reason="the plan has no steps")
    return PlanDecision(proceed=True, reason=f"the plan has {len(plan.initial_steps)} steps")


def _invalid_decision(mem: Mem, error: HaltError) -> DecideOut:
    return halt(Event.INVALID, mem, error)


def _apply(mem: Mem, plan: Plan, decision: PlanDecision, result: Reading) -> DecideOut:
    decided = audit(
        attrs.evolve(mem, decision=decision),
        State.DECIDE,
        "decision",
        f"{'continue' if decision.proceed else 'stop'}: {decision.reason}",
    )
    violation = check_decision(decided.config.policy, plan, decision)
    if violation is not None:
        message = f"the policy rejects the decision: {violation.message}"
        error = HaltError(
            cause=HaltCause.POLICY_VIOLATION, state=State.DECIDE, message=message, rule=violation.rule
        )
        return _invalid_decision(decided, error)
    if decision.proceed:
        return advance(Event.CONTINUE, State.DECIDE, decided, f"Decided to continue: {decision.reason}")
    return finish(Event.STOP, State.DECIDE, decided, decision.reason, "decide_stop", result)


def decide_enter(mem: Mem, result: Reading = None) -> DecideOut:
    """DECIDE: decide by rules, or ask the LLM for ``{continue, reason}`` (``result``: see ``finalized``).

    Example:
        >>> from agentsm_fn.agents.plan_execute.values import Plan
        >>> mem = PlanExecuteMemory(input="x", plan=Plan(goal="g", initial_steps=("a",)))
        >>> decide_enter(mem).unwrap()[0].name
        'CONTINUE'
    """
    plan = mem.plan
    if plan is None:
        error = HaltError(cause=HaltCause.INVALID_DECISION, state=State.DECIDE, message="there is no plan")
        return _invalid_decision(mem, error)
    if mem.config.decider.mode is DecideMode.LLM:
        waiting = attrs.evolve(mem, awaiting=Awaiting.DECISION)
        return perform(LlmCall(decide_request(waiting, plan), purpose="decide"), waiting)
    return _apply(mem, plan, rule_decision(plan), result)


def decide_receive(mem: Mem, outcome: LlmOutcome, result: Reading = None) -> DecideOut:
    """DECIDE after the LLM's decision (or after the summary call of a stop).

    Example:
        >>> from agentsm_fn.agents.plan_execute.values import Plan
        >>> from agentsm_fn.llm.replies import LlmReply
        >>> mem = PlanExecuteMemory(input="x", plan=Plan(goal="g", initial_steps=("a",)))
        >>> decide_receive(mem, LlmReply(content='{"continue": "yes"}')).unwrap()[0].name
        'INVALID'
    """
    if mem.awaiting is Awaiting.SUMMARY:
        return summarized(Event.STOP, State.DECIDE, mem, outcome, result)
    plan = mem.plan
    if plan is None:
        error = HaltError(cause=HaltCause.INVALID_DECISION, state=State.DECIDE, message="there is no plan")
        return _invalid_decision(mem, error)
    if isinstance(outcome, LlmFailure):
        error = HaltError(
            cause=cause_of(outcome),
            state=State.DECIDE,
            message=f"the decision call failed: {outcome.describe()}",
            llm_failure=outcome,
        )
        return _invalid_decision(mem, error)
    mem = attrs.evolve(mem, usage=mem.usage + outcome.usage)
    parsed = parse_decision(outcome.content)
    if isinstance(parsed, Failure):
        error = HaltError(cause=HaltCause.INVALID_DECISION, state=State.DECIDE, message=parsed.failure())
        return _invalid_decision(mem, error)
    return _apply(mem, plan, parsed.unwrap(), result)
