"""The command-line programs: one subpackage each, a layer above everything they drive.

Each program has a ``main(argv: Sequence[str] | None = None) -> int`` that its console script in
``pyproject.toml`` names, and runs under ``python -m`` too: ``runs`` is ``agentsm-runs``
(``agentsm_fn.commands.runs.commands:main``, ``python -m agentsm_fn.commands.runs``), the
command line for stored runs; ``evals`` is ``agentsm-eval`` (``agentsm_fn.commands.evals.commands:main``),
which runs a dataset against a durable program and gates a merge. Nothing below this layer imports
it; a program's ``main`` is not re-exported (several programs each have one).
"""
