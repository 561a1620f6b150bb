"""A run's child runs as data for its page: the tree of its children, its parent, the steps that started them.

A parent's :class:`~agentsm_fn.teams.ChildRun` or :class:`~agentsm_fn.teams.Children` effect
stores a row per child (:func:`~agentsm_fn.durable.stored_children`). :func:`children_tree`
reads them, and each child's record, into a tree: each node with the child's run id, program,
the parent's effect (``seq``) and place in a fan-out (``index``), status, state, outcome in
words, and the node's own children (nested children under theirs, to ``depth`` levels).
:func:`parent_of` says whose child a run is; :func:`requested_at` which step of the parent
requested each effect (its trace's effect requests, in journal order), so the page's step and
effect rows link to the children they started.

A run that handed its conversation to another agent (its final memory says to whom:
:class:`~agentsm_fn.teams.Handing`) marks the child that took it with the agent that holds the
conversation (:func:`mark_holder`, the node's ``holder``): that child's program, or, when the run is
a thread's turn, the holder the thread records (the child may have handed it on).
"""

from __future__ import annotations

from collections.abc import Sequence

from returns.result import Failure, Result, Success

from agentsm_fn.core.trace import TraceEntry
from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.operations.cancel import stored_children
from agentsm_fn.durable.running.children import children_store, decoded
from agentsm_fn.durable.stores.protocol.children import ChildRecord
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.stores.protocol.threads import ThreadStore
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.shell.credentials import credential_redactor
from agentsm_fn.teams import ChildCancelled, ChildFailed, ChildFinished, Handing

__all__ = ["children_tree", "mark_holder", "parent_of", "requested_at"]

_DEPTH = 8


def _outcome(child: ChildRecord) -> str:
    found = decoded(child)
    if isinstance(found, ChildFinished):
        return f"finished in {found.state}"
    if isinstance(found, ChildFailed):
        return f"failed: {found.reason}"
    return "cancelled" if isinstance(found, ChildCancelled) else ""


def _node(store: RunStore, child: ChildRecord, depth: int) -> dict[str, JsonValue]:
    record = store.get(child.run_id).value_or(None) if child.started else None
    below = children_tree(store, child.run_id, depth - 1) if depth > 1 and child.started else Success([])
    return {
        "run_id": child.run_id,
        "program": child.program,
        "seq": child.seq,
        "index": child.index,
        "status": child.status.value if child.status is not None else "not started",
        "state": record.state if record is not None else "",
        "outcome": credential_redactor()(_outcome(child)),
        "children": below.value_or([]),
        "holder": None,
    }


def children_tree(store: RunStore, run_id: str, depth: int = _DEPTH) -> Result[list[JsonValue], StoreFailure]:
    """The children run ``run_id`` started, each with its own children under it (``depth`` levels).

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> children_tree(store, "r1").unwrap()
        []
        >>> store.close()
    """
    found = stored_children(store, run_id)
    if isinstance(found, Failure):
        return found
    return Success([_node(store, child, depth) for child in found.unwrap()])


def parent_of(store: RunStore, run_id: str) -> JsonValue:
    """Whose child run ``run_id`` is: the parent's run id, its effect and the child's place; None: nobody's.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> parent_of(store, "r1") is None
        True
        >>> store.close()
    """
    keeps = children_store(store)
    found = None if keeps is None else keeps.child(run_id)
    row = found.unwrap() if isinstance(found, Success) else None  # unreadable: shown as nobody's
    if row is None:
        return None
    return {"run_id": row.parent, "seq": row.seq, "index": row.index, "program": row.program}


def requested_at(trace: Sequence[TraceEntry]) -> dict[int, int]:
    """Each effect's journal seq -> the step that requested it (a run's effect requests, in order).

    Example:
        >>> from agentsm_fn.core.trace import TraceEntry
        >>> requested_at([TraceEntry(step=1, state="ASK", event="request ChildRun", target="", data="",
        ...                          timestamp=0.0)])
        {0: 1}
    """
    requests = [e.step for e in trace if not e.target and e.event.startswith("request ")]
    return dict(enumerate(requests))


def mark_holder(store: RunStore, run_id: str, memory: object, children: list[JsonValue]) -> None:
    """Mark the child a handoff gave the conversation to (run ``run_id`` ended with ``memory``).

    Its node's ``holder`` is the agent holding the conversation: the thread's record of it when
    the run is a thread's turn, else the child's program.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> nodes = [{"program": "app:REFUNDS", "seq": 4, "holder": None}]
        >>> class Handed:
        ...     def handed_to(self) -> str:
        ...         return "app:REFUNDS"
        >>> mark_holder(store, "r1", Handed(), nodes)
        >>> nodes[0]["holder"]
        'app:REFUNDS'
        >>> store.close()
    """
    handed = memory.handed_to() if isinstance(memory, Handing) else None
    took = [n for n in children if isinstance(n, dict) and n["program"] == handed]
    if handed is None or not took:
        return
    held = handed
    turns = store.turns_of_run(run_id) if isinstance(store, ThreadStore) else None
    if isinstance(turns, Success):
        held = next((t.holder for t in turns.unwrap() if t.so_far_kept and t.holder), handed)
    took[-1]["holder"] = held  # a handoff ends the run: its last child of that program
