"""What a waiting run's page offers to answer: its own pending effect, or the approval a child waits for.

A parent that waits on its children (an agent tool, a handoff, ``delegate``) waits, in the end,
for what they wait for (:func:`~agentsm_fn.durable.operations.waiting_below.pending_of`).
:func:`pending_below` is the first waiting descendant's pending effect (a tool approval inside a
child), which the page answers through the parent (``POST /runs/{parent}/pending/{seq}/answer``
with the child's ``run_id``); :func:`pending_shown` is how the answer panel shows a pending effect.
"""

from __future__ import annotations

from collections.abc import Callable

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.operations.answers import PendingAnswer
from agentsm_fn.durable.operations.waiting_below import pending_of
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.shell.keys import EffectKey

__all__ = ["pending_below", "pending_shown"]


def pending_shown(asked: PendingAnswer, redact: Callable[[str], str]) -> dict[str, JsonValue]:
    """A pending effect as the page's answer panel shows it: its run, the path to it, number, summary, key.

    Example:
        >>> shown = pending_shown(PendingAnswer(run_id="p.c1", seq=2, summary="AskHuman refund", effect=None,
        ...                                     path=("p",)), str)
        >>> shown["run_id"], shown["path"], shown["key"]
        ('p.c1', ['p'], 'p.c1:2')
    """
    return {
        "run_id": asked.run_id,
        "path": list(asked.path),
        "seq": asked.seq,
        "effect": redact(asked.summary),
        "key": str(EffectKey(asked.run_id, asked.seq)),
        "waiting": True,
    }


def pending_below(
    store: RunStore, run_id: str, redact: Callable[[str], str]
) -> Result[dict[str, JsonValue] | None, DurableError]:
    """The first waiting descendant's pending effect, if run ``run_id`` waits on its children (else None).

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> pending_below(store, "r1", str).failure().describe()
        'no stored run r1'
        >>> store.close()
    """
    found = pending_of(store, run_id)
    if isinstance(found, Failure):
        return found
    below = [asked for asked in found.unwrap() if asked.run_id != run_id]
    return Success(pending_shown(below[0], redact) if below else None)
