"""The run inspector: a web page over a run store to see, step through, answer, fork and compare runs.

Served at ``/`` by the same server as the JSON API (``agentsm-runs --db FILE serve
module:DURABLE``; the routes are :mod:`agentsm_fn.server.inspector`); its files ship in
``static/`` (:data:`ASSETS`, built from ``web/`` by ``bash scripts/inspector.sh``;
installing the package needs no Node, the page fetches nothing from the internet). The page
calls the server's JSON API and these views: a run from one replay (:func:`run_view`), a
machine with the verifier's findings and the changed-machine check (:func:`machine_view`),
two runs side by side (:func:`compare_views`), the experiments in the store
(:func:`experiments_view`, :func:`experiment_view`, and one case in two of them:
:func:`case_view`), a thread as a chat (:func:`thread_view`, :func:`turn_view`, :func:`turn_chat`)
which threads some runs are turns of (:func:`run_threads`), and a run's child runs as a tree
(:func:`children_tree`, :func:`parent_of`, :func:`requested_at`). Everything shown is redacted as the rest of
the project redacts (:func:`plain`). Plain data, no web framework; ``import agentsm_fn``
imports none of this.
"""

from agentsm_fn.inspector.assets import ASSETS
from agentsm_fn.inspector.children_view import children_tree, parent_of, requested_at
from agentsm_fn.inspector.compare import compare_views
from agentsm_fn.inspector.experiments import case_view, experiment_view, experiments_view
from agentsm_fn.inspector.machine_view import graph_data, machine_view
from agentsm_fn.inspector.plain import apply_changes, changes, memory_changes, plain
from agentsm_fn.inspector.run_view import record_data, run_view
from agentsm_fn.inspector.thread_view import run_threads, thread_view, turn_chat, turn_view
from agentsm_fn.inspector.transcript import transcript

__all__ = [
    "ASSETS",
    "apply_changes",
    "case_view",
    "changes",
    "children_tree",
    "compare_views",
    "experiment_view",
    "experiments_view",
    "graph_data",
    "machine_view",
    "memory_changes",
    "parent_of",
    "plain",
    "record_data",
    "requested_at",
    "run_threads",
    "run_view",
    "thread_view",
    "transcript",
    "turn_chat",
    "turn_view",
]
