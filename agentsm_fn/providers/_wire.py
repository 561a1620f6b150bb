"""Reading untrusted JSON from the wire without exceptions (private helpers).

Every decoder reads server bodies through these: each returns a typed value or
``None`` when the shape is wrong, so a decoder turns any surprise into a
:class:`~agentsm_fn.llm.LlmFailure` instead of raising.
"""

from __future__ import annotations

import json
import math

__all__ = ["as_int", "as_list", "as_object", "as_str", "json_text", "parse_json", "parse_object"]


def parse_json(text: str | bytes) -> object | None:
    """Parsed JSON, or ``None`` when ``text`` is not JSON.

    Example:
        >>> parse_json('{"a": 1}'), parse_json("{nope")
        ({'a': 1}, None)
    """
    try:
        return json.loads(text)  # type: ignore[no-any-return]  # json.loads is typed Any
    except (ValueError, RecursionError):
        return None


def parse_object(text: str | bytes) -> dict[str, object] | None:
    """Parsed JSON if it is an object, else ``None``.

    Example:
        >>> parse_object("[1]") is None
        True
    """
    return as_object(parse_json(text))


def as_object(value: object) -> dict[str, object] | None:
    """``value`` if it is a JSON object (a dict), else ``None``.

    Example:
        >>> as_object({"a": 1}), as_object([1])
        ({'a': 1}, None)
    """
    return value if isinstance(value, dict) else None


def as_list(value: object) -> list[object]:
    """``value`` if it is a JSON array, else an empty list.

    Example:
        >>> as_list([1, 2]), as_list(None)
        ([1, 2], [])
    """
    return value if isinstance(value, list) else []


def as_str(value: object, default: str = "") -> str:
    """``value`` if it is a string, else ``default``.

    Example:
        >>> as_str("x"), as_str(3)
        ('x', '')
    """
    return value if isinstance(value, str) else default


def as_int(value: object) -> int:
    """``value`` as a non-negative int if it is a finite number, else 0.

    Example:
        >>> as_int(12), as_int("12"), as_int(3.0), as_int(True)
        (12, 0, 3, 0)
    """
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and math.isfinite(value):
        return max(int(value), 0)
    return 0


def json_text(value: object) -> bytes:
    """Compact UTF-8 JSON bytes of a plain JSON value (the request body).

    Example:
        >>> json_text({"a": [1, None]})
        b'{"a":[1,null]}'
    """
    return _COMPACT.encode(value).encode()


# json.dumps builds an encoder per call when given options; this one is made once.
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
