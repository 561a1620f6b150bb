"""``python -m agentsm_fn.durable.cli``: the same as ``agentsm-runs``."""

from agentsm_fn.durable.cli.commands import main

raise SystemExit(main())
