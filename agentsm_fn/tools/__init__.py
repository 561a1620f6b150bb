"""Tools: pure definitions, a registry pairing them with functions, the ``@tool`` decorator.

Definitions (:class:`ToolDef`) are data the agent's memory carries; functions stay
in the registry and are run only by the shell's tool runner.
"""

from agentsm_fn.tools.decorator import schema_for, tool
from agentsm_fn.tools.registry import Tool, ToolError, ToolFn, ToolRegistry, outcome_text
from agentsm_fn.tools.spec import ToolDef
from agentsm_fn.tools.validate import argument_problems

__all__ = [
    "Tool",
    "ToolDef",
    "ToolError",
    "ToolFn",
    "ToolRegistry",
    "argument_problems",
    "outcome_text",
    "schema_for",
    "tool",
]
