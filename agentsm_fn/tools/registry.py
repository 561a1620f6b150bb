"""The tool registry: tool definitions (pure data) paired with the functions that run them.

A tool function takes its arguments as keywords and returns text (any value is
turned into text with ``str``), or ``returns``' ``Success(value)`` /
``Failure(message)`` to report an expected failure without raising. It may be a
coroutine function. :meth:`ToolRegistry.execute` is the seed's synchronous
``execute``: it never raises, it returns ``Result[str, ToolError]``. The shell's
tool runner adds timeouts, async tools and parallel batches.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.llm.json import JsonObject, JsonValue, thaw
from agentsm_fn.llm.messages import ToolSpec
from agentsm_fn.tools.spec import ToolDef

__all__ = ["Tool", "ToolError", "ToolFn", "ToolRegistry", "outcome_text"]

ToolFn = Callable[..., object]
"""A tool's implementation: keyword arguments in, text (or a Result, or an awaitable) out."""


@attrs.frozen
class ToolError:
    """Why a tool call failed: an error type (exception class name, ToolNotFound, ...) and message.

    Example:
        >>> ToolError("ToolNotFound", "Tool 'x' not found in registry").describe()
        "ToolNotFound: Tool 'x' not found in registry"
    """

    error_type: str
    message: str

    def describe(self) -> str:
        """``{type}: {message}``."""
        return f"{self.error_type}: {self.message}"


def outcome_text(value: object) -> Result[str, ToolError]:
    """Read a tool function's return value: text, ``Success(value)`` or ``Failure(message)``.

    Example:
        >>> outcome_text(4).unwrap(), outcome_text(Failure("no data")).failure().describe()
        ('4', 'ToolError: no data')
    """
    if isinstance(value, Success):
        return Success(str(value.unwrap()))
    if isinstance(value, Failure):
        return Failure(ToolError("ToolError", str(value.failure())))
    return Success(value if isinstance(value, str) else str(value))


@attrs.frozen
class Tool:
    """A tool definition plus its implementation.

    Example:
        >>> t = Tool(ToolDef(name="echo", description="Echo"), lambda text: text)
        >>> t.name, t.is_async
        ('echo', False)
    """

    definition: ToolDef
    fn: ToolFn = attrs.field(repr=lambda fn: getattr(fn, "__qualname__", "<fn>"))

    @property
    def name(self) -> str:
        """The tool's name."""
        return self.definition.name

    @functools.cached_property
    def is_async(self) -> bool:
        """True for a coroutine function (run by the async runner, or a loop of its own)."""
        return inspect.iscoroutinefunction(self.fn)


def _tools(value: Mapping[str, Tool]) -> Mapping[str, Tool]:
    return MappingProxyType(dict(value))


@attrs.frozen
class ToolRegistry:
    """An immutable name -> :class:`Tool` map; ``register`` returns a new registry.

    Example:
        >>> reg = ToolRegistry().register("echo", "Echo the text",
        ...     {"type": "object", "properties": {"text": {"type": "string"}}}, lambda text: text)
        >>> reg.execute("echo", {"text": "hi"}).unwrap(), reg.has("echo"), len(reg)
        ('hi', True, 1)
        >>> reg.execute("nonexistent", {}).failure().describe()
        "ToolNotFound: Tool 'nonexistent' not found in registry"
    """

    tools: Mapping[str, Tool] = attrs.field(factory=dict, converter=_tools, repr=lambda t: repr(sorted(t)))

    def register(
        self,
        name: str,
        description: str,
        schema: Mapping[str, object],
        fn: ToolFn,
        *,
        needs_approval: bool = False,
        timeout: float | None = None,
        retry_safe: bool = False,
    ) -> ToolRegistry:
        """A registry with one more tool (a tool of the same name is replaced)."""
        definition = ToolDef(
            name=name,
            description=description,
            parameters=schema,
            needs_approval=needs_approval,
            timeout=timeout,
            retry_safe=retry_safe,
        )
        return self.add(Tool(definition, fn))

    def add(self, tool: Tool) -> ToolRegistry:
        """A registry with ``tool`` added (e.g. one made by the ``@tool`` decorator)."""
        return ToolRegistry({**self.tools, tool.name: tool})

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, or None."""
        return self.tools.get(name)

    def has(self, name: str) -> bool:
        """True if a tool called ``name`` is registered."""
        return name in self.tools

    def __len__(self) -> int:
        return len(self.tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(self.tools.values())

    def is_empty(self) -> bool:
        """True when no tool is registered."""
        return not self.tools

    def definitions(self) -> tuple[ToolDef, ...]:
        """Every tool's definition, in registration order (what AgentMemory carries)."""
        return tuple(t.definition for t in self.tools.values())

    def schemas(self) -> tuple[ToolSpec, ...]:
        """Every tool as the model sees it."""
        return tuple(t.definition.spec for t in self.tools.values())

    def execute(self, name: str, arguments: JsonObject | Mapping[str, JsonValue]) -> Result[str, ToolError]:
        """Run a sync tool now, without timeout; never raises (see the shell's runner for more)."""
        tool = self.tools.get(name)
        if tool is None:
            return Failure(ToolError("ToolNotFound", f"Tool '{name}' not found in registry"))
        if tool.is_async:
            return Failure(ToolError("AsyncTool", f"Tool '{name}' is async; run it with the tool runner"))
        kwargs = thaw(arguments)
        if not isinstance(kwargs, dict):  # pragma: no cover - thaw of a mapping is a dict
            return Failure(ToolError("InvalidArguments", "arguments must be a JSON object"))
        try:
            value = tool.fn(**kwargs)
        except Exception as exc:
            return Failure(ToolError(type(exc).__name__, str(exc)))
        return outcome_text(value)
