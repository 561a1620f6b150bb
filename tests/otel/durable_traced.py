"""A durable order machine traced with the in-memory exporter of its own process (parent or child)."""

from __future__ import annotations

import json
import os
import signal
import sys

import attrs

from agentsm_fn import Shell, StepClock
from agentsm_fn.durable import Durable, SqliteStore
from tests.durable.machines import ORDERS, Charge, Order, performers
from tests.otel.spans import traced

TRACING = traced()


def _shell() -> Shell:
    return Shell(performers(), StepClock(start=1000.0), TRACING.observer)


TRACED_ORDERS = Durable(name="tests.otel.durable_traced:TRACED_ORDERS", machine=ORDERS, shell=_shell)


def _killing_shell() -> Shell:
    def die(_effect: Charge) -> str:
        os.kill(os.getpid(), signal.SIGKILL)
        return "never"

    return Shell(performers().on(Charge, die), StepClock(start=1000.0), TRACING.observer)


KILLED_ORDERS = attrs.evolve(TRACED_ORDERS, shell=_killing_shell)
"""The same stored name: its process kills itself (SIGKILL) while the first charge is in flight."""


def spans_json() -> str:
    """This process's spans: name, ids, parent and links."""
    return json.dumps(
        [
            {
                "name": s.name,
                "trace_id": s.context.trace_id if s.context else 0,
                "span_id": s.context.span_id if s.context else 0,
                "links": [[link.context.trace_id, link.context.span_id] for link in s.links],
            }
            for s in TRACING.spans()
        ]
    )


def main() -> int:
    """Child: in store ``argv[1]``, start-and-die, resume or recover run ``argv[2]``; print spans."""
    store = SqliteStore.open(sys.argv[1]).unwrap()
    if sys.argv[3] == "start-and-die":
        KILLED_ORDERS.start(store, Order(items=2), run_id=sys.argv[2])
        return 1  # not reached
    if sys.argv[3] == "recover":
        from agentsm_fn.durable.operations.recovery import recover

        (recovered,) = recover(store, [TRACED_ORDERS]).unwrap()
        assert recovered.result.unwrap().finished
    else:
        assert TRACED_ORDERS.resume(store, sys.argv[2]).unwrap().finished
    print(spans_json())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
