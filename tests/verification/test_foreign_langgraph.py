"""LangGraph graphs built with the real library: sound ones pass, each defect is found where it is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, TypedDict

import jsonschema
import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from tests.verification import langgraph_graphs as graphs
from tests.verification.langgraph_graphs import line_of
from verification import (
    Location,
    MachineGraph,
    NeverReachable,
    PassesThrough,
    Report,
    render_json,
    render_sarif,
    verify_graph,
)
from verification.cli import main
from verification.foreign import read_foreign
from verification.report_json import SCHEMA_PATH

FILE = "tests/verification/langgraph_graphs.py"


class Count(TypedDict):
    n: int


def model_of(graph: object) -> MachineGraph:
    model = read_foreign(graph, [graphs.__file__])
    assert isinstance(model, MachineGraph), model
    return model


def report_of(graph: object) -> Report:
    return verify_graph(model_of(graph), label=type(graph).__name__)


def codes(report: Report) -> list[str]:
    return [v.code for v in report.counted]


@pytest.mark.parametrize("name", ["REACT", "COMMAND", "FAN_OUT"])
def test_a_sound_graph_proves_every_applicable_property(name: str) -> None:
    report = report_of(getattr(graphs, name))
    assert report.ok and report.sound, [v.message for v in report.violations]
    not_applicable = {"SM009", "SM010", "SM015", "SM016", "SM017", "SM018"}
    assert {v.code for v in report.verdicts if v.status == "not applicable"} == not_applicable


def test_nodes_edges_and_conditional_edges_become_the_rows_of_the_model() -> None:
    model = model_of(graphs.REACT)
    assert model.framework == "langgraph"
    assert model.initial == START and model.terminals == (END,)
    assert [(r.source, r.event, r.target) for r in model.rows] == [
        (START, "edge", "agent"),
        ("agent", "__end__", END),
        ("agent", "tools", "review"),
        ("review", "edge", "tools"),
        ("tools", "edge", "agent"),
    ]
    assert model.by_name["agent"].emits == frozenset(
        {"tools", "__end__"}
    )  # read from should_continue's Literal
    assert model.by_name["agent"].location == Location(FILE, line_of("def should_continue("))
    assert model.by_name["tools"].location == Location(FILE, line_of("def tools("))


def test_a_built_graph_and_its_compiled_graph_read_the_same() -> None:
    assert model_of(graphs._react()).rows == model_of(graphs.REACT).rows


def test_an_unreachable_node_is_found_at_its_function() -> None:
    report = report_of(graphs.UNREACHABLE)
    assert codes(report) == ["SM002"]
    (found,) = report.counted
    assert found.states == ("forgotten",)
    assert found.location == Location(FILE, line_of("def tools("))


def test_a_node_without_a_way_on_is_a_dead_end() -> None:
    report = report_of(graphs.DEAD_END)
    assert codes(report) == ["SM004", "SM005"]
    dead = report.counted[0]
    assert dead.states == ("tools",)
    assert dead.witness is not None and dead.witness.render() == "__start__ --edge--> agent --edge--> tools"
    assert "add_edge(node, END)" in dead.hint


def test_a_cycle_with_no_exit_is_a_livelock() -> None:
    report = report_of(graphs.LIVELOCK)
    assert codes(report) == ["SM005"]
    (found,) = report.counted
    assert found.message.startswith("livelock region {agent, tools}")
    assert found.witness is not None
    assert (
        found.witness.render()
        == "__start__ --edge--> agent, then loop: agent --edge--> tools --edge--> agent"
    )


def test_a_cycle_with_an_exit_is_no_finding() -> None:
    assert "SM005" not in codes(report_of(graphs.REACT))  # agent -> review -> tools -> agent, exit to END


def test_an_edge_to_an_undeclared_node_is_found_at_its_add_edge_line() -> None:
    report = report_of(graphs.TYPO)
    orphan = next(v for v in report.counted if v.code == "SM006")
    assert orphan.states == ("agent", "toolz")
    assert orphan.location == Location(FILE, line_of('TYPO.add_edge("agent", "toolz")'))


def test_a_conditional_edge_whose_targets_cannot_be_known_is_found_at_its_routing_function() -> None:
    report = report_of(graphs.UNKNOWN_ROUTE)
    assert codes(report) == ["SM013"]
    (found,) = report.counted
    assert "guess returns str, not Literal node names" in found.message
    assert found.location == Location(FILE, line_of("def guess("))


def test_a_command_without_annotated_destinations_is_found_at_its_node() -> None:
    report = report_of(graphs.UNANNOTATED_COMMAND)
    assert codes(report) == ["SM013"]
    assert report.counted[0].location == Location(FILE, line_of("def wander("))


def test_a_command_with_annotated_destinations_is_a_route() -> None:
    rows = model_of(graphs.COMMAND).rows
    assert ("agent", "goto", "tools") in [(r.source, r.event, r.target) for r in rows]


def test_a_value_the_routing_function_returns_but_the_path_map_lacks_is_found() -> None:
    report = report_of(graphs.MISSING_ROUTE)
    assert codes(report) == ["SM008"]
    (found,) = report.counted
    assert found.events == ("drop",)
    assert found.location == Location(FILE, line_of("def triage("))


def test_a_path_map_entry_the_routing_function_never_returns_is_a_dead_route() -> None:
    report = report_of(graphs.DEAD_ROUTE)
    assert codes(report) == ["SM007"]
    assert report.counted[0].events == ("retry",)


def test_an_interrupt_without_a_checkpointer_is_found_where_it_is_called() -> None:
    report = report_of(graphs.REACT_WITHOUT_CHECKPOINTER)
    assert codes(report) == ["SM014"]
    (found,) = report.counted
    assert found.states == ("review",)
    assert found.location == Location(FILE, line_of('approved = interrupt("run the tools?")'))


def test_interrupt_before_and_after_without_a_checkpointer_are_found() -> None:
    def step(state: Count) -> Count:
        return {"n": state["n"] + 1}

    graph = StateGraph(Count).add_node("step", step).add_edge(START, "step").add_edge("step", END)
    (found,) = report_of(graph.compile(interrupt_before=["step"], interrupt_after="*")).counted
    assert found.code == "SM014"
    assert "interrupt_before=step; interrupt_after=step" in found.message


def test_a_langgraph_object_that_is_not_a_graph_is_refused_with_a_message() -> None:
    assert read_foreign(Send("agent", {})) == "a LangGraph Send is not a StateGraph (built or compiled)"


def test_foreign_reports_validate_against_the_json_schema_and_carry_sarif_locations() -> None:
    reports = [report_of(getattr(graphs, name)) for name in ("REACT", "TYPO", "REACT_WITHOUT_CHECKPOINTER")]
    document = json.loads(render_json(reports))
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))).validate(document)
    assert [m["framework"] for m in document["machines"]] == ["langgraph"] * 3
    results = json.loads(render_sarif(reports))["runs"][0]["results"]
    sm014 = next(r for r in results if r["ruleId"] == "SM014")
    region = sm014["locations"][0]["physicalLocation"]
    assert region["artifactLocation"]["uri"] == FILE
    assert region["region"]["startLine"] == line_of('approved = interrupt("run the tools?")')


def test_the_command_line_verifies_a_graph_named_module_colon_attribute(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["tests.verification.langgraph_graphs:REACT"]) == 0
    assert main(["tests.verification.langgraph_graphs:TYPO"]) == 1
    out = capsys.readouterr().out
    assert "tests.verification.langgraph_graphs:TYPO (langgraph): 2 states, 2 rows" in out
    typo = line_of('TYPO.add_edge("agent", "toolz")')
    assert f"at {FILE}:{typo}" in out
    assert main(["tests.verification.langgraph_graphs:Send"]) == 2
    assert "a LangGraph Send is not a StateGraph" in capsys.readouterr().err


def test_policies_name_nodes() -> None:
    model = model_of(graphs.REACT)
    assert verify_graph(model, policies=[PassesThrough("agent", "tools", "review")]).ok
    (found,) = verify_graph(model, policies=[NeverReachable("tools")]).counted
    assert found.code == "SM012"
    assert found.witness is not None
    assert found.witness.render() == "__start__ --edge--> agent --tools--> review --edge--> tools"


def test_a_graph_without_an_entry_point_cannot_start() -> None:
    def step(state: Count) -> Count:
        return state

    graph = StateGraph(Count).add_node("step", step).add_edge("step", END)
    report = report_of(graph)
    assert [(v.code, v.states) for v in report.counted] == [
        ("SM002", ("step", "__end__")),
        ("SM004", ("__start__",)),
    ]


def test_async_nodes_and_routing_functions_are_read_and_located() -> None:
    async def step(state: Count) -> Count:
        return state

    async def again(state: Count) -> Literal["step", "__end__"]:
        return "__end__"

    graph = StateGraph(Count).add_node("step", step).add_edge(START, "step")
    graph.add_conditional_edges("step", again)
    model = model_of(graph)
    assert model.by_name["step"].emits == frozenset({"step", "__end__"})
    assert model.by_name["step"].location == Location(
        "tests/verification/test_foreign_langgraph.py", again.__code__.co_firstlineno
    )
    assert report_of(graph).ok


def test_the_command_line_writes_diagrams_of_a_foreign_graph(tmp_path: Path) -> None:
    spec = "tests.verification.langgraph_graphs:LIVELOCK"
    assert main([spec, "--diagrams", str(tmp_path), "--diagram-format", "mermaid"]) == 1
    (diagram,) = tmp_path.glob("*.mmd")
    assert "agent --> tools: edge !SM005" in diagram.read_text(encoding="utf-8")


def test_an_error_handler_is_reached_when_its_node_raises_and_ends_the_run() -> None:
    def flaky(state: Count) -> Count:
        raise ValueError("boom")

    def recover(state: Count) -> Count:
        return {"n": -1}

    graph = StateGraph(Count).add_node("flaky", flaky, error_handler=recover).add_node("step", flaky)
    graph.add_edge(START, "flaky").add_edge("flaky", "step").add_edge("step", END)
    rows = [(r.source, r.event, r.target) for r in model_of(graph).rows]
    assert ("flaky", "error", "__error_handler__flaky") in rows
    assert ("__error_handler__flaky", "end", END) in rows
    assert report_of(graph).ok
    assert graph.compile().invoke({"n": 0}) == {"n": -1}  # the handler ran and the run ended there


def test_a_default_error_handler_set_before_compile_is_read_from_the_compiled_graph() -> None:
    def step(state: Count) -> Count:
        return state

    def recover(state: Count) -> Count:
        return state

    graph = StateGraph(Count).set_node_defaults(error_handler=recover).add_node("step", step)
    compiled = graph.add_edge(START, "step").add_edge("step", END).compile()
    rows = [(r.source, r.event, r.target) for r in model_of(compiled).rows]
    assert ("step", "error", "__default_error_handler__") in rows
    assert report_of(compiled).ok
