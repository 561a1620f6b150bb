"""Property tests of PLAN_EXECUTE_MACHINE with the kit: generated configs, inputs and outcomes.

Every run must follow the table, stay within the step bound the verifier derives
from the budgeted EXECUTE state, and keep the invariants below; every row must be
taken by some run.
"""

from __future__ import annotations

import json

import attrs
from hypothesis import strategies as st
from pyrsistent import pvector

from agentsm_fn.agents.output import OutputSpec
from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    DecideMode,
    DeciderConfig,
    FinalizerConfig,
    Plan,
    PlanExecuteConfig,
    PlanExecuteMemory,
    PlanExecutePolicy,
    PlanExecuteToolResult,
    ReadClock,
    RunTools,
    State,
    ToolBatch,
)
from agentsm_fn.llm import (
    LlmCall,
    LlmFailure,
    LlmFailureKind,
    LlmReply,
    ToolCall,
    ToolSpec,
    Usage,
    UserMessage,
    estimate_tokens,
)
from verification.kit import (
    MemoryInvariant,
    Transition,
    TransitionInvariant,
    append_only,
    check_machine,
    cleared_in,
    default_outcomes,
    kit_settings,
    llm_outcomes_for,
    memory_invariant,
    only_changed_in,
    transition_invariant,
)
from verification.kit.thread_strategies import thread_budgets, threads

from .helpers import READ_SPEC, SEARCH_SPEC

