"""Machines for the verifier's self-test: a clean baseline and one planted defect per property.

The baseline is a small plan-and-act agent: IDLE starts planning, PLAN (budgeted)
plans or runs out, ACT (effectful, failure event ERRORED) acts, finishes or fails.
Each ``defect_*`` function plants exactly one defect and returns the machine with
the one code the verifier must report.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import cast

import attrs
from returns.result import Result

from agentsm_fn import Fault, Handler, Machine, Pure, effectful, fail, pure
from agentsm_fn.agents.guardrails import GuardLog, OnTrip, guarding, guardrail, llm_guardrail
from tests.verification import team_machines
from verification import NeverReachable, PassesThrough, PathPolicy

AnyMachine = Machine[enum.Enum, enum.Enum, int]

BASE_STATES = ("IDLE", "PLAN", "ACT", "DONE", "FAILED")
BASE_EVENTS = (
    "START",
    "PLANNED",
    "ACTED",
    "FINISHED",
    "EXHAUSTED",
    "ERRORED",
    "DETOUR",
    "NEXT",
    "SHORTCUT",
    "APPROVED",
    "STALLED",
)
BASE_ROWS = (
    ("IDLE", "START", "PLAN"),
    ("PLAN", "PLANNED", "ACT"),
    ("PLAN", "EXHAUSTED", "FAILED"),
    ("ACT", "ACTED", "PLAN"),
    ("ACT", "FINISHED", "DONE"),
    ("ACT", "ERRORED", "FAILED"),
)
BASE_EMITS: dict[str, set[str]] = {
    "IDLE": {"START"},
    "PLAN": {"PLANNED", "EXHAUSTED"},
    "ACT": {"ACTED", "FINISHED", "ERRORED"},
}


def _never(n: int) -> Result[tuple[enum.Enum, int], Fault]:
    return fail("corpus handlers are never run")


def _never_receive(n: int, outcome: object) -> Result[tuple[enum.Enum, int], Fault]:
    return fail("corpus handlers are never run")


def _handler(
    events: type[enum.Enum], emits: Iterable[str] | None, failure: str | None, eff: bool
) -> Handler[enum.Enum, int]:
    declared = None if emits is None else {events[e] for e in emits}
    if eff:
        return effectful(
            _never,
            _never_receive,
            events=declared,
            failure_event=None if failure is None else events[failure],
        )
    if emits is None:
        return Pure(lambda n: fail("never run"))
    return pure(_never, events=declared)


def build(
    *,
    name: str,
    states: Iterable[str] = BASE_STATES,
    extra_states: Iterable[str] = (),
    rows: Iterable[tuple[str, str, str]] = BASE_ROWS,
    extra_rows: Iterable[tuple[str, str, str]] = (),
    emits: Mapping[str, set[str] | None] | None = None,
    terminals: Iterable[str] = ("DONE", "FAILED"),
    budgeted: Iterable[str] = ("PLAN",),
    effectful_states: Mapping[str, str | None] | None = None,
    without_handler: Iterable[str] = (),
    initial: str = "IDLE",
) -> AnyMachine:
    """A machine over fresh enums, built with the raw (non-validating) constructor."""
    all_states = (*states, *extra_states)
    S: type[enum.Enum] = enum.Enum(f"{name}_S", all_states)  # type: ignore[misc]  # dynamic enum
    E: type[enum.Enum] = enum.Enum(f"{name}_E", BASE_EVENTS)  # type: ignore[misc]  # dynamic enum
    emit_map: dict[str, set[str] | None] = {**BASE_EMITS, **(emits or {})}
    eff = {"ACT": "ERRORED"} if effectful_states is None else dict(effectful_states)
    terminal_set = set(terminals)
    handlers: dict[enum.Enum, Handler[enum.Enum, int]] = {}
    for s in all_states:
        if s in terminal_set or s in set(without_handler):
            continue
        handlers[S[s]] = _handler(E, emit_map.get(s, set()), eff.get(s), s in eff)
    table: dict[tuple[enum.Enum, enum.Enum], enum.Enum] = {
        (S[a], E[e]): S[b] for a, e, b in (*rows, *extra_rows)
    }
    return Machine(
        name=name,
        states=S,
        events=E,
        initial=S[initial],
        terminals=frozenset(S[t] for t in terminal_set),
        table=table,
        handlers=handlers,
        budgeted=frozenset(S[b] for b in budgeted),
    )


def clean() -> AnyMachine:
    return build(name="clean")


class Other(enum.Enum):
    GHOST = 1


def defect_sm001() -> AnyMachine:
    m = clean()
    return Machine(
        name="sm001",
        states=m.states,
        events=m.events,
        initial=Other.GHOST,
        terminals=m.terminals,
        table=m.table,
        handlers=m.handlers,
        budgeted=m.budgeted,
    )


def defect_sm006_undeclared_target() -> AnyMachine:
    m = build(name="sm006t", emits={"ACT": {"ACTED", "FINISHED", "ERRORED", "DETOUR"}})
    table = dict(m.table)
    table[(m.states["ACT"], m.events["DETOUR"])] = Other.GHOST
    return Machine(
        name="sm006t",
        states=m.states,
        events=m.events,
        initial=m.initial,
        terminals=m.terminals,
        table=table,
        handlers=m.handlers,
        budgeted=m.budgeted,
    )


def _policy_machine(shortcut: bool) -> AnyMachine:
    rows = [r for r in BASE_ROWS if r != ("PLAN", "PLANNED", "ACT")]
    rows += [("PLAN", "PLANNED", "APPROVE"), ("APPROVE", "APPROVED", "ACT")]
    emits: dict[str, set[str] | None] = {"APPROVE": {"APPROVED"}}
    if shortcut:
        rows.append(("PLAN", "SHORTCUT", "ACT"))
        emits["PLAN"] = {"PLANNED", "EXHAUSTED", "SHORTCUT"}
    return build(name="policy", extra_states=("APPROVE",), rows=rows, emits=emits)


APPROVAL = PassesThrough("PLAN", "ACT", "APPROVE")

_NO_LOG: GuardLog[int] = GuardLog(checks=lambda n: (), with_checks=lambda n, checks: n, visit=lambda n: 0)


def _odd(n: int) -> str | None:
    return "odd" if n % 2 else None


def _guarded_machine(name: str, *, stop_row: bool = True, refuse_event: bool = True) -> AnyMachine:
    """PLAN --PLANNED--> CHECK (guardrails: one refuses, one asked of an LLM stops) --APPROVED--> ACT."""
    rows = [r for r in BASE_ROWS if r != ("PLAN", "PLANNED", "ACT")]
    rows += [("PLAN", "PLANNED", "CHECK"), ("CHECK", "APPROVED", "ACT")]
    if refuse_event:
        rows.append(("CHECK", "DETOUR", "FAILED"))
    if stop_row:
        rows.append(("CHECK", "STALLED", "FAILED"))
    m = build(name=name, extra_states=("CHECK",), rows=rows, emits={"CHECK": {"APPROVED"}})
    events = m.events
    checks = guarding(
        "input",
        [guardrail("even", _odd), llm_guardrail("polite", "Be polite.", on_trip=OnTrip.STOP)],
        subjects=lambda n: (n,),
        log=_NO_LOG,
        passed=events["APPROVED"],
        refused=events["DETOUR"] if refuse_event else None,
        stopped=events["STALLED"],
    )
    return attrs.evolve(m, handlers={**m.handlers, m.states["CHECK"]: checks})


def defects() -> dict[str, tuple[AnyMachine, tuple[PathPolicy, ...]]]:
    """One planted defect per property: name -> (expected code, machine, policies)."""
    return {
        "SM001 initial undeclared": (defect_sm001(), ()),
        "SM002 unreachable state": (
            build(
                name="sm002",
                extra_states=("LOST",),
                extra_rows=(("LOST", "FINISHED", "DONE"),),
                emits={"LOST": {"FINISHED"}},
            ),
            (),
        ),
        "SM003 terminal with a row": (build(name="sm003", extra_rows=(("DONE", "START", "IDLE"),)), ()),
        "SM004 deadlock": (
            build(
                name="sm004",
                extra_states=("STUCK",),
                extra_rows=(("ACT", "STALLED", "STUCK"),),
                emits={"ACT": {"ACTED", "FINISHED", "ERRORED", "STALLED"}, "STUCK": set()},
            ),
            (),
        ),
        "SM005 livelock": (
            build(
                name="sm005",
                extra_states=("LOOP_A", "LOOP_B"),
                extra_rows=(
                    ("ACT", "DETOUR", "LOOP_A"),
                    ("LOOP_A", "NEXT", "LOOP_B"),
                    ("LOOP_B", "NEXT", "LOOP_A"),
                ),
                emits={
                    "ACT": {"ACTED", "FINISHED", "ERRORED", "DETOUR"},
                    "LOOP_A": {"NEXT"},
                    "LOOP_B": {"NEXT"},
                },
                budgeted=("PLAN", "LOOP_B"),
            ),
            (),
        ),
        "SM006 undeclared target": (defect_sm006_undeclared_target(), ()),
        "SM006 target without handler": (
            build(
                name="sm006h",
                extra_states=("NOHANDLER",),
                extra_rows=(("ACT", "DETOUR", "NOHANDLER"), ("NOHANDLER", "NEXT", "DONE")),
                emits={"ACT": {"ACTED", "FINISHED", "ERRORED", "DETOUR"}},
                without_handler=("NOHANDLER",),
            ),
            (),
        ),
        "SM007 dead row": (build(name="sm007", extra_rows=(("IDLE", "FINISHED", "DONE"),)), ()),
        "SM008 event without row": (
            build(name="sm008", emits={"ACT": {"ACTED", "FINISHED", "ERRORED", "DETOUR"}}),
            (),
        ),
        "SM009 unbudgeted cycle": (build(name="sm009", budgeted=()), ()),
        "SM010 no failure event": (build(name="sm010a", effectful_states={"ACT": None}), ()),
        "SM010 no failure row": (build(name="sm010b", rows=[r for r in BASE_ROWS if r[1] != "ERRORED"]), ()),
        "SM011 approval bypassed": (_policy_machine(shortcut=True), (APPROVAL,)),
        "SM012 forbidden state reached": (clean(), (NeverReachable("FAILED"),)),
        "SM013 unreadable events": (build(name="sm013", emits={"IDLE": None}), ()),
        "SM015 guardrail trip without row": (_guarded_machine("sm015r", stop_row=False), ()),
        "SM015 guardrail action without event": (_guarded_machine("sm015e", refuse_event=False), ()),
        "SM016 unmapped child terminal": (cast(AnyMachine, team_machines.PARENT_UNMAPPED), ()),
        "SM018 recursive child": (cast(AnyMachine, team_machines.RECURSIVE), ()),
    }


def cleans() -> dict[str, tuple[AnyMachine, tuple[PathPolicy, ...]]]:
    """Machines the verifier must accept."""
    return {
        "baseline": (clean(), ()),
        "approval kept": (_policy_machine(shortcut=False), (APPROVAL,)),
        "acyclic, no budget": (
            build(
                name="acyclic",
                rows=[r for r in BASE_ROWS if r[1] != "ACTED"],
                emits={"ACT": {"FINISHED", "ERRORED"}},
                budgeted=(),
            ),
            (),
        ),
        "guardrails routed": (_guarded_machine("guarded"), ()),
        "self-loop on a budgeted state": (
            build(
                name="selfloop",
                extra_rows=(("PLAN", "NEXT", "PLAN"),),
                emits={"PLAN": {"PLANNED", "EXHAUSTED", "NEXT"}},
            ),
            (),
        ),
    }
