"""``/machines``: the served durable machines, each with its graph and the verifier's report."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter

from agentsm_fn.core.machine import Machine
from agentsm_fn.server.context import AnyDurable, ServerContext, memory_type
from agentsm_fn.server.models import GraphEdge, MachineDetail, MachineGraphJson, MachineSummary
from verification import graph_of, render_json, to_mermaid, verify

__all__ = ["machine_routes"]


def _summary(durable: AnyDurable) -> MachineSummary:
    machine = durable.machine
    kind = memory_type(machine) if durable.template is None else type(durable.template)
    return MachineSummary(
        name=durable.name,
        fingerprint=durable.fingerprint,
        initial=machine.initial.name,
        states=[state.name for state in machine.states],
        terminals=sorted(state.name for state in machine.terminals),
        memory=None if kind is None else f"{kind.__module__}:{kind.__qualname__}",
    )


def _drawn(machine: Machine[Any, Any, Any]) -> tuple[MachineGraphJson, str, dict[str, Any]]:
    """The graph as JSON, its Mermaid text and the verifier's report (agentsm-verify's JSON)."""
    report = verify(machine)
    model = graph_of(machine)
    graph = MachineGraphJson(
        nodes=list(model.nodes),
        edges=[GraphEdge(source=row.source, event=row.event, target=row.target) for row in model.rows],
    )
    (machine_report,) = json.loads(render_json([report]))["machines"]
    return graph, to_mermaid(report), machine_report


def machine_routes(ctx: ServerContext) -> APIRouter:
    """The ``/machines`` routes over ``ctx``'s durable machines."""
    routes = APIRouter(tags=["machines"])
    drawn: dict[str, tuple[MachineGraphJson, str, dict[str, Any]]] = {}  # a machine is frozen: once each

    @routes.get("/machines", response_model=list[MachineSummary])
    def machines() -> list[MachineSummary]:
        """Every served machine, by name."""
        return [_summary(ctx.durables[name]) for name in sorted(ctx.durables)]

    @routes.get("/machines/{name}", response_model=MachineDetail)
    def machine(name: str) -> MachineDetail:
        """One machine: its graph as JSON and Mermaid, and the verifier's report."""
        durable = ctx.durable(name)
        if name not in drawn:
            drawn[name] = _drawn(durable.machine)
        graph, mermaid, report = drawn[name]
        return MachineDetail(**_summary(durable).model_dump(), graph=graph, mermaid=mermaid, report=report)

    return routes
