"""A durable run's trace context across processes, with no tracing library imported here.

The shell's observer may be a :class:`TraceCarrier` (``agentsm_fn.otel.OtelObserver`` is):
it can say the W3C trace context of the run being performed, as a small mapping of
strings, and continue a run inside a stored one. When the first effect a process performs
for a run starts, its context is saved with the run (if the store is a
:class:`~agentsm_fn.durable.stores.protocol.store.TraceContexts`; the first one saved is kept); a run
resumed or recovered in any process runs inside ``continuing(stored)``, so its span
links to the trace that started it. Tracing is advisory: a context that cannot be
saved or read leaves the run untraced across processes and changes nothing else.

An observer that is also an :class:`EffectCarrier` can say the context of the effect being
performed: a parent's child-run effect saves it as each child's trace context when it stores
the children (:func:`nesting`), so a child run, wherever it runs, runs inside it and its span
nests under the parent's effect span (the observer reads the context it gets back as a parent,
not a link).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from agentsm_fn.durable.running.session import Session
from agentsm_fn.durable.stores.protocol.store import RunStore, TraceContexts
from agentsm_fn.shell.run import Shell

__all__ = ["EffectCarrier", "TraceCarrier", "carry", "continued", "nesting"]


@runtime_checkable
class TraceCarrier(Protocol):
    """An observer that can hand a run's trace context to another process and link to one."""

    def trace_carrier(self) -> Mapping[str, str]:
        """The trace context of the run being performed here (``{}`` if none)."""
        ...

    def continuing(self, carrier: Mapping[str, str]) -> AbstractContextManager[None]:
        """Runs started inside link to the run traced as ``carrier``."""
        ...


@runtime_checkable
class EffectCarrier(Protocol):
    """An observer that can say the trace context of the effect being performed, for runs it starts."""

    def effect_carrier(self) -> Mapping[str, str]:
        """The context a run the current effect starts nests under (``{}`` if none)."""
        ...


Nesting = Callable[[], Mapping[str, str]]
"""The trace context a child run started by the current effect nests under."""


def nesting(shell: Shell) -> Nesting | None:
    """What the children a run of ``shell`` starts nest under: its observer's effect context, if any."""
    observer = shell.observer  # checked for None first: a runtime protocol's isinstance is slow
    return observer.effect_carrier if observer is not None and isinstance(observer, EffectCarrier) else None


def _carrier(shell: Shell) -> TraceCarrier | None:
    observer = shell.observer
    return observer if observer is not None and isinstance(observer, TraceCarrier) else None


def carry(session: Session, shell: Shell) -> None:
    """Have ``session`` save the run's trace context when its first effect is performed here."""
    carrier, store = _carrier(shell), session.store
    if carrier is None or not isinstance(store, TraceContexts):
        return
    run_id = session.run_id

    def save() -> None:
        found = carrier.trace_carrier()
        if found:
            store.save_trace_context(run_id, found)  # advisory: a failure leaves the run unlinked

    session.first_perform = save


def continued(store: RunStore, run_id: str, shell: Shell) -> AbstractContextManager[None]:
    """The context to resume ``run_id`` in: linked to its stored trace context, if any."""
    carrier = _carrier(shell)
    if carrier is None or not isinstance(store, TraceContexts):
        return contextlib.nullcontext()
    stored = store.trace_context(run_id)
    found = stored.value_or({})
    return carrier.continuing(found) if found else contextlib.nullcontext()