FINAL = ToolSpec("final_answer", "Give the final answer", {"type": "object"})
TOOLS = ("search", "read", "final_answer")
USAGE = Usage(input_tokens=10, output_tokens=5)
ACK = OutputSpec(
    name="Ack", schema={"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}
)

strict_policies = st.builds(
    PlanExecutePolicy,
    forbidden_tools=st.sets(st.sampled_from(TOOLS), max_size=1),
    max_tool_calls=st.none() | st.integers(0, 4),
    max_tool_calls_per_turn=st.none() | st.integers(0, 2),
    max_total_tokens=st.none() | st.integers(0, 200),
    time_limit_seconds=st.none() | st.floats(0, 100),
    max_plan_steps=st.none() | st.integers(0, 3),
    require_known_capabilities=st.booleans(),
    halt_on_tool_error=st.booleans(),
)
policies = st.one_of(
    st.just(PlanExecutePolicy()),
    st.just(PlanExecutePolicy(halt_on_tool_error=False)),
    st.just(PlanExecutePolicy(time_limit_seconds=1e9)),
    strict_policies,
)
configs = st.builds(
    PlanExecuteConfig,
    policy=policies,
    decider=st.sampled_from([DeciderConfig(), DeciderConfig(), DeciderConfig(mode=DecideMode.LLM)]),
    finalizer=st.builds(FinalizerConfig, summarize=st.booleans(), max_output_retries=st.integers(0, 2)),
    tools=st.just((SEARCH_SPEC, READ_SPEC, FINAL)),
    finish_tools=st.sampled_from([frozenset(), frozenset({"final_answer"})]),
    thread=thread_budgets(),
)
memories = st.builds(
    PlanExecuteMemory,
    input=st.sampled_from(["Find the best PDF library for Ruby", "  ", "x"]) | st.text(max_size=20),
    config=configs,
    max_iterations=st.integers(0, 4) | st.integers(2, 4),
    conversation=threads(),  # some runs are a thread's later turns
    output=st.none() | st.just(ACK),  # half the runs ask for a typed result
)


def _plan(steps: list[str], capabilities: list[str]) -> str:
    return json.dumps({"goal": "g", "required_capabilities": capabilities, "initial_steps": steps})


def _plans() -> st.SearchStrategy[object]:
    valid = st.builds(
        _plan,
        st.lists(st.sampled_from(["search", "read"]), max_size=3),
        st.lists(st.sampled_from((*TOOLS, "fly")), max_size=2),
    )
    junk = st.sampled_from(["not json", "[]", '{"goal": 3}', '{"goal": "g", "extra": 1}']) | st.text(
        max_size=20
    )
    replies = st.builds(
        lambda text: LlmReply(content=text, usage=USAGE), st.one_of(valid, valid, valid, junk)
    )
    return st.one_of(replies, replies, replies, st.just(LlmFailure(kind=LlmFailureKind.TIMEOUT, message="t")))


def _decisions() -> st.SearchStrategy[object]:
    good = st.builds(
        lambda go, why: json.dumps({"continue": go, "reason": why}), st.booleans(), st.text(max_size=8)
    )
    text = good | good | st.sampled_from(['{"continue": 1}', "yes"])
    replies = st.builds(lambda t: LlmReply(content=t, usage=USAGE), text)
    return st.one_of(replies, replies, st.just(LlmFailure(kind=LlmFailureKind.CONNECTION, message="c")))


def _chat(call: LlmCall) -> st.SearchStrategy[object]:
    names = [t.name for t in call.request.tools] or ["search"]
    calls = st.lists(
        st.builds(lambda n, i: ToolCall(f"c{i}", n, {}), st.sampled_from(names), st.integers(0, 9)),
        min_size=1,
        max_size=2,
    )
    tool_turns = calls.map(lambda cs: LlmReply(tool_calls=tuple(cs), usage=USAGE))
    texts = ["Prawn is the best.", "Done.", '{"ok": true}', '{"ok": "yes"}']
    answers = st.sampled_from(texts).map(lambda t: LlmReply(content=t, usage=USAGE))
    return st.one_of(tool_turns, tool_turns, answers, llm_outcomes_for(call))


def llm_strategy(call: LlmCall) -> st.SearchStrategy[object]:
    if call.purpose == "plan":
        return _plans()
    if call.purpose == "decide":
        return _decisions()
    return _chat(call)


def llm_examples(call: LlmCall) -> tuple[object, ...]:
    failed = LlmFailure(kind=LlmFailureKind.HTTP_STATUS, status=500, message="server error")
    if call.purpose == "plan":
        texts = [
            _plan(["search", "read"], ["search"]),
            _plan([], []),
            "not json",
            _plan(["a", "b", "c", "d"], ["fly"]),
        ]
        return (*(LlmReply(content=t, usage=USAGE) for t in texts), failed)
    if call.purpose == "decide":
        texts = ['{"continue": true, "reason": "go"}', '{"continue": false, "reason": "no"}', "maybe"]
        return (*(LlmReply(content=t, usage=USAGE) for t in texts), failed)
    calls = [
        LlmReply(tool_calls=(ToolCall(f"c_{t.name}", t.name, {}),), usage=USAGE) for t in call.request.tools
    ]
    typed = LlmReply(content='{"ok": true}', usage=USAGE)
    return (LlmReply(content="Prawn.", usage=USAGE), typed, *calls, LlmReply(content=""), failed)


def tool_batches(effect: RunTools) -> st.SearchStrategy[object]:
    def batch(errors: list[bool]) -> ToolBatch:
        return ToolBatch(
            tuple(
                PlanExecuteToolResult(
                    call_id=c.id, name=c.name, content="oops" if bad else "ok", is_error=bad
                )
                for c, bad in zip(effect.calls, errors, strict=True)
            )
        )

    n = len(effect.calls)
    errors = st.lists(st.booleans(), min_size=n, max_size=n)
    return st.one_of(st.just([False] * n), st.just([False] * n), errors).map(batch)


def tool_examples(effect: RunTools) -> tuple[object, ...]:
    ok = ToolBatch(
        tuple(PlanExecuteToolResult(call_id=c.id, name=c.name, content="ok") for c in effect.calls)
    )
    bad = ToolBatch(
        tuple(
            PlanExecuteToolResult(call_id=c.id, name=c.name, content="x", is_error=True) for c in effect.calls
        )
    )
    return ok, bad


OUTCOMES = (
    default_outcomes()
    .on(LlmCall, llm_strategy, examples=llm_examples)
    .on(RunTools, tool_batches, examples=tool_examples)
    .on(ReadClock, lambda _e: st.floats(0, 1e4), examples=lambda _e: (0.0, 1e6))
)

Step = Transition[State, PlanExecuteMemory]


def _tools_only_in_observe(t: Step) -> bool:
    return all(not isinstance(e, RunTools) or t.source is State.OBSERVE for e in t.effects)


def _tool_offers_only_in_execute(t: Step) -> bool:
    offered = [e for e in t.effects if isinstance(e, LlmCall) and e.request.tools]
    return all(t.source is State.EXECUTE and e.purpose == "execute" for e in offered)


def _no_forbidden_tool_runs(t: Step) -> bool:
    runs = [e for e in t.effects if isinstance(e, RunTools)]
    policy = t.before.config.policy
    return all(policy.permits(c.name) for e in runs for c in e.calls)


def _ends_are_explained(t: Step) -> bool:
    if t.target is State.HALT:
        return t.after.error is not None and t.after.pending_tool_calls == ()
    if t.target is State.FINALIZE:
        return t.after.final_result is not None and t.after.error is None
    return t.after.error is None


def _planner_context_within_budget(t: Step) -> bool:
    budget = t.before.config.thread.context
    plans = [e for e in t.effects if isinstance(e, LlmCall) and e.purpose == "plan"]
    return budget is None or all(sum(map(estimate_tokens, e.request.messages[:-1])) <= budget for e in plans)


def _history_records_the_step(t: Step) -> bool:
    last = t.after.history[-1]
    grew = len(t.after.history) == len(t.before.history) + 1
    return grew and (last.source, last.event, last.target) == (t.source, t.event, t.target)


INVARIANTS: list[MemoryInvariant[PlanExecuteMemory] | TransitionInvariant[State, PlanExecuteMemory]] = [
    memory_invariant("iteration <= max_iterations", lambda m: m.iteration <= m.max_iterations),
    memory_invariant(
        "tool calls within the policy",
        lambda m: (
            m.config.policy.max_tool_calls is None or m.tool_calls_made <= m.config.policy.max_tool_calls
        ),
    ),
    transition_invariant("tools run only in OBSERVE", _tools_only_in_observe),
    transition_invariant("tools are offered only by EXECUTE", _tool_offers_only_in_execute),
    transition_invariant("a forbidden tool never runs", _no_forbidden_tool_runs),
    transition_invariant("HALT has an error, FINALIZE a result", _ends_are_explained),
    transition_invariant("every step is in the FSM history", _history_records_the_step),
    append_only("history", lambda m: m.history),
    append_only("audit_log", lambda m: m.audit_log),
    append_only("messages", lambda m: m.messages),
    append_only("observations", lambda m: m.observations),
    only_changed_in("observations", lambda m: m.observations, {State.OBSERVE}),
    only_changed_in("plan", lambda m: m.plan, {State.PLAN}),
    only_changed_in("conversation", lambda m: m.conversation, {State.INTAKE}),
    transition_invariant("the planner's earlier turns are within budget", _planner_context_within_budget),
    cleared_in("pending_tool_calls", lambda m: m.pending_tool_calls, {State.OBSERVE}, empty=()),
]


def _mid_run(mem: PlanExecuteMemory, state: State, tools: bool) -> tuple[State, PlanExecuteMemory]:
    """A run that has been planned and decided, entered at ``state`` (a quarter of runs)."""
    plan = Plan(goal=mem.input, initial_steps=("search", "read"))
    pending = (ToolCall("c1", "search", {}),) if tools else ()
    planned = attrs.evolve(
        mem,
        normalized_input=mem.input,
        plan=plan,
        messages=pvector([UserMessage(mem.input)]),
        iteration=min(1, mem.max_iterations),
        pending_tool_calls=pending,
    )
    return state, planned


entries = st.builds(
    _mid_run,
    memories,
    st.sampled_from([State.EXECUTE, State.OBSERVE, State.LOOP_CHECK]),
    st.booleans(),
).filter(lambda entry: entry[0] is not State.OBSERVE or entry[1].pending_tool_calls != ())


def test_every_run_follows_the_table_within_the_bound_and_keeps_the_invariants() -> None:
    report = check_machine(
        PLAN_EXECUTE_MACHINE,
        memories,
        entries=entries,
        invariants=INVARIANTS,
        outcomes=OUTCOMES,
        budget=lambda m: m.max_iterations + 1,
        settings=kit_settings("ci", max_examples=25),
        require_all_transitions=False,  # the branch tests take every row; here a Hypothesis upgrade may shift
    )
    assert report.row_coverage >= 0.8, report.summary()
