"""The shared store: one PostgreSQL database; all of its SQL lives in this package.

``store`` is the :class:`PostgresStore` itself, ``_schema`` its tables, ``_connection`` the
pool and what of a connection string may be shown, ``_runs`` the run records and leases,
``_journal`` the journal rows, ``_group`` the fenced journal writes and the group commit of
concurrent async runs. It needs the ``postgres`` extra (psycopg 3 and psycopg_pool), loaded
only when this package is imported (``import agentsm_fn`` never does).
"""

from agentsm_fn.durable.stores.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
