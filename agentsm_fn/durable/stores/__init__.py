"""The stores: where runs are kept, and opening one by name (a SQLite file or a PostgreSQL database).

``protocol`` is what every store is (the store interface, the records it reads back) and what a
store may also be (a queue, pages, updates); ``sqlite`` and ``postgres`` are the two stores, each
with all of its SQL, on the rows, reads, writes and group commit that both share (``sql``);
``codec`` turns a run's values into bytes and back; ``opening`` is the one place that knows
every store.
"""

from agentsm_fn.durable.stores.opening import is_postgres, no_store_yet, open_store

__all__ = ["is_postgres", "no_store_yet", "open_store"]
