"""A machine's page: its graph with the verifier's findings marked, and the changed-machine check.

:func:`graph_data` is the graph the page draws (states, rows, and the states and rows a
finding marks, read with the verifier's own :func:`~verification.diagrams.marks_of`), for
the machine page and every run page. :func:`machine_view` adds the findings in words
and, for the runs stored under the machine's name, :func:`~agentsm_fn.durable.operations.check.check_runs`:
which unfinished runs the code served now would diverge on, and at which step.
"""

from __future__ import annotations

from typing import Any

from returns.result import Failure

from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.durable.operations.check import check_runs
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.inspector.plain import plain
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.shell.credentials import credential_redactor
from verification.diagrams import marks_of
from verification.verify import Report, verify

__all__ = ["graph_data", "machine_view"]


_VERIFIED: dict[str, tuple[Report, dict[str, JsonValue]]] = {}
_KEEP = 64
"""How many machines' reports and graphs are kept (a server serves a few machines; each run page asks)."""


def _verified(machine: Machine[Any, Any, Any]) -> tuple[Report, dict[str, JsonValue]]:
    """The verifier's report on ``machine`` and its graph, made once per machine (by fingerprint)."""
    key = machine_fingerprint(machine)
    found = _VERIFIED.get(key)
    if found is None:
        if len(_VERIFIED) >= _KEEP:
            _VERIFIED.clear()
        report = verify(machine)
        found = _VERIFIED[key] = (report, _graph(report))
    return found


def graph_data(machine: Machine[Any, Any, Any], report: Report | None = None) -> dict[str, JsonValue]:
    """The machine's graph as data: states (initial, terminal, budgeted), rows, and what ``report`` marks.

    Without ``report``, the verifier's report on ``machine`` (made once per machine).

    Example:
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> graph = graph_data(ONE_STEP)
        >>> graph["initial"], graph["rows"]
        ('A', [{'source': 'A', 'event': 'GO', 'target': 'B', 'codes': []}])
    """
    return _verified(machine)[1] if report is None else _graph(report)


def _graph(report: Report) -> dict[str, JsonValue]:
    model, marks = marks_of(report)
    graph: dict[str, JsonValue] = {
        "name": model.name,
        "initial": model.initial,
        "states": [
            {
                "name": s.name,
                "terminal": s.terminal,
                "budgeted": s.budgeted,
                "effectful": s.effectful,
                "codes": list(marks.states.get(s.name, ())),
            }
            for s in model.states
        ],
        "rows": [
            {
                "source": r.source,
                "event": r.event,
                "target": r.target,
                "codes": list(marks.rows.get((r.source, r.event), ())),
            }
            for r in model.rows
        ],
    }
    return graph


def machine_view(store: RunStore, durable: Durable[Any, Any, Any]) -> dict[str, JsonValue]:
    """What the machine page shows: graph, findings, and one verdict per unfinished stored run.

    Example:
        >>> import os, tempfile
        >>> from agentsm_fn.durable import SqliteStore
        >>> from verification._examples import ONE_STEP
        >>> store = SqliteStore.open(os.path.join(tempfile.mkdtemp(), "runs.db")).unwrap()
        >>> view = machine_view(store, Durable(name="app:ONE", machine=ONE_STEP))
        >>> view["ok"], view["checks"]
        (True, [])
        >>> store.close()
    """
    report, graph = _verified(durable.machine)
    redact = credential_redactor()
    checked = check_runs(store, durable.machine, durable.name)
    checks: list[JsonValue] = (
        []
        if isinstance(checked, Failure)
        else [
            {
                "run_id": c.run_id,
                "status": c.status,
                "changed": c.changed,
                "ok": c.ok,
                "step": c.step,
                "unreadable": c.unreadable,
                "text": plain(c.describe(), redact),
                "detail": plain(c.detail, redact),
            }
            for c in checked.unwrap()
        ]
    )
    return {
        "name": durable.name,
        "fingerprint": machine_fingerprint(durable.machine),
        "graph": graph,
        "ok": report.ok,
        "findings": [
            {
                "code": v.code,
                "property": v.prop.name,
                "message": plain(v.message, redact),
                "hint": plain(v.hint, redact),
                "states": list(v.states),
                "events": list(v.events),
            }
            for v in report.counted
        ],
        "checks": checks,
        "check_error": plain(checked.failure().describe(), redact) if isinstance(checked, Failure) else None,
    }
