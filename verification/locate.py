"""Source locations of handlers and table rows, where they can be known.

A handler's location is its function's file and first line. A row has no
location at run time (the table is a mapping), so it is found by scanning the
source files of the state and event enums and of extra files (the module a
machine was imported from) for the row's key, e.g. ``(S.IDLE, E.START)``.
Nothing here raises: an unknown location is None.
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from verification.findings import Location

__all__ = ["RowLocator", "function_location", "relative_path"]


def relative_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it, else as given.

    Example:
        >>> relative_path("/nowhere/at/all.py")
        '/nowhere/at/all.py'
    """
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path


def function_location(fn: Callable[..., object]) -> Location | None:
    """Where ``fn`` is defined, or None for builtins and objects without source.

    Example:
        >>> function_location(len) is None
        True
    """
    try:
        path = inspect.getsourcefile(fn)
        code = getattr(inspect.unwrap(fn), "__code__", None)
    except (TypeError, ValueError):
        return None
    if path is None or code is None:
        return None
    return Location(relative_path(path), int(code.co_firstlineno))


def _source_file(obj: object) -> str | None:
    try:
        return inspect.getsourcefile(obj)  # type: ignore[arg-type]  # getsourcefile accepts any object
    except (TypeError, OSError):
        return None


class RowLocator:
    """Finds the line of a row ``(State.X, Event.Y)`` in the files that define a machine.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     A = 1
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> RowLocator(S, E).find("A", "GO") is None
        True
    """

    def __init__(
        self, states: type[enum.Enum], events: type[enum.Enum], extra_files: Iterable[str] = ()
    ) -> None:
        files: list[str] = []
        for candidate in (*extra_files, _source_file(states), _source_file(events)):
            if candidate and candidate not in files:
                files.append(candidate)
        self._lines: list[tuple[str, int, str]] = []
        for path in files:
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            shown = relative_path(path)
            self._lines.extend((shown, n, line) for n, line in enumerate(text.splitlines(), start=1))
        self._state_cls = re.escape(states.__name__)
        self._event_cls = re.escape(events.__name__)
        self._index: dict[tuple[str, str], Location] | None = None

    def _build_index(self) -> dict[tuple[str, str], Location]:
        pattern = re.compile(
            rf"\(\s*(?:\w+\.)*{self._state_cls}\.(\w+)\s*,\s*(?:\w+\.)*{self._event_cls}\.(\w+)\s*\)"
        )
        index: dict[tuple[str, str], Location] = {}
        for path, number, line in self._lines:
            for match in pattern.finditer(line):
                index.setdefault((match.group(1), match.group(2)), Location(path, number))
        return index

    def find(self, state: str, event: str) -> Location | None:
        """The first line that writes the row key ``(state, event)``, or None."""
        if self._index is None:
            self._index = self._build_index()
        return self._index.get((state, event))
