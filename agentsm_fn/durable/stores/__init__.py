"""Opening a store by name: the one place that knows every store (SQLite, PostgreSQL).

A subpackage of its own, above ``durable.sqlite`` and ``durable.postgres``, which build on
``durable`` itself.
"""

from agentsm_fn.durable.stores.opening import is_postgres, open_store

__all__ = ["is_postgres", "open_store"]
