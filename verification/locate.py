"""Source locations of handlers, enums and table rows, where they can be known.

A handler's location is its function's file and first line. A row has no
location at run time (the table is a mapping), so it is found by scanning
source files for the row's key, e.g. ``(S.IDLE, E.START)``: first extra files
(the module a machine was imported from), then the modules of the state and
event enums, then their sibling modules (where tables usually live). File
contents and row indexes are cached by path and modification time. Nothing here
raises: an unknown location is None.
"""

from __future__ import annotations

import enum
import functools
import inspect
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from verification.findings import Location

__all__ = ["RowLocator", "class_location", "first_line", "function_location", "relative_path"]

_MAX_SIBLINGS = 64
"""Rows are looked for in the enums' modules and at most this many sibling modules."""


@functools.lru_cache(maxsize=4096)
def _relative(path: str, cwd: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(cwd))
    except (ValueError, OSError):
        return path


@functools.lru_cache(maxsize=8)
def _resolved(cwd: str) -> str:
    return str(Path(cwd).resolve())


def relative_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it, else as given.

    Example:
        >>> relative_path("/nowhere/at/all.py")
        '/nowhere/at/all.py'
    """
    return _relative(path, _resolved(os.getcwd()))


def function_location(fn: Callable[..., object]) -> Location | None:
    """Where ``fn`` is defined, or None for builtins and objects without source.

    Example:
        >>> function_location(len) is None
        True
    """
    code = getattr(inspect.unwrap(fn), "__code__", None)
    if code is None:
        return None
    path = str(code.co_filename)
    if path.startswith("<"):
        return None
    return Location(relative_path(path), int(code.co_firstlineno))


def _source_file(obj: type) -> str | None:
    try:
        return inspect.getsourcefile(obj)
    except (TypeError, OSError):
        return None


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = Path(path).stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


@functools.lru_cache(maxsize=512)
def _lines(path: str, stamp: tuple[int, int]) -> tuple[str, ...]:
    del stamp  # part of the cache key only
    try:
        return tuple(Path(path).read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return ()


def _read(path: str) -> tuple[str, ...]:
    stamp = _stamp(path)
    return () if stamp is None else _lines(path, stamp)


def class_location(cls: type) -> Location | None:
    """Where the class ``cls`` is defined (its ``class`` line), or None.

    Example:
        >>> class_location(int) is None
        True
    """
    path = _source_file(cls)
    if path is None:
        return None
    pattern = re.compile(rf"^\s*class\s+{re.escape(cls.__name__)}\b")
    for number, line in enumerate(_read(path), start=1):
        if pattern.match(line):
            return Location(relative_path(path), number)
    return None


def first_line(paths: Iterable[str], pattern: re.Pattern[str]) -> Location | None:
    """The first line of the first file in ``paths`` that ``pattern`` matches, or None.

    Example:
        >>> first_line([__file__], re.compile(r"^def first_line")).line > 1
        True
    """
    for path in paths:
        for number, line in enumerate(_read(path), start=1):
            if pattern.search(line):
                return Location(relative_path(path), number)
    return None


@functools.lru_cache(maxsize=256)
def _index(
    files: tuple[tuple[str, tuple[int, int]], ...], state_cls: str, event_cls: str
) -> dict[tuple[str, str], Location]:
    pattern = re.compile(
        rf"\(\s*(?:\w+\.)*{re.escape(state_cls)}\.(\w+)\s*,\s*(?:\w+\.)*{re.escape(event_cls)}\.(\w+)\s*\)"
    )
    index: dict[tuple[str, str], Location] = {}
    for path, stamp in files:
        shown = None
        for number, line in enumerate(_lines(path, stamp), start=1):
            if state_cls not in line:
                continue
            for match in pattern.finditer(line):
                shown = shown or relative_path(path)
                index.setdefault((match.group(1), match.group(2)), Location(shown, number))
    return index


class RowLocator:
    """Finds the line of a row ``(State.X, Event.Y)`` in the files that define a machine.

    Example:
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
        self._states, self._events, self._extra = states, events, tuple(extra_files)
        self._found: dict[tuple[str, str], Location] | None = None

    def _files(self) -> tuple[tuple[str, tuple[int, int]], ...]:
        homes = [f for f in (_source_file(self._states), _source_file(self._events)) if f]
        siblings = [str(p) for home in homes for p in sorted(Path(home).parent.glob("*.py"))][:_MAX_SIBLINGS]
        files: dict[str, tuple[int, int]] = {}
        for candidate in (*self._extra, *homes, *siblings):
            stamp = _stamp(candidate)
            if stamp is not None and candidate not in files:
                files[candidate] = stamp
        return tuple(files.items())

    def find(self, state: str, event: str) -> Location | None:
        """The first line that writes the row key ``(state, event)``, or None."""
        if self._found is None:
            self._found = _index(self._files(), self._states.__name__, self._events.__name__)
        return self._found.get((state, event))
