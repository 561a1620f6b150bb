"""Private: values as Python source, with the imports they need, for counterexamples a user pastes.

Handles what memories and outcomes are made of: ``None``, booleans, numbers, strings,
bytes, enum members (``Cls.NAME``), tuples, lists, sets, frozensets, dicts, read-only
mappings, pyrsistent vectors and attrs instances (``Cls(field=...)``, fields left at their
default omitted). Anything else is written with its ``repr`` and noted in
:attr:`Source.unsure`, so the caller can say the line may need a hand.
"""

from __future__ import annotations

import enum
import math
from types import MappingProxyType
from typing import cast

import attrs
from pyrsistent import PVector

from verification.kit._render import at_default

__all__ = ["Source"]


class Source:
    """Collects the imports and the doubtful values of the code it writes."""

    def __init__(self) -> None:
        self.imports: set[tuple[str, str]] = set()
        self.unsure: list[str] = []
        self.folders: set[str] = set()
        """Folders of ``path/to/file.py`` specs: they must be on ``sys.path`` for the imports to work."""

    def name(self, obj: object) -> str:
        """How to refer to a class, function or other named module attribute, importing it."""
        module = getattr(obj, "__module__", "") or ""
        qualname = str(getattr(obj, "__qualname__", getattr(obj, "__name__", repr(obj))))
        top = qualname.split(".", maxsplit=1)[0]
        if module not in ("builtins", "__main__", "") and "<locals>" not in qualname:
            self.imports.add((module, top))
        return qualname

    def spec(self, spec: str) -> str:
        """Import ``module:attribute`` (or ``path/to/file.py:attribute``) and return the attribute's name."""
        module, _, attribute = spec.rpartition(":")
        if module.endswith(".py"):  # a file is imported by its name, from its folder (on sys.path)
            folder, _, file = module.replace("\\", "/").rpartition("/")
            self.folders.add(folder or ".")
            module = file.removesuffix(".py")
        self.imports.add((module, attribute.split(".")[0]))
        return attribute

    def value(self, value: object) -> str:
        """Python source that evaluates to ``value``."""
        if value is None or isinstance(value, bool | int | str | bytes):
            return repr(value)
        if isinstance(value, float):
            return repr(value) if math.isfinite(value) else f"float({str(value)!r})"
        if isinstance(value, enum.Enum):
            return f"{self.name(type(value))}.{value.name}"
        if isinstance(value, tuple) and not hasattr(value, "_fields"):
            inner = ", ".join(self.value(v) for v in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        if isinstance(value, list):
            return "[" + ", ".join(self.value(v) for v in value) + "]"
        if isinstance(value, frozenset | set):
            items = sorted((self.value(v) for v in value), key=str)
            if not items:
                return f"{type(value).__name__}()"
            return f"{type(value).__name__}({{{', '.join(items)}}})"
        if isinstance(value, dict | MappingProxyType):
            pairs = ", ".join(f"{self.value(k)}: {self.value(v)}" for k, v in value.items())
            if isinstance(value, MappingProxyType):
                self.imports.add(("types", "MappingProxyType"))
                return f"MappingProxyType({{{pairs}}})"
            return f"{{{pairs}}}"
        if isinstance(value, PVector):
            self.imports.add(("pyrsistent", "pvector"))
            return "pvector([" + ", ".join(self.value(v) for v in value) + "])"
        if attrs.has(type(value)):
            return self._attrs(value)
        self.unsure.append(repr(value)[:80])
        return repr(value)

    def _attrs(self, value: object) -> str:
        klass = cast(type[attrs.AttrsInstance], type(value))
        shown = []
        for field in attrs.fields(klass):
            if not field.init:
                continue
            current = getattr(value, field.name)
            if not at_default(field, current):
                shown.append(f"{field.alias}={self.value(current)}")
        return f"{self.name(klass)}({', '.join(shown)})"

    def import_lines(self) -> list[str]:
        """``from module import a, b`` lines, sorted."""
        by_module: dict[str, set[str]] = {}
        for module, name in self.imports:
            by_module.setdefault(module, set()).add(name)
        return [f"from {m} import {', '.join(sorted(names))}" for m, names in sorted(by_module.items())]
