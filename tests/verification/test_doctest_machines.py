"""The tiny machines the verifier's doctests share (verification/_examples.py).

They have the shapes their docstring draws, the verifier says what the doctests rely
on, and no doctest builds one of them again inline.
"""

from __future__ import annotations

import enum
import re
from pathlib import Path
from typing import TypeVar

from agentsm_fn import Machine
from verification import _examples
from verification._examples import ONE_STEP, PLAN_ACT, RETRY
from verification.verify import verify

ROOT = Path(__file__).resolve().parents[2]


StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)


def _rows(machine: Machine[StateT, EventT, int]) -> set[tuple[str, str, str]]:
    return {(s.name, e.name, t.name) for (s, e), t in machine.table.items()}


def _violations(machine: Machine[StateT, EventT, int]) -> tuple[bool, list[str]]:
    """Whether the machine is proved sound, and what the verifier says once its budget is removed."""
    report = verify(machine)
    return report.ok and report.sound, [v.code for v in verify(machine.extend(budgeted=())).violations]


def test_the_shared_machines_have_the_drawn_shapes() -> None:
    assert _rows(ONE_STEP) == {("A", "GO", "B")}
    assert _rows(RETRY) == {("A", "GO", "B"), ("A", "AGAIN", "A")}
    assert _rows(PLAN_ACT) == {
        ("PLAN", "GO", "ACT"),
        ("PLAN", "END", "DONE"),
        ("ACT", "GO", "PLAN"),
        ("ACT", "END", "DONE"),
    }
    assert (ONE_STEP.name, RETRY.name, PLAN_ACT.name) == ("tiny", "retry", "plan-act")


def test_each_is_proved_sound_and_only_a_loop_needs_the_budget() -> None:
    assert _violations(ONE_STEP) == (True, [])
    assert _violations(RETRY) == (True, ["SM009"])
    assert _violations(PLAN_ACT) == (True, ["SM009"])


_SHARED_TABLES = {
    "ONE_STEP": "table={(S.A,E.GO):S.B},handlers={S.A:pure(lambdan:emit(E.GO,n),events={E.GO})}",
    "RETRY": "table={(S.A,E.GO):S.B,(S.A,E.AGAIN):S.A}",
    "PLAN_ACT": "{(S.PLAN,E.GO):S.ACT,(S.PLAN,E.END):S.DONE,(S.ACT,E.GO):S.PLAN,(S.ACT,E.END):S.DONE}",
}


def test_no_verifier_doctest_builds_a_shared_machine_inline() -> None:
    found = []
    for path in sorted((ROOT / "verification").rglob("*.py")):
        if path.name == "_examples.py":
            continue
        flat = re.sub(r"\s+|\.\.\.", "", path.read_text(encoding="utf-8"))  # doctest "..." too
        found += [
            f"{path.relative_to(ROOT)}: use verification._examples.{name}"
            for name, table in _SHARED_TABLES.items()
            if table in flat
        ]
    assert found == []


def test_the_helper_is_private_and_documents_its_machines() -> None:
    doc = _examples.__doc__ or ""
    for drawn in ("A --GO--> B", "A --AGAIN--> A", "PLAN --GO--> ACT --GO--> PLAN"):
        assert drawn in doc
