"""``python -m verification``: the same as ``agentsm-verify``."""

from verification.cli import main

raise SystemExit(main())
