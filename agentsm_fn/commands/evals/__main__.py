"""``python -m agentsm_fn.commands.evals``: the same as ``agentsm-eval``."""

from agentsm_fn.commands.evals.commands import main

raise SystemExit(main())
