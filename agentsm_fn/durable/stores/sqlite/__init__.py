"""The embedded store: one SQLite file, no server; all of its SQL lives in this package.

``store`` is the :class:`SqliteStore` itself, ``_schema`` its tables, ``_connection`` the one
connection and its lock, ``_runs`` the run records and leases, ``_journal`` the journal rows,
``_rows`` the row codecs and transactions, ``_group`` the group commit of concurrent async runs.
"""

from agentsm_fn.durable.stores.sqlite.store import Durability, SqliteStore

__all__ = ["Durability", "SqliteStore"]
