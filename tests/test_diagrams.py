"""The diagrams committed under docs/diagrams are those the verifier draws of the built-in machines today."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE
from agentsm_fn.agents.react import REACT_MACHINE
from verification import Report, to_dot, to_mermaid, verify

DIAGRAMS = Path(__file__).resolve().parents[1] / "docs" / "diagrams"
REPORTS: dict[str, Callable[[], Report]] = {
    "react": lambda: verify(REACT_MACHINE),
    "plan_execute": lambda: verify(PLAN_EXECUTE_MACHINE),
}
REGENERATE = (
    "regenerate: agentsm-verify agentsm_fn.agents.react:REACT_MACHINE agentsm_fn.agents.plan_execute:"
    "PLAN_EXECUTE_MACHINE --diagrams DIR --diagram-format mermaid --diagram-format dot, "
    "copy into docs/diagrams and render the SVG with `dot -Tsvg`"
)


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_committed_diagrams_match_the_machines(name: str) -> None:
    report = REPORTS[name]()
    assert (DIAGRAMS / f"{name}.mmd").read_text(encoding="utf-8").strip() == to_mermaid(report).strip(), (
        REGENERATE
    )
    assert (DIAGRAMS / f"{name}.dot").read_text(encoding="utf-8").strip() == to_dot(report).strip(), (
        REGENERATE
    )
    svg = (DIAGRAMS / f"{name}.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
