"""Temporal payloads built on the project's value codec, and compression of large ones.

Every value a run sends through Temporal (a workflow's start snapshot, each effect
as an activity's input, each outcome as its result, the run's end) is encoded by a
:class:`ValueCodec`, by default the durable store's codec (:class:`DurableCodec`), so
it comes back exactly as it left: tuples stay tuples, enums and frozen classes are
rebuilt, ``1`` and ``1.0`` and ``True`` stay apart. Values the codec cannot encode
(a protobuf message, a class defined inside a function) fall through to Temporal's
own converters.

Temporal refuses a payload over 2 MB and fails a workflow whose history passes
50 MB. An LLM call carries the conversation so far, so a run's history grows
faster than the run; :class:`ZlibPayloadCodec` compresses every payload over a
threshold (see docs/temporal.md for measured sizes), and the workflow continues
as new when its history gets large (see ``workflow.py`` and docs/temporal.md).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any, Final, Protocol

import attrs
import temporalio.api.common.v1
import temporalio.converter
from returns.result import Failure, Result, Success

from agentsm_fn.durable.stores.codec import from_bytes, to_bytes

__all__ = [
    "ENCODING",
    "DurableCodec",
    "PayloadDecodeError",
    "ValueCodec",
    "ValuePayloadConverter",
    "ZlibPayloadCodec",
    "data_converter",
]

ENCODING: Final = "binary/agentsm"
"""The ``encoding`` metadata of payloads written by the value codec."""
_ZLIB: Final = b"binary/zlib"

Payload = temporalio.api.common.v1.Payload


class ValueCodec(Protocol):
    """What the payload converter needs of a codec: bytes out, a value (or a failure) back."""

    def dumps(self, value: object) -> bytes:
        """``value`` as bytes; raises ValueError (or TypeError) for a value it cannot encode."""
        ...

    def loads(self, data: bytes) -> Result[object, Exception]:
        """The value ``data`` encodes; corrupt data or an unknown class is a ``Failure``."""
        ...


class PayloadDecodeError(ValueError):
    """A payload could not be decoded: corrupt, or of a class this process does not know."""


@attrs.frozen
class DurableCodec:
    """The durable store's codec (``agentsm_fn.durable.stores.codec``: msgpack, classes by module and name).

    Example:
        >>> codec = DurableCodec()
        >>> codec.loads(codec.dumps((1, 1.0, True))).unwrap()
        (1, 1.0, True)
    """

    def dumps(self, value: object) -> bytes:
        """``value`` as bytes; ValueError (naming the field) if the codec cannot encode it."""
        encoded = to_bytes(value)
        if isinstance(encoded, Failure):
            raise ValueError(encoded.failure().describe())
        return encoded.unwrap()

    def loads(self, data: bytes) -> Result[object, Exception]:
        """The value ``data`` encodes, or a ``Failure`` naming the field and the problem."""
        return from_bytes(data, object).alt(lambda failure: ValueError(failure.describe()))


_DEFAULT_CODEC: Final = DurableCodec()


class ValuePayloadConverter(temporalio.converter.EncodingPayloadConverter):
    """Encodes values with a :class:`ValueCodec` (``binary/agentsm`` payloads).

    Example:
        >>> converter = ValuePayloadConverter()
        >>> payload = converter.to_payload((1, 1.0, True))
        >>> payload.metadata["encoding"], converter.from_payload(payload)
        (b'binary/agentsm', (1, 1.0, True))
    """

    codec: ValueCodec = _DEFAULT_CODEC

    @property
    def encoding(self) -> str:
        return ENCODING

    def to_payload(self, value: Any) -> Payload | None:
        try:
            data = self.codec.dumps(value)
        except (ValueError, TypeError, RecursionError):
            return None  # not ours: the next converter (Temporal's JSON) tries
        return Payload(metadata={"encoding": ENCODING.encode()}, data=data)

    def from_payload(self, payload: Payload, type_hint: type | None = None) -> Any:
        match self.codec.loads(payload.data):
            case Success(value):
                return value
            case Failure(error):
                raise PayloadDecodeError(f"payload not decodable: {error}")
        raise AssertionError("unreachable")  # pragma: no cover


def _converter_class(codec: ValueCodec) -> type[temporalio.converter.CompositePayloadConverter]:
    """A payload converter class (Temporal builds it with no arguments) that uses ``codec``."""
    values = type("BoundValuePayloadConverter", (ValuePayloadConverter,), {"codec": codec})()
    defaults = temporalio.converter.DefaultPayloadConverter.default_encoding_payload_converters
    # None and bytes as Temporal encodes them, protobuf messages too; our values before plain JSON.
    converters = (*defaults[:-1], values, defaults[-1])

    class AgentsmPayloadConverter(temporalio.converter.CompositePayloadConverter):
        """Temporal's converters with the project's value codec before plain JSON."""

        def __init__(self) -> None:
            super().__init__(*converters)

    return AgentsmPayloadConverter


@attrs.frozen
class ZlibPayloadCodec(temporalio.converter.PayloadCodec):
    """Compresses payloads larger than ``threshold`` bytes with zlib (the rest pass unchanged).

    Example:
        >>> import asyncio
        >>> codec = ZlibPayloadCodec(threshold=10)
        >>> big = Payload(metadata={"encoding": b"json/plain"}, data=b"x" * 1000)
        >>> packed = asyncio.run(codec.encode([big]))
        >>> len(packed[0].data) < 100, asyncio.run(codec.decode(packed)) == [big]
        (True, True)
    """

    threshold: int = 4096
    level: int = 6

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._pack(p) if p.ByteSize() > self.threshold else p for p in payloads]

    def _pack(self, payload: Payload) -> Payload:
        data = zlib.compress(payload.SerializeToString(), self.level)
        return Payload(metadata={"encoding": _ZLIB}, data=data)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._unpack(p) if p.metadata.get("encoding") == _ZLIB else p for p in payloads]

    @staticmethod
    def _unpack(payload: Payload) -> Payload:
        try:
            inner = Payload()
            inner.ParseFromString(zlib.decompress(payload.data))
        except (zlib.error, ValueError) as exc:  # protobuf's DecodeError is a ValueError
            raise PayloadDecodeError(f"compressed payload is corrupt: {exc}") from exc
        return inner


def data_converter(
    codec: ValueCodec | None = None, *, compress_over: int | None = 4096
) -> temporalio.converter.DataConverter:
    """The data converter for clients, workers and replayers of machine runs.

    ``codec`` encodes values (the project's codec by default); payloads over
    ``compress_over`` bytes are compressed (None: never).

    Example:
        >>> converter = data_converter()
        >>> isinstance(converter.payload_codec, ZlibPayloadCodec)
        True
    """
    return temporalio.converter.DataConverter(
        payload_converter_class=_converter_class(codec or _DEFAULT_CODEC),
        payload_codec=None if compress_over is None else ZlibPayloadCodec(threshold=compress_over),
    )
