"""The SARIF 2.1.0 report, for code-scanning annotations (GitHub and other SARIF consumers).

One run with one rule per property (``SM001``..``SM018``); one result per
violation with its message, the row's or handler's location (falling back to the
state enum's definition so every result can be annotated), the witness as a
code flow, and an external suppression carrying the reason when it is ignored.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path, PurePath

from verification.findings import PROPERTIES, Location, PropertyViolation
from verification.report_json import Json, JsonValue, tool_version
from verification.verify import Report

__all__ = ["SARIF_SCHEMA", "render_sarif", "sarif_document"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
"""The schema URI every SARIF 2.1.0 log names."""

_HINTS = {
    "SM001": "Pass one member of the state enum as initial=.",
    "SM002": "Add a row that leads to each unreachable state, or remove it.",
    "SM003": "Remove rows from terminal states, or make them non-terminal.",
    "SM004": "Add rows from the state, or list it in terminals=.",
    "SM005": "Give the region an exit row to a terminal state.",
    "SM006": "Use declared states and events in the table; give every non-terminal state a handler.",
    "SM007": "Remove the row, or let the handler emit its event.",
    "SM008": "Add a row for every event the handler can emit.",
    "SM009": "Mark a state of the loop budgeted=, or break the loop.",
    "SM010": "Declare failure_event= on effectful states and add its row.",
    "SM011": "Route every path through the required state.",
    "SM012": "Remove the rows that reach the forbidden state.",
    "SM013": "Annotate handler returns with Literal events or declare events=.",
    "SM014": "Compile the graph with a checkpointer, or remove the interrupt.",
    "SM015": "Give each guardrail's action an event in guarding(...) and a row for it.",
    "SM016": "Map each terminal of the child, its failure and its cancellation to an event with a row.",
    "SM017": "Give an agent on the cycle a way to a terminal state that hands nothing over.",
    "SM018": "Bound the recursion by a machine that delegates to none.",
}


def _physical(loc: Location) -> Json:
    path = PurePath(loc.path)
    artifact: Json = (
        {"uri": Path(path).as_uri()}
        if path.is_absolute()
        else {"uri": path.as_posix(), "uriBaseId": "%SRCROOT%"}
    )
    return {"physicalLocation": {"artifactLocation": artifact, "region": {"startLine": loc.line}}}


def _result(report: Report, v: PropertyViolation, index: dict[str, int]) -> Json:
    result: Json = {
        "ruleId": v.code,
        "ruleIndex": index[v.code],
        "level": "error",
        "message": {"text": f"[{report.machine}] {v.message}" + (f" Hint: {v.hint}" if v.hint else "")},
        "properties": {"machine": report.machine, "states": list(v.states), "events": list(v.events)},
        "partialFingerprints": {
            "agentsmViolation/v1": "|".join((report.machine, v.code, *v.states, *v.events)),
        },
    }
    loc = v.location or report.model.origin
    if loc is not None:
        result["locations"] = [_physical(loc)]
    if v.witness is not None:
        steps: list[JsonValue] = [
            {"location": {"message": {"text": str(e)}}} for e in (*v.witness.stem, *v.witness.loop)
        ]
        if not steps:
            steps = [{"location": {"message": {"text": v.witness.start}}}]
        result["codeFlows"] = [
            {"message": {"text": v.witness.render()}, "threadFlows": [{"locations": steps}]}
        ]
    if v.ignored is not None:
        result["suppressions"] = [{"kind": "external", "justification": v.ignored}]
    return result


def sarif_document(reports: Sequence[Report]) -> Json:
    """The SARIF 2.1.0 log for ``reports`` as a JSON object.

    Example:
        >>> doc = sarif_document([])
        >>> doc["version"], [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]][:2]
        ('2.1.0', ['SM001', 'SM002'])
    """
    index = {p.code: i for i, p in enumerate(PROPERTIES)}
    rules: list[JsonValue] = [
        {
            "id": p.code,
            "name": p.name,
            "shortDescription": {"text": p.question},
            "help": {"text": _HINTS[p.code]},
            "defaultConfiguration": {"level": "error"},
        }
        for p in PROPERTIES
    ]
    results: list[JsonValue] = [_result(r, v, index) for r in reports for v in r.violations]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "agentsm-verify",
                        "version": tool_version(),
                        "informationUri": "https://github.com/agentsm-fn/agentsm-fn/blob/main/docs/verification.md",
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }


def render_sarif(reports: Sequence[Report]) -> str:
    """The SARIF 2.1.0 log for ``reports`` as indented text ending in a newline.

    Example:
        >>> render_sarif([]).startswith('{')
        True
    """
    return json.dumps(sarif_document(reports), indent=2) + "\n"
