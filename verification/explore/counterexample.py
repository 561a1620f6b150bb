"""Private: the shortest run that breaks a rule, as a replayable script and as a pytest test to paste.

:class:`Counterexample` is what :func:`~verification.explore.explore` returns when a rule breaks;
:func:`counterexample` builds it from the search's nodes and replays it with the engine to check
that the same rule breaks the same way.
"""

from __future__ import annotations

import enum
import itertools
import textwrap
from typing import Generic, TypeVar

import attrs

from verification.explore._code import Source
from verification.explore._search import Found, Search
from verification.kit._render import short
from verification.kit._rules import RunRules, ViolationKind
from verification.kit._runner import PathStep, RunViolation
from verification.kit.invariants import MemoryInvariant, TransitionInvariant
from verification.kit.scripts import ScriptedCase, run_case

__all__ = ["Counterexample", "counterexample"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Counterexample(Generic[StateT, EventT, MemoryT]):
    """The shortest run found that breaks a rule: what broke, and the run as a replayable script.

    ``case`` is a :class:`~verification.kit.ScriptedCase` (start, rows, outcomes fed in order):
    :func:`~verification.kit.run_case` replays it with the engine and raises the same
    :class:`~verification.kit.RunViolation`. ``path`` is the run as the kit prints it.
    """

    kind: ViolationKind
    message: str
    case: ScriptedCase[StateT, EventT, MemoryT]
    path: tuple[PathStep, ...]
    reproduced: bool
    """Whether replaying ``case`` with the engine broke the same rule (always, unless the explorer errs)."""
    initial: bool = True
    """Whether the run starts in the machine's initial state (else in an ``entries=`` state)."""

    def violation(self) -> RunViolation:
        """The :class:`~verification.kit.RunViolation` this run raises (message included)."""
        where = "" if self.initial else f" in {self.case.state.name}"
        return RunViolation(self.kind, self.message, short(self.case.memory, 600) + where, self.path)

    def render(self) -> str:
        """The broken rule and the run, one numbered ``STATE --EVENT--> STATE`` line per step."""
        return str(self.violation())

    def as_test(
        self,
        machine: str,
        *,
        invariants: str | None = None,
        properties: str | None = None,
        budget: str | None = None,
        name: str = "test_explored_counterexample",
    ) -> str:
        """A pytest test that replays this run with the engine and fails as it did.

        Each argument names where to import from, ``module:attribute`` (the machine, and the
        invariants, run properties and budget the exploration was given).
        """
        code = Source()
        code.imports.add(("verification.kit", "ScriptedCase"))
        code.imports.add(("verification.kit", "run_case"))
        rows = [
            f"            ({code.value(s)}, {code.value(e)}, {code.value(t)})," for s, e, t in self.case.rows
        ]
        fields = [
            f"        state={code.value(self.case.state)},",
            f"        memory={code.value(self.case.memory)},",
            "        rows=(",
            *rows,
            "        ),",
            f"        outcomes={code.value(self.case.outcomes)},",
        ]
        extra = [code.spec(invariants)] if invariants else []
        extra += [f"properties={code.spec(properties)}"] if properties else []
        extra += [f"budget={code.spec(budget)}"] if budget else []
        call = ", ".join([code.spec(machine), "case", *extra])
        doubt = [f"    # written with repr(), check it: {u}" for u in code.unsure]
        said = textwrap.wrap(f"[{self.kind}] {self.message.splitlines()[0]}", 100)
        paths = [
            f"# {folder}/ must be on sys.path (pytest's pythonpath setting)"
            for folder in sorted(code.folders)
        ]
        return "\n".join(
            [
                *paths,
                *code.import_lines(),
                "",
                "",
                f"def {name}() -> None:",
                '    """The shortest run exploration found that breaks a rule (it raises RunViolation)."""',
                *(f"    # {line}" for line in said),
                *doubt,
                "    case = ScriptedCase(",
                *fields,
                "    )",
                f"    run_case({call})",
                "",
            ]
        )


_Step = tuple[StateT, EventT | None, StateT, tuple[object, ...]]


def counterexample(
    search: Search[StateT, EventT, MemoryT],
    found: Found[StateT, EventT],
    rules: RunRules[StateT, EventT, MemoryT],
) -> Counterexample[StateT, EventT, MemoryT]:
    """The run to ``found`` as a script, and its path as the engine's replay of it prints it."""
    nodes = search.chain(found.node)
    steps: list[_Step[StateT, EventT]] = [
        (search.state[b], search.event[a], search.state[a], search.fed[a])
        for b, a in itertools.pairwise(nodes)
    ]
    if found.event is not None and found.target is not None:
        steps.append((search.state[found.node], found.event, found.target, found.outcomes))
    outcomes = [o for *_, given in steps for o in given]
    if found.event is None:  # the failing step took no row: its outcomes end the script
        outcomes.extend(found.outcomes)
    case = ScriptedCase(
        state=search.state[nodes[0]],
        memory=search.memory[nodes[0]],
        rows=tuple((s, e, t) for s, e, t, _ in steps if e is not None),
        outcomes=tuple(outcomes),
    )
    kind, message = found.broken
    invariants: list[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = [
        *rules.memory_invariants,
        *rules.transition_invariants,
    ]
    path, same = _own_path(steps), False
    try:
        run_case(
            rules.machine,
            case,
            invariants,
            budget=rules.budget,
            properties=rules.properties,
            accept_failure=rules.accept_failure,
        )
    except RunViolation as replayed:
        same = (replayed.kind, str(replayed).splitlines()[0]) == (kind, f"[{kind}] {message.splitlines()[0]}")
        path = replayed.path if same else path
    except AssertionError:
        pass
    initial = case.state is rules.machine.initial
    return Counterexample(kind=kind, message=message, case=case, path=path, reproduced=same, initial=initial)


def _own_path(steps: list[_Step[StateT, EventT]]) -> tuple[PathStep, ...]:
    """The run as the explorer took it (shown only if the engine's replay disagrees: a bug to report)."""
    return tuple(
        PathStep(
            index=n,
            source=s.name,
            event="?" if e is None else e.name,
            target=t.name,
            outcomes=tuple(short(o) for o in fed),
        )
        for n, (s, e, t, fed) in enumerate(steps, start=1)
    )
