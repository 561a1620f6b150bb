"""The JSON report: a versioned, documented schema (``verification/schemas/report-v1.schema.json``).

Top level: ``{"schema": "agentsm-verify-report", "version": 1, "tool": ..., "ok": bool,
"machines": [...]}``. Each machine carries its verdicts (one per property, in
code order), its violations (deterministic order) with witnesses and locations,
the soundness verdicts and the step bound. A new field is a compatible change;
renaming or removing one bumps ``version``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

from verification.bound import StepBound
from verification.findings import Edge, Location, PropertyViolation, Witness
from verification.verify import Report

__all__ = ["SCHEMA_PATH", "SCHEMA_VERSION", "Json", "render_json", "report_to_json", "tool_version"]

SCHEMA_VERSION = 1
"""The version of the JSON report's schema."""

SCHEMA_PATH = Path(__file__).parent / "schemas" / "report-v1.schema.json"
"""The JSON Schema that every JSON report validates against."""

Json = dict[str, "JsonValue"]
"""A JSON object."""
JsonValue = str | int | bool | None | list["JsonValue"] | dict[str, "JsonValue"]
"""Any JSON value."""


def tool_version() -> str:
    """The installed version of agentsm-fn, or "0+unknown" when it is not installed.

    Example:
        >>> isinstance(tool_version(), str)
        True
    """
    try:
        return metadata.version("agentsm-fn")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _location(loc: Location | None) -> JsonValue:
    return None if loc is None else {"path": loc.path, "line": loc.line}


def _edges(edges: tuple[Edge, ...]) -> list[JsonValue]:
    return [{"source": e.source, "event": e.event, "target": e.target} for e in edges]


def _witness(w: Witness | None) -> JsonValue:
    if w is None:
        return None
    return {"start": w.start, "stem": _edges(w.stem), "loop": _edges(w.loop), "text": w.render()}


def _violation(v: PropertyViolation) -> JsonValue:
    return {
        "code": v.code,
        "property": v.prop.name,
        "message": v.message,
        "states": list(v.states),
        "events": list(v.events),
        "witness": _witness(v.witness),
        "location": _location(v.location),
        "hint": v.hint,
        "ignored": v.ignored,
    }


def _bound(b: StepBound | None) -> JsonValue:
    if b is None:
        return None
    return {
        "per_budget_unit": b.per_budget_unit,
        "before_first_unit": b.before_first_unit,
        "budgeted": list(b.budgeted),
    }


def report_to_json(report: Report) -> Json:
    """One machine's report as a JSON object.

    Example:
        >>> from verification.verify import verify
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> data = report_to_json(verify(ONE_STEP))
        >>> data["ok"], data["verdicts"][0]["status"], data["bound"]["before_first_unit"]
        (True, 'proved', 1)
    """
    return {
        "machine": report.machine,
        "framework": report.model.framework,
        "states": report.states,
        "rows": report.rows,
        "ok": report.ok,
        "sound": report.sound,
        "strongly_sound": report.strongly_sound,
        "soundness_failures": list(report.soundness_failures),
        "bound": _bound(report.bound),
        "nesting": None
        if report.nesting is None
        else {"depth": report.nesting.depth, "programs": list(report.nesting.programs)},
        "verdicts": [
            {
                "code": v.code,
                "property": v.name,
                "status": v.status,
                "violations": v.violations,
                "reason": v.reason,
            }
            for v in report.verdicts
        ],
        "violations": [_violation(v) for v in report.violations],
    }


def render_json(reports: Sequence[Report]) -> str:
    """The JSON document for ``reports``, indented, ending in a newline.

    Example:
        >>> import json
        >>> json.loads(render_json([]))["version"]
        1
    """
    document: Json = {
        "schema": "agentsm-verify-report",
        "version": SCHEMA_VERSION,
        "tool": {"name": "agentsm-verify", "version": tool_version()},
        "ok": all(r.ok for r in reports),
        "machines": [report_to_json(r) for r in reports],
    }
    return json.dumps(document, indent=2) + "\n"
