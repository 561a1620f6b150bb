"""Where the inspector's built page lives: ``static/``, built from ``web/`` by ``scripts/inspector.sh``."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

__all__ = ["ASSETS"]

ASSETS: Traversable = resources.files("agentsm_fn.inspector") / "static"
"""The built page: ``index.html``, ``app.js``, ``app.css`` and ``LICENSES.txt``."""
