"""Source locations of handlers and table rows, where they can be known.

A handler's location is its function's file and first line. A row has no
location at run time (the table is a mapping), so it is found by scanning
source files for the row's key, e.g. ``(S.IDLE, E.START)``: first extra files
(the module a machine was imported from), then the modules of the state and
event enums, then their sibling modules (where tables usually live).
Nothing here raises: an unknown location is None.
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from verification.findings import Location

__all__ = ["RowLocator", "class_location", "function_location", "relative_path"]


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


_MAX_SIBLINGS = 64
"""Rows are looked for in the enums' modules and at most this many sibling modules."""


def class_location(cls: type) -> Location | None:
    """Where the class ``cls`` is defined, or None.

    Example:
        >>> class_location(int) is None
        True
    """
    path = _source_file(cls)
    if path is None:
        return None
    try:
        _, line = inspect.getsourcelines(cls)
    except (OSError, TypeError):
        return None
    return Location(relative_path(path), line)


def _source_file(obj: object) -> str | None:
    try:
        return inspect.getsourcefile(obj)  # type: ignore[arg-type]  # getsourcefile accepts any object
    except (TypeError, OSError):
        return None


class RowLocator:
    """Finds the line of a row ``(State.X, Event.Y)`` in the files that define a machine.

    Example:
        >>> import enum
        >>> class Lonely(enum.Enum):
        ...     A = 1
        >>> class Unused(enum.Enum):
        ...     GO = 1
        >>> RowLocator(Lonely, Unused).find("A", "GO") is None
        True
    """

    def __init__(
        self, states: type[enum.Enum], events: type[enum.Enum], extra_files: Iterable[str] = ()
    ) -> None:
        files: list[str] = []
        homes = [f for f in (_source_file(states), _source_file(events)) if f]
        siblings = [str(p) for home in homes for p in sorted(Path(home).parent.glob("*.py"))][:_MAX_SIBLINGS]
        for candidate in (*extra_files, *homes, *siblings):
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
