"""The journal: every input from the world a run consumed, in order.

Two kinds of entry. A *tick* is the clock reading the shell took before running a
state's handler. An *outcome* is the result of an effect, written before the
handler sees it, with a *digest* of the effect it answers. Folding the journal from
the same start snapshot (``replay``) reproduces the run exactly with no IO: the
journal is the run's only input. Replay recomputes each effect and checks it
against the journaled digest (``ReplayDiverged`` names the entry where they differ).

The journal keeps a digest, never the effect itself: an effect that carries the
run's history (an LLM call with every message) would otherwise make a long run's
memory grow with the square of its length. :func:`effect_digest` is the in-memory
digest, chosen to cost nothing on the hot path and to be plain data (strings, so any
codec stores it): the effect's class name, plus its one-line summary when the class
overrides ``summary()``. Replay therefore notices
an effect of another type or with another summary (another tool, model, purpose or
number of messages, ...), not a change that leaves both alike; the durable store
keeps a stronger digest (a hash of the encoded effect) and passes it to ``replay``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final, TypeAlias

import attrs
from pyrsistent import PVector, pvector

from agentsm_fn.core.effects import Effect, describe_effect

__all__ = ["EffectDigest", "Journal", "JournalEntry", "digest_summary", "effect_digest"]

EffectDigest: TypeAlias = object
"""What a journal keeps of an effect: whatever its digest function returns (compared with ``==``)."""

DigestFn: TypeAlias = Callable[[Effect[object]], EffectDigest]
"""A digest function: :func:`effect_digest`, or a store's stronger one."""

_Row = float | tuple[float, EffectDigest, object]
"""A tick is stored as its bare clock reading (one allocation fewer per step in the run
loop); an outcome as (clock reading, effect digest, outcome)."""

_DEFAULT_SUMMARY: Final = Effect.summary
_PLAIN_SUMMARY: Final[dict[type, str]] = {}
"""Effect classes seen to keep ``Effect.summary``, to their digest (the class name alone)."""
_CUSTOM_SUMMARY: Final[set[type]] = set()


def effect_digest(effect: Effect[object]) -> EffectDigest:
    """The in-memory digest of ``effect``: its class name, or (name, summary) if it has its own summary.

    O(1) for every effect whose ``summary()`` is (as it should be) a short line;
    it keeps no reference to the effect. The run loop inlines the common case.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Ask(Effect[str]):
        ...     outcome_types = (str,)
        ...     question: str = ""
        ...     def summary(self) -> str:
        ...         return f"Ask {len(self.question)} chars"
        >>> effect_digest(Ask("name?"))
        ('Ask', 'Ask 5 chars')
        >>> @attrs.frozen
        ... class Tick(Effect[float]):
        ...     outcome_types = (float,)
        >>> effect_digest(Tick())
        'Tick'
    """
    kind = type(effect)
    plain = _PLAIN_SUMMARY.get(kind)
    if plain is not None:
        return plain
    if kind not in _CUSTOM_SUMMARY:
        if kind.summary is _DEFAULT_SUMMARY:
            _PLAIN_SUMMARY[kind] = kind.__name__
            return kind.__name__
        _CUSTOM_SUMMARY.add(kind)
    return kind.__name__, describe_effect(effect)


def digest_summary(digest: object) -> tuple[str, str]:
    """The effect's class name and one-line summary, read back from an :func:`effect_digest`.

    Any other digest (a store's) reads as its ``str``.

    Example:
        >>> import attrs
        >>> @attrs.frozen
        ... class Tick(Effect[float]):
        ...     outcome_types = (float,)
        >>> digest_summary(effect_digest(Tick()))
        ('Tick', 'Tick')
    """
    if type(digest) is tuple and len(digest) == 2:
        return str(digest[0]), str(digest[1])
    return str(digest), str(digest)


def _entry(row: _Row) -> JournalEntry:
    if not isinstance(row, tuple):  # a tick (a clock may return an int as well as a float)
        return JournalEntry(at=row)
    at, digest, outcome = row
    return JournalEntry(at=at, digest=digest, outcome=outcome)


@attrs.frozen
class JournalEntry:
    """One input: a clock reading, plus the effect's digest and its outcome for an outcome entry.

    Example:
        >>> JournalEntry(at=2.0).is_tick
        True
    """

    at: float
    digest: EffectDigest = None
    outcome: object = None

    @property
    def is_tick(self) -> bool:
        """True for a clock reading before a handler ran; False for an effect outcome."""
        return self.digest is None


@attrs.frozen
class Journal:
    """An immutable, append-only sequence of :class:`JournalEntry`.

    Example:
        >>> j = Journal().tick(1.0)
        >>> len(j), j[0].is_tick
        (1, True)
    """

    rows: PVector[_Row] = attrs.field(factory=pvector, repr=lambda r: f"<{len(r)} entries>")

    def tick(self, at: float) -> Journal:
        """Return a journal with a clock reading appended."""
        return Journal(self.rows.append(float(at)))

    def outcome(self, effect: Effect[object], outcome: object, at: float) -> Journal:
        """Return a journal with an effect's outcome appended (the effect kept as its digest)."""
        return Journal(self.rows.append((at, effect_digest(effect), outcome)))

    def record(self, digest: EffectDigest, outcome: object, at: float) -> Journal:
        """Return a journal with an outcome appended under a digest computed elsewhere (a store's).

        Example:
            >>> Journal().record("sha256:ab12", 42, 1.0)[0].digest
            'sha256:ab12'
        """
        if digest is None:
            raise ValueError("an outcome entry needs a digest (None marks a tick)")
        return Journal(self.rows.append((at, digest, outcome)))

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> JournalEntry:
        return _entry(self.rows[index])

    def __iter__(self) -> Iterator[JournalEntry]:
        return (_entry(row) for row in self.rows)

    @property
    def outcomes(self) -> tuple[object, ...]:
        """The effect outcomes alone, in order."""
        return tuple(entry.outcome for entry in self if entry.digest is not None)
