"""Running a stored program: ``Durable``, its run sessions, its stream, and replay.

``program`` is a machine as a durable program (start, resume, enqueue, on asyncio too) and
``durable`` adds its stream (``streaming``); ``session`` and ``_session_state`` are one run in
progress, writing its journal as it goes; ``replay`` folds a stored journal back into the run
as it was at any step, performing nothing. ``digest``, ``fields``, ``templates`` and ``run_ids``
are what a run's effects, memory and id are checked and kept as.
"""
