"""``agentsm-runs init``: create an empty store; and what to tell a command that finds none."""

from __future__ import annotations

import shlex
from collections.abc import Callable

from returns.result import Failure

from agentsm_fn.commands.runs._support import Exit
from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores import is_postgres, no_store_yet, open_store

__all__: list[str] = []


def init(db: str, fail: Callable[[StoreFailure], int]) -> int:
    """Create the store ``db`` names, unless it is one already; another program's database is refused."""
    shown = _shown(db)
    found = open_store(db, create=False)
    if isinstance(found, Failure) and no_store_yet(db, found.failure()):
        found = open_store(db)
        said = "an empty run store created"
    else:
        said = "a run store already, left as it was"
    if isinstance(found, Failure):
        return fail(found.failure())
    found.unwrap().close()
    print(f"{shown}: {said}")
    return int(Exit.OK)


def _shown(db: str) -> str:
    """``db`` as it may be printed: a connection string without its password."""
    if not is_postgres(db):
        return db
    from agentsm_fn.durable.stores.postgres._where import where  # noqa: PLC0415  # the driver: only now

    return where(db).shown


def hint(db: str, given: bool, failure: StoreFailure) -> str:
    """What to do when ``db`` cannot be opened: ``init`` it if no store is there yet, or name another."""
    if no_store_yet(db, failure):
        if not given:
            return (
                " (create it with `agentsm-runs init`, or name another store with --db DB before the command)"
            )
        named = "URL" if is_postgres(db) else shlex.quote(db)
        same = ", URL being the same connection string" if is_postgres(db) else ""
        return f" (create it with `agentsm-runs --db {named} init`{same})"
    return "" if given else " (name the store with --db DB, before the command)"
