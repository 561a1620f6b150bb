"""JSON values into a memory's fields, by the fields' declared types: one set of rules for every door.

``agentsm-runs fork --set FIELD=JSON`` and the HTTP server (a fork's changed fields, a new
run's memory, filled into its durable program's template when it has one) convert JSON the
same way, with the same errors: each value is converted to its field's declared type with
msgspec (a JSON list to a tuple, a string to an enum, an object to an attrs class),
persistent vectors and maps included (``PVector[T]`` from a list, ``PMap[K, V]`` from an
object). A value that does not fit is a :class:`FieldProblem` naming the field and its
type; nothing raises.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping

import attrs
import msgspec
import pyrsistent.typing
from pyrsistent import PMap, PVector, pmap, pvector
from returns.result import Failure, Result, Success

from agentsm_fn.durable.running.digest import undigestible

__all__ = ["FieldProblem", "changed_fields", "convert_fields", "memory_from_json"]

_VECTORS = (PVector, pyrsistent.typing.PVector)
_MAPS = (PMap, pyrsistent.typing.PMap)


@attrs.frozen(kw_only=True)
class FieldProblem:
    """A JSON value that does not fit the memory: ``field`` ("" for the memory as a whole) and why.

    Example:
        >>> FieldProblem(field="amount", detail="Expected `int`, got `str` (Order.amount is int)").describe()
        'amount: Expected `int`, got `str` (Order.amount is int)'
    """

    field: str
    detail: str
    type_name: str = ""
    """The field's declared type as written (``int``, ``tuple[str, ...]``), when known."""

    def describe(self) -> str:
        """One line: the field, then what is wrong with its value."""
        return f"{self.field}: {self.detail}" if self.field else self.detail


def _persistent(hint: object, value: object) -> object:
    """Msgspec's hook for the types it does not know: persistent vectors and maps from JSON."""
    origin, args = typing.get_origin(hint) or hint, typing.get_args(hint)
    if origin in _VECTORS:
        inner = args[0] if args else object
        return pvector(msgspec.convert(value, list[inner], dec_hook=_persistent))  # type: ignore[valid-type]  # a type read at run time
    if origin in _MAPS:
        key, item = args if len(args) == 2 else (str, object)
        return pmap(msgspec.convert(value, dict[key, item], dec_hook=_persistent))  # type: ignore[valid-type]  # as above
    raise NotImplementedError(hint)


def _shown(hint: object) -> str:
    """A declared type as written: ``int``, ``bool | None``, ``PVector[str]``, ``tuple[str, ...]``."""
    if hint is Ellipsis:
        return "..."
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if args and isinstance(origin, type) and origin is not types.UnionType:
        return f"{origin.__name__}[{', '.join(_shown(arg) for arg in args)}]"
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _hints(kind: type) -> dict[str, object] | None:
    try:
        return typing.get_type_hints(kind)
    except Exception:  # annotations that name types imported only for type checking: nothing to check
        return None


def convert_fields(kind: type, values: Mapping[str, object]) -> Result[dict[str, object], FieldProblem]:
    """``values`` converted to ``kind``'s declared field types (unknown names are a problem).

    When the class's annotations, or those of a class its field's type names, cannot be
    resolved at run time (names imported only for type checking), the value goes in as given.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Order:
        ...     items: tuple[str, ...]
        ...     amount: int = 0
        >>> convert_fields(Order, {"items": ["a", "b"], "amount": 3}).unwrap()
        {'items': ('a', 'b'), 'amount': 3}
        >>> convert_fields(Order, {"amount": "abc"}).failure().describe()
        'amount: Expected `int`, got `str` (Order.amount is int)'
    """
    if not attrs.has(kind):
        return Failure(FieldProblem(field="", detail=f"the memory is a {kind.__name__}, not an attrs class"))
    fields = attrs.fields_dict(kind)
    unknown = sorted(set(values) - set(fields))
    if unknown:
        detail = f"{kind.__name__} has no field {', '.join(unknown)} (fields: {', '.join(fields)})"
        return Failure(FieldProblem(field="", detail=detail))
    hints = _hints(kind)
    if hints is None:
        return Success(dict(values))
    typed: dict[str, object] = {}
    for name, value in values.items():
        hint = hints.get(name)
        if hint is None:
            typed[name] = value
            continue
        converted = _convert(value, hint).bind(_storable)
        if isinstance(converted, Failure):
            shown = _shown(hint)
            detail = f"{converted.failure()} ({kind.__name__}.{name} is {shown})"
            return Failure(FieldProblem(field=name, detail=detail, type_name=shown))
        typed[name] = converted.unwrap()
    return Success(typed)


