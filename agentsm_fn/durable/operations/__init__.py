"""What is done to stored runs: answers, recovery, the changed-machine check, forks, the worker.

Each module works on runs a store already holds, by way of the programs that run them
(``durable.running``): ``answers`` answers a waiting run from any process, ``recovery`` runs on
the runs no live process holds, ``check`` replays stored runs on a changed machine before it is
deployed, ``forks`` starts a run from another's step, ``worker`` serves a store's queue, and
``following`` gives a stored run's events look after look.
"""
