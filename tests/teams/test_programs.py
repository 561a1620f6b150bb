"""A child program given to its parent's ``Durable(programs=...)`` runs on a store with no import by name.

A program defined in a script's ``__main__``, a notebook or a test cannot be imported by its
``module:attribute`` name in the process that made it; listed in its parent's ``programs``, it is
found by that name in this process (SQLite and PostgreSQL, the ``store`` fixture). Unlisted, the
same child is a failed child saying it is unknown.
"""

from __future__ import annotations

from agentsm_fn import Performers, Shell
from agentsm_fn.durable import Durable, RunStatus, RunStore, child_run_id
from agentsm_fn.teams import ChildFailed, ChildFinished, Delegating, delegate
from tests.teams.programs import CE, CHILD_MACHINE, DELEGATOR_MACHINE, PE, Boss, C, Note, P, _kept

SCRIPT_CHILD = Durable(
    name="__main__:SCRIPT_CHILD",  # not importable here: pytest is this process's __main__
    machine=CHILD_MACHINE,
    shell=lambda: Shell(Performers().on(Note, lambda effect: effect.n * 3)),
    result=lambda n: n,
)


def _parent(name: str, program: str, programs: tuple[Durable[C, CE, int], ...]) -> Durable[P, PE, Boss]:
    handler: Delegating[PE, Boss, C, CE, int] = delegate(
        program=program,
        child=CHILD_MACHINE,
        start=lambda boss: boss.n,
        ends={C.DONE: PE.ANSWERED, C.REFUSED: PE.DECLINED},
        failed=PE.BROKE,
        cancelled=PE.STOPPED,
        merge=_kept,
    )
    machine = DELEGATOR_MACHINE.extend(handlers={P.ASK: handler}, name=f"teams-{name}")
    return Durable(name=f"__main__:{name.upper()}", machine=machine, programs=programs)


SCRIPT = _parent("script", SCRIPT_CHILD.name, (SCRIPT_CHILD,))
UNLISTED = _parent("unlisted", "__main__:NOT_LISTED", ())


def test_a_child_listed_in_its_parents_programs_runs_with_no_import(store: RunStore) -> None:
    done = SCRIPT.start(store, Boss(n=4), run_id="boss").unwrap()
    assert done.snapshot.state is P.DONE
    child = child_run_id("boss", 0)
    assert done.snapshot.memory.outcome == ChildFinished(
        run_id=child, program=SCRIPT_CHILD.name, state="DONE", result=12
    )
    assert store.get(child).unwrap().status is RunStatus.FINISHED


def test_an_unlisted_child_that_cannot_be_imported_is_a_failed_child(store: RunStore) -> None:
    done = UNLISTED.start(store, Boss(n=4), run_id="boss").unwrap()
    outcome = done.snapshot.memory.outcome
    assert done.snapshot.state is P.GAVE_UP and isinstance(outcome, ChildFailed)
    assert "__main__:NOT_LISTED" in outcome.reason
