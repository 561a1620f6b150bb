"""``agentsm-runs``: the command line for stored runs (``python -m agentsm_fn.commands.runs`` runs it too).

``commands`` holds each command and ``main``, ``_parser`` the arguments and help texts, ``_support``
what the commands share (exit codes, loading machines, answers, printing).
"""
