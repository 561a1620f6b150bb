"""The trace: an append-only, immutable record of what a run did.

One entry per transition and per effect a handler requested, each with the step
number, state, event, target state, a data string and a timestamp read from the
shell's injected clock (never from inside the pure core). Backed by a persistent
vector, so appending is cheap however long the run.
"""

from __future__ import annotations

import datetime as _dt
import enum
import json
from collections.abc import Iterable, Iterator

import attrs
from pyrsistent import PVector, pvector

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.journal import digest_summary, effect_digest

__all__ = ["Trace", "TraceEntry"]

_Row = tuple[int, object, object, object, object, float]
"""(step, state, event, target, data, timestamp). The run loop stores enum members,
the digest of a requested effect (with target None; never the effect, which may carry
the whole history) and the narrated data as they are; names are rendered only when an
entry is read. Imported traces hold strings. Either way :class:`TraceEntry` is what
users see."""
_COLUMNS = ("step", "state", "event", "target", "data", "timestamp")


def _name(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    return repr(value)


@attrs.frozen
class TraceEntry:
    """One line of the trace.

    ``event`` is an event name for a transition, or ``"request <Effect>"`` for an
    effect a handler asked for; ``target`` is the next state ("" for requests).
    ``timestamp`` is seconds since the epoch, from the injected clock.

    Example:
        >>> TraceEntry(step=1, state="Idle", event="START", target="Planning",
        ...            data="", timestamp=0.0).at.year
        1970
    """

    step: int
    state: str
    event: str
    target: str
    data: str
    timestamp: float

    @property
    def at(self) -> _dt.datetime:
        """The timestamp as an aware UTC datetime."""
        return _dt.datetime.fromtimestamp(self.timestamp, tz=_dt.UTC)


def _entry(row: _Row) -> TraceEntry:
    step, state, event, target, data, stamp = row
    if target is None:  # an effect request: ``event`` holds the effect's digest
        kind, summary = digest_summary(event)
        return TraceEntry(
            step=step,
            state=_name(state),
            event=f"request {kind}",
            target="",
            data=summary,
            timestamp=stamp,
        )
    return TraceEntry(
        step=step,
        state=_name(state),
        event=_name(event),
        target=_name(target),
        data=_name(data),
        timestamp=stamp,
    )


@attrs.frozen(eq=False)
class Trace:
    """An immutable, append-only sequence of :class:`TraceEntry`.

    Example:
        >>> t = Trace().record(1, "Idle", "START", "Planning", "", 0.0)
        >>> len(t), t.for_state("Idle")[0].target
        (1, 'Planning')
        >>> Trace.from_json(t.to_json()) == t
        True
    """

    rows: PVector[_Row] = attrs.field(factory=pvector, repr=lambda r: f"<{len(r)} entries>")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return self.rows == other.rows or self.entries == other.entries

    def __hash__(self) -> int:
        return hash(self.entries)

    def record(
        self,
        step: int,
        state: str | enum.Enum,
        event: str | enum.Enum,
        target: str | enum.Enum,
        data: str,
        timestamp: float,
    ) -> Trace:
        """Return a new trace with one more transition entry at the end."""
        return Trace(self.rows.append((step, state, event, target, data, timestamp)))

    def record_request(
        self, step: int, state: str | enum.Enum, effect: Effect[object], timestamp: float
    ) -> Trace:
        """Return a new trace with an effect-request entry at the end (the effect kept as its digest)."""
        return Trace(self.rows.append((step, state, effect_digest(effect), None, "", timestamp)))

    def extend(self, rows: Iterable[_Row]) -> Trace:
        """Return a new trace with ``rows`` appended (used by the run loop)."""
        return Trace(self.rows.extend(rows))

    @property
    def entries(self) -> tuple[TraceEntry, ...]:
        """Every entry, oldest first."""
        return tuple(_entry(row) for row in self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[TraceEntry]:
        return (_entry(row) for row in self.rows)

    def __getitem__(self, index: int) -> TraceEntry:
        return _entry(self.rows[index])

    def for_state(self, state: str | enum.Enum) -> tuple[TraceEntry, ...]:
        """The entries recorded while in ``state`` (a state or its name)."""
        name = _name(state)
        return tuple(entry for entry in self if entry.state == name)

    def to_json(self) -> str:
        """Serialize to a pretty-printed JSON array of objects."""
        return json.dumps([attrs.asdict(entry) for entry in self], indent=2)

    @classmethod
    def from_json(cls, text: str) -> Trace:
        """Rebuild a trace from :meth:`to_json` output; raises ``ValueError`` if malformed."""
        data = json.loads(text)
        if not isinstance(data, list):
            raise ValueError("a trace is a JSON array of entries")
        rows: list[_Row] = []
        for index, item in enumerate(data):
            if not isinstance(item, dict) or set(item) != set(_COLUMNS):
                raise ValueError(f"trace entry {index} must have exactly the keys {_COLUMNS}")
            step, state, event, target, info, stamp = (item[key] for key in _COLUMNS)
            strings_ok = all(isinstance(v, str) for v in (state, event, target, info))
            if not (isinstance(step, int) and strings_ok and isinstance(stamp, int | float)):
                raise ValueError(f"trace entry {index} has a field of the wrong type")
            rows.append((step, state, event, target, info, float(stamp)))
        return cls(pvector(rows))

    def render(self, width: int = 100) -> str:
        """A readable table for a terminal: step, time, state, event, target, data."""
        header = f"{'step':>5}  {'time (UTC)':<12}  {'state':<16} {'event':<24} {'-> target':<16} data"
        lines = [header, "-" * width]
        for e in self:
            clock = e.at.strftime("%H:%M:%S.%f")[:12]
            target = f"-> {e.target}" if e.target else ""
            lines.append(f"{e.step:>5}  {clock:<12}  {e.state:<16} {e.event:<24} {target:<16} {e.data}")
        return "\n".join(line if len(line) <= width else line[: width - 1] + "…" for line in lines)
