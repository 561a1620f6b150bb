"""A result type: what an agent's run gives back, its JSON Schema, and how a reply becomes one (pure).

:func:`result_type` makes one from an attrs class (the value is an instance), a TypedDict
(a ``dict``) or a plain JSON Schema of an object (a frozen JSON object); :data:`TEXT` is
the default, the reply's text. The schema is derived once, by the machinery tool
arguments use (:func:`agentsm_fn.tools.schema.type_schema`). :meth:`ResultType.check`
reads a reply in four steps, each a value, never an exception (a class's value is converted
first, as the cheap way to accept a valid reply; jsonschema then words every problem of one
the class refused):

1. the text must hold a JSON object (:func:`~agentsm_fn.agents.output.check.parse_reply`);
2. the object must satisfy the schema: every problem is listed with its path;
3. it is converted to the class by msgspec (``msgspec.convert``, in C; it builds attrs
   classes through their ``__init__``, so their own validators run, and TypedDicts and nested
   containers alike), whose error names the path and the expected type;
4. the output validators run in order: pure functions ``value -> Result[value, str]``.

msgspec rather than cattrs: it is already a dependency (the durable store's byte layer),
converts attrs classes, TypedDicts and nested tuples with one call and words its errors
with a JSON path; cattrs would be a new dependency for the same work.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, Generic, Literal, TypeAlias, cast, overload

import attrs
import jsonschema
import msgspec
from returns.result import Failure, Result, Success
from typing_extensions import TypeVar

from agentsm_fn.agents.output.check import parse_reply, schema_problems
from agentsm_fn.agents.output.values import OutputProblem, OutputSpec
from agentsm_fn.llm.json import JsonObject, freeze, freeze_object, thaw
from agentsm_fn.tools.schema import is_object_type, object_schema

__all__ = ["TEXT", "OutputCheck", "ResultKind", "ResultT", "ResultType", "Validator", "result_type"]

ResultT = TypeVar("ResultT", default=str)
"""The type of an agent's result (text unless a result type is given)."""

T = TypeVar("T")

Validator: TypeAlias = Callable[[T], Result[T, str]]
"""An output validator: a pure function from the value to the value (maybe changed) or a problem."""

ResultKind: TypeAlias = Literal["text", "attrs", "typeddict", "schema"]
"""How a result type's values are made: the text, an attrs instance, a dict, a frozen JSON object."""

OutputCheck: TypeAlias = Result[object, tuple[OutputProblem, ...]]
"""A checked reply: the value memory keeps, or every problem found."""


@attrs.frozen(kw_only=True)
class ResultType(Generic[ResultT]):
    """An agent's result type: its spec (name, JSON Schema), class, and output validators.

    Example:
        >>> @attrs.frozen(kw_only=True)
        ... class Point:
        ...     x: int
        ...     y: int
        >>> points = result_type(Point)
        >>> points.check('{"x": 1, "y": 2}').unwrap()
        Point(x=1, y=2)
        >>> [str(p) for p in points.check('{"x": "1"}').failure()]
        ["$: 'y' is a required property", "$.x: '1' is not of type 'integer'"]
        >>> TEXT.check("anything").unwrap()
        'anything'
    """

    kind: ResultKind
    spec: OutputSpec | None = None
    target: type | None = None
    validators: tuple[Validator[ResultT], ...] = ()

    @property
    def name(self) -> str:
        """The result's name ("text" for text).

        Example:
            >>> TEXT.name
            'text'
        """
        return "text" if self.spec is None else self.spec.name

    def validated_by(self, *validators: Validator[ResultT]) -> ResultType[ResultT]:
        """This type with more output validators (run after the schema, in the order given).

        Example:
            >>> from returns.result import Failure
            >>> shouty = TEXT.validated_by(lambda t: Failure("say it louder") if t.islower() else Success(t))
            >>> [str(p) for p in shouty.check("quiet").failure()]
            ['$: say it louder']
        """
        return attrs.evolve(self, validators=(*self.validators, *validators))

    def _convert(self, value: dict[str, object]) -> Result[object, OutputProblem]:
        if self.kind == "schema":
            return Success(freeze_object(value))
        try:
            return Success(msgspec.convert(value, self.target))
        except (msgspec.ValidationError, ValueError, TypeError) as exc:
            text = str(exc)
            message, _, where = text.rpartition(" - at `")
            if where.endswith("`") and message:
                return Failure(OutputProblem(path=where[:-1], message=message))
            return Failure(OutputProblem(path="$", message=text or type(exc).__name__))

    def check(self, text: str) -> Result[ResultT, tuple[OutputProblem, ...]]:
        """The reply's result, or every problem with it (parse, schema, conversion, validators).

        Example:
            >>> schema = {"type": "object", "required": ["ok"]}
            >>> dict(result_type(schema, name="Ack").check('{"ok": true}').unwrap())
            {'ok': True}
        """
        if self.spec is None:
            return self._validate(cast(ResultT, text))
        match parse_reply(text):
            case Failure(problem):
                return Failure((problem,))
            case Success(parsed):
                return self._typed(self.spec.schema, parsed)
        raise AssertionError("unreachable")  # pragma: no cover

    def _typed(
        self, schema: JsonObject, parsed: dict[str, object]
    ) -> Result[ResultT, tuple[OutputProblem, ...]]:
        # A class's value is converted first (msgspec, in C): what it accepts its schema accepts
        # too (the schema is derived from the same annotations), so jsonschema's walk is only
        # needed to word *every* problem of a reply the class refused. A plain schema is checked.
        converted = None if self.kind == "schema" else self._convert(parsed)
        if isinstance(converted, Success):
            return self._validate(cast(ResultT, converted.unwrap()))
        problems = schema_problems(schema, parsed)
        if problems:
            return Failure(problems)
        match converted or self._convert(parsed):
            case Failure(problem):
                return Failure((problem,))
            case Success(value):
                return self._validate(cast(ResultT, value))
        raise AssertionError("unreachable")  # pragma: no cover

    def _validate(self, value: ResultT) -> Result[ResultT, tuple[OutputProblem, ...]]:
        for validator in self.validators:
            match validator(value):
                case Failure(message):
                    return Failure((OutputProblem(path="$", message=str(message)),))
                case Success(changed):
                    value = changed
        return Success(value)

    def stored(self, value: ResultT) -> object:
        """What an agent's memory keeps of a value: the value itself, a dict frozen (memory never changes).

        Example:
            >>> from typing import TypedDict
            >>> class Ack(TypedDict):
            ...     ok: bool
            >>> type(result_type(Ack).stored({"ok": True})).__name__
            'PMap'
        """
        return freeze(value) if self.kind == "typeddict" else value

    def value_of(self, stored: object) -> ResultT:
        """The value from what memory keeps (:meth:`stored`): a TypedDict's dict is a fresh copy.

        Example:
            >>> from typing import TypedDict
            >>> class Ack(TypedDict):
            ...     ok: bool
            >>> acks = result_type(Ack)
            >>> acks.value_of(acks.stored({"ok": True}))
            {'ok': True}
        """
        if self.kind == "typeddict":
            return cast(ResultT, thaw(cast(JsonObject, stored)))
        return cast(ResultT, stored)


