"""Decoding a recording's values (start memory, outcomes, final memory) in one pass of the codec."""

from __future__ import annotations

import re
from typing import Final

import msgspec
from returns.result import Failure, Result, Success

from agentsm_fn.regression.errors import RecordingInvalid, RecordingProblem
from agentsm_fn.regression.json_form import from_json_form
from agentsm_fn.regression.values import Recording

__all__: list[str] = []

_PARSE: Final = msgspec.json.Decoder().decode
_INDEX: Final = re.compile(r"\[(\d+)\](.*)", re.DOTALL)


def decode_values(
    recording: Recording, source: str
) -> Result[tuple[object, tuple[object, ...], object], RecordingInvalid]:
    """The start memory, the outcomes of the answered effects in order, and the final memory."""
    answered = [effect for effect in recording.effects if effect.outcome is not None]
    texts = (recording.memory, *(effect.outcome or "null" for effect in answered), recording.end.memory)
    decoded = from_json_form(_PARSE(f"[{','.join(texts)}]"), tuple)
    if isinstance(decoded, Failure):
        failure = decoded.failure()
        fields = ["start.memory", *(f"effects[{effect.seq}].outcome" for effect in answered), "end.memory"]
        found = _INDEX.fullmatch(failure.path)
        field, rest = (
            (fields[int(found[1])], found[2]) if found and int(found[1]) < len(fields) else ("", failure.path)
        )
        detail = f"{failure.kind.value}: {failure.detail}"
        return Failure(
            RecordingInvalid(
                source=source, problem=RecordingProblem.VALUE, field=f"{field}{rest}", detail=detail
            )
        )
    values = decoded.unwrap()
    return Success((values[0], tuple(values[1:-1]), values[-1]))