def _convert(value: object, hint: object) -> Result[object, str]:
    """``value`` as ``hint``, or msgspec's reason why not.

    When a class inside the hint has annotations that cannot be resolved at run time (a
    ``ToolCall`` in a ``tuple[ToolCall, ...]``), only the outer shape is checked (an array
    for a tuple or vector, an object for a mapping) and the items go in as given.
    """
    for attempt in (hint, _outer(hint)):
        try:
            return Success(msgspec.convert(value, attempt, dec_hook=_persistent))
        except (msgspec.ValidationError, TypeError) as exc:
            return Failure(str(exc))
        except Exception:  # unresolvable annotations inside: try the outer shape
            continue
    return Success(value)


def _storable(value: object) -> Result[object, str]:
    """``value`` if a run can journal an effect holding it (no int beyond 64 bits), else why not."""
    problem = undigestible(value)
    return Success(value) if problem is None else Failure(f"a stored run cannot hold it: {problem}")


def _outer(hint: object) -> object:
    """``hint`` with its items' types erased: ``tuple[ToolCall, ...]`` -> ``tuple[object, ...]``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None or not args:
        return object if isinstance(hint, type) and attrs.has(hint) else hint
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(_outer(arg) for arg in args)]  # noqa: UP007 - built from a tuple at run time
    erased = tuple(arg if arg is Ellipsis else object for arg in args)
    return origin[erased] if len(erased) > 1 else origin[erased[0]]


def changed_fields(memory: object, values: Mapping[str, object]) -> Result[object, FieldProblem]:
    """``memory`` with ``values`` (JSON) in its fields, converted to their declared types.

    Example:
        >>> import attrs
        >>> from pyrsistent import PVector, pvector
        >>> @attrs.frozen
        ... class Order:
        ...     receipts: PVector[str] = pvector()
        >>> changed_fields(Order(), {"receipts": ["r1"]}).unwrap()
        Order(receipts=pvector(['r1']))
    """
    converted = convert_fields(type(memory), values)
    if isinstance(converted, Failure):
        return converted
    return _built(type(memory), lambda typed: attrs.evolve(memory, **typed), converted.unwrap())  # type: ignore[misc]  # an attrs class: convert_fields checked


def memory_from_json(kind: type, data: object, template: object = None) -> Result[object, FieldProblem]:
    """A new ``kind`` (an attrs class) from a JSON object of its fields; missing fields take their defaults.

    With a ``template`` (a memory of ``kind``: a :class:`~agentsm_fn.durable.Durable`'s
    ``template``), the fields are filled into it instead and missing ones keep its values,
    by :func:`changed_fields`' rules and errors.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Order:
        ...     items: int
        >>> memory_from_json(Order, {"items": 2}).unwrap()
        Order(items=2)
        >>> memory_from_json(Order, {}).failure().describe()
        'items: Order needs this field (Order.items is int)'
        >>> memory_from_json(Order, {}, template=Order(items=5)).unwrap()
        Order(items=5)
    """
    if not isinstance(data, Mapping):
        detail = f"the memory is a JSON object, not {type(data).__name__}"
        return Failure(FieldProblem(field="", detail=detail))
    if template is not None:
        return changed_fields(template, data)
    converted = convert_fields(kind, data)
    if isinstance(converted, Failure):
        return converted
    if attrs.has(kind):
        hints = _hints(kind) or {}
        for field in attrs.fields(kind):
            if field.init and field.default is attrs.NOTHING and field.name not in data:
                shown = _shown(hints.get(field.name, field.type))
                detail = f"{kind.__name__} needs this field ({kind.__name__}.{field.name} is {shown})"
                return Failure(FieldProblem(field=field.name, detail=detail, type_name=shown))
    return _built(kind, lambda typed: kind(**typed), converted.unwrap())


def _built(
    kind: type, build: typing.Callable[[dict[str, object]], object], typed: dict[str, object]
) -> Result[object, FieldProblem]:
    """The memory ``build`` makes, or the problem its own converters and validators found."""
    try:
        return Success(build(typed))
    except (TypeError, ValueError) as exc:  # an attrs validator or converter refused a value
        return Failure(FieldProblem(field="", detail=f"{kind.__name__} refused the values: {exc}"))
