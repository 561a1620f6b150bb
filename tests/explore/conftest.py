"""The explorer's tests import the durable orders example as ``durable_orders``, as it runs itself."""

from __future__ import annotations

import sys
from pathlib import Path

EXAMPLES = str(Path(__file__).resolve().parents[2] / "examples")
if EXAMPLES not in sys.path:
    sys.path.append(EXAMPLES)  # stored values and pasted tests name the example's classes by that module
