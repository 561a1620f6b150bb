"""JSON (schema-valid, versioned), SARIF 2.1.0 and diagrams, over the whole corpus."""

from __future__ import annotations

import json

import attrs
import jsonschema
import pytest

from tests.verification.corpus import build, cleans, defects
from verification import Ignore, verify
from verification.diagrams import to_dot, to_markdown, to_mermaid
from verification.report_json import SCHEMA_PATH, render_json
from verification.report_sarif import render_sarif

CORPUS = {**defects(), **cleans()}


def test_json_report_validates_against_its_versioned_schema() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    reports = [verify(m, policies=p) for m, p in CORPUS.values()]
    document = json.loads(render_json(reports))
    jsonschema.Draft202012Validator(schema).validate(document)
    assert document["version"] == 1
    assert document["ok"] is False
    codes = sorted({v["code"] for m in document["machines"] for v in m["violations"]})
    # SM014 is LangGraph's: test_foreign_langgraph.py; SM017 a team's: test_teams.py
    assert codes == [f"SM{n:03}" for n in (*range(1, 14), 15, 16, 18)]


def test_json_report_is_deterministic() -> None:
    machine, policies = CORPUS["SM009 unbudgeted cycle"]
    assert render_json([verify(machine, policies=policies)]) == render_json(
        [verify(machine, policies=policies)]
    )


def test_json_lasso_witness_has_stem_and_loop() -> None:
    machine, _ = CORPUS["SM009 unbudgeted cycle"]
    (violation,) = json.loads(render_json([verify(machine)]))["machines"][0]["violations"]
    assert [e["event"] for e in violation["witness"]["stem"]] == ["START"]
    assert [e["event"] for e in violation["witness"]["loop"]] == ["PLANNED", "ACTED"]


def test_sarif_has_one_rule_per_property_and_one_result_per_violation() -> None:
    reports = [verify(m, policies=p) for m, p in CORPUS.values()]
    log = json.loads(render_sarif(reports))
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [f"SM{n:03}" for n in range(1, 19)]
    results = run["results"]
    assert len(results) == sum(len(r.violations) for r in reports)
    for result in results:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == "error" and result["message"]["text"]
        for loc in result.get("locations", []):
            assert loc["physicalLocation"]["region"]["startLine"] >= 1


def test_sarif_suppresses_ignored_violations_with_the_reason() -> None:
    report = verify(build(name="loop", budgeted=()), ignores=(Ignore("SM009", "bounded elsewhere"),))
    (result,) = json.loads(render_sarif([report]))["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "external", "justification": "bounded elsewhere"}]
    assert result["codeFlows"][0]["threadFlows"][0]["locations"]


def test_sarif_result_points_at_the_offending_row() -> None:
    from tests.verification import machines as mx

    (result,) = json.loads(render_sarif([verify(mx.WORKER_DEAD_ROW)]))["runs"][0]["results"]
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"]["uri"].endswith("tests/verification/machines.py")


@pytest.mark.parametrize("render", [to_mermaid, to_dot, to_markdown])
def test_diagrams_name_every_row(render: object) -> None:
    machine, _ = CORPUS["baseline"]
    report = verify(machine)
    assert callable(render)
    text = render(report)
    for row in report.model.rows:
        assert row.event in text


def test_mermaid_marks_terminals_budgeted_and_the_offending_cycle() -> None:
    text = to_mermaid(verify(build(name="loop", budgeted=())))
    assert "class DONE,FAILED terminal" in text
    assert "PLAN --> ACT: PLANNED !SM009" in text and "ACT --> PLAN: ACTED !SM009" in text
    assert "class PLAN,ACT violation" in text
    assert "budgeted" in to_mermaid(verify(build(name="clean")))


def test_mermaid_marks_unreachable_states() -> None:
    machine, _ = CORPUS["SM002 unreachable state"]
    assert 'state "LOST [SM002]" as LOST' in to_mermaid(verify(machine))


def test_dot_marks_the_cycle_and_terminals() -> None:
    text = to_dot(verify(build(name="loop", budgeted=())))
    assert '"PLAN" -> "ACT" [label="PLANNED", color=red' in text
    assert '"DONE" [label="DONE", peripheries=2];' in text
    assert text.startswith('digraph "loop" {') and text.rstrip().endswith("}")


def test_markdown_table_lists_findings_per_row() -> None:
    machine, _ = CORPUS["SM007 dead row"]
    lines = to_markdown(verify(machine)).splitlines()
    assert lines[0] == "| State | Event | Next | Findings |"
    assert "| IDLE (initial) | FINISHED | DONE (terminal) | SM007 |" in lines


def test_undeclared_states_get_safe_mermaid_identifiers() -> None:
    machine, _ = CORPUS["SM006 undeclared target"]
    text = to_mermaid(verify(machine))
    assert 'state "Other.GHOST [SM006]" as Other_GHOST' in text


def test_sarif_uses_file_uris_for_paths_outside_the_project() -> None:
    from verification import Location, PropertyViolation
    from verification.report_sarif import sarif_document

    report = verify(build(name="loop", budgeted=()))
    outside = attrs.evolve(
        report,
        violations=(
            PropertyViolation(code="SM009", message="m", location=Location("/elsewhere/agent.py", 3)),
        ),
    )
    run = sarif_document([outside])["runs"]
    assert isinstance(run, list) and isinstance(run[0], dict)
    results = run[0]["results"]
    assert isinstance(results, list) and isinstance(results[0], dict)
    assert results[0]["locations"] == [
        {
            "physicalLocation": {
                "artifactLocation": {"uri": "file:///elsewhere/agent.py"},
                "region": {"startLine": 3},
            }
        }
    ]


def test_reports_are_identical_across_hash_seeds() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "from tests.verification.corpus import defects, cleans\n"
        "from verification import verify, render_json, render_sarif, to_mermaid, to_dot\n"
        "reports = [verify(m, policies=p) for m, p in {**defects(), **cleans()}.values()]\n"
        "print(render_json(reports) + render_sarif(reports))\n"
        "print(''.join(to_mermaid(r) + to_dot(r) for r in reports))\n"
    )
    root = Path(__file__).resolve().parents[2]
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
