"""Child process of the resume test: resume a suspended run read from stdin, print its spans as JSON."""

from __future__ import annotations

import json
import sys

from agentsm_fn.agents.react import Approved, Suspended
from agentsm_fn.otel import continuing
from tests.otel.agents import approval_agent, approval_replies
from tests.otel.spans import traced


def main() -> int:
    stored = json.loads(sys.stdin.read())
    suspended = Suspended.from_json(stored["suspended"]).unwrap()
    tracing = traced(provider_name="scripted")
    agent = approval_agent(tracing.observer, approval_replies()[1:])  # the first reply was used before
    with continuing(stored["trace_context"]):
        done = agent.resume(suspended, Approved())
    assert done.unwrap().answer == "The trip to Rome has been refunded."  # type: ignore[union-attr]  # Completed
    spans = [
        {
            "name": s.name,
            "trace_id": s.context.trace_id if s.context else 0,
            "span_id": s.context.span_id if s.context else 0,
            "parent": s.parent.span_id if s.parent else None,
            "links": [[link.context.trace_id, link.context.span_id] for link in s.links],
            "attributes": dict(s.attributes or {}),
            "events": [[e.name, dict(e.attributes or {})] for e in s.events],
        }
        for s in tracing.spans()
    ]
    print(json.dumps(spans))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
