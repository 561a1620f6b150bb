"""AG-UI: serve an agent to chat frontends (CopilotKit and others) over the AG-UI protocol.

``create_app(store, durables, routers=(*ROUTERS, agui_router([react_agui(agent, "app:AGENT")])))``
serves ``POST /agui/app:AGENT`` next to the run API (``agui_routes(store, agents)`` is the same
router for an application of your own): it takes the protocol's ``RunAgentInput`` and answers
with the run's events (SSE), made with the ``ag-ui-protocol`` package's types and encoder.
``plan_execute_agui(agent, name)`` serves a plan-and-execute agent the same way.
Runs are durable (stored in ``store``); a tool that needs approval ends the AG-UI run with an
interrupt, and the request that answers it resumes the stored run. See docs/server.md ("AG-UI").
"""

from agentsm_fn.server.agui.agent import AguiAgent, agui_for, plan_execute_agui, react_agui
from agentsm_fn.server.agui.endpoint import agui_router, agui_routes, with_agui
from agentsm_fn.server.agui.request import AguiRequest

__all__ = [
    "AguiAgent",
    "AguiRequest",
    "agui_for",
    "agui_router",
    "agui_routes",
    "plan_execute_agui",
    "react_agui",
    "with_agui",
]