TEXT: ResultType[str] = ResultType(kind="text")
"""The default result type: the final reply's text."""


def _checked_schema(schema: Mapping[str, object], name: str) -> JsonObject:
    plain = cast(dict[str, Any], thaw(freeze_object(schema)))
    jsonschema.validators.validator_for(plain).check_schema(plain)  # raises SchemaError: a programmer error
    if plain.get("type") != "object":
        raise TypeError(f'result type {name}: the schema must describe an object ("type": "object")')
    return freeze_object(plain)


@functools.lru_cache(maxsize=256)
def _of_class(kind: type, name: str, description: str) -> ResultType[object]:
    """A class's result type, derived once per class (a builder may ask for it on every build)."""
    if not is_object_type(kind):
        raise TypeError(f"a result type is an attrs class, a TypedDict or a JSON Schema, not {kind!r}")
    schema = object_schema(kind)
    described = description or str(schema.pop("description", ""))
    spec = OutputSpec(name=name or kind.__name__, schema=schema, description=described)
    which: ResultKind = "attrs" if attrs.has(kind) else "typeddict"
    return ResultType[object](kind=which, spec=spec, target=kind)


@overload
def result_type(kind: type[T], *, name: str = "", description: str = "") -> ResultType[T]: ...


@overload
def result_type(
    kind: Mapping[str, object], *, name: str = "", description: str = ""
) -> ResultType[JsonObject]: ...


def result_type(
    kind: type[T] | Mapping[str, object], *, name: str = "", description: str = ""
) -> ResultType[T] | ResultType[JsonObject]:
    """The result type of an attrs class, a TypedDict, or a JSON Schema (its schema derived once).

    A class that is neither, or a schema that is invalid or not of an object, is a programmer
    error (``TypeError``, or jsonschema's ``SchemaError``), raised here.

    Example:
        >>> from typing import TypedDict
        >>> class Verdict(TypedDict):
        ...     '''Whether the claim holds.'''
        ...     holds: bool
        >>> verdicts = result_type(Verdict)
        >>> verdicts.kind, verdicts.name, verdicts.spec.description
        ('typeddict', 'Verdict', 'Whether the claim holds.')
    """
    if isinstance(kind, type):
        found: type = kind  # a class is hashable (lru_cache's key); mypy cannot tell for type[T]
        return cast(ResultType[T], _of_class(found, name, description))
    label = name or str(kind.get("title", "") or "result")
    frozen = _checked_schema(kind, label)
    spec = OutputSpec(name=label, schema=frozen, description=description or str(kind.get("description", "")))
    return ResultType[JsonObject](kind="schema", spec=spec)
