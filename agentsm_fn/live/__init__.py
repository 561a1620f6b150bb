"""A live view of runs in a terminal (extra ``live``: rich): ``Shell(observer=LiveView())``.

Every transition and effect is printed as it happens, with each effect's duration and
what came of it; ``python examples/multi_tool_agent.py --watch`` shows it.
``import agentsm_fn`` never imports this package (nor rich).
"""

from agentsm_fn.live.view import LiveView, duration, outcome_note

__all__ = ["LiveView", "duration", "outcome_note"]
