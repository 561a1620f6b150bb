"""What a store is: the store interface (``store``) and what a store may also be.

``store`` is :class:`~agentsm_fn.durable.stores.protocol.store.RunStore` and the records it
writes and reads back; ``queue`` a store that queues runs for workers, ``pages`` and ``updates``
the reads a store may answer with one query, ``owners`` who holds a run (``host:pid``).
"""
