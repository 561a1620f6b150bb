"""``agentsm-eval``: run a dataset against a durable program, gate a merge on the result.

``python -m agentsm_fn.commands.evals`` runs it too.

``commands`` holds ``main`` and each command, ``_parser`` the arguments and exit codes, ``_progress``
the progress bar on a terminal.
"""
