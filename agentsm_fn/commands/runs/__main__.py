"""``python -m agentsm_fn.commands.runs``: the same as ``agentsm-runs``."""

from agentsm_fn.commands.runs.commands import main

raise SystemExit(main())
