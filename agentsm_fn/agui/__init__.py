"""AG-UI: serve an agent to chat frontends (CopilotKit and others) over the AG-UI protocol.

``agui_routes(store, [react_agui(agent, "app:AGENT")])`` is a FastAPI router with
``POST /agui/app:AGENT``: it takes the protocol's ``RunAgentInput`` and answers with the
run's events (SSE), made with the ``ag-ui-protocol`` package's types and encoder. Runs are
durable (stored in ``store``); a tool that needs approval ends the AG-UI run with an
interrupt, and the request that answers it resumes the stored run. See docs/server.md.
"""

from agentsm_fn.agui.agent import AguiAgent, react_agui
from agentsm_fn.agui.endpoint import agui_routes
from agentsm_fn.agui.request import AguiRequest, BadRequest

__all__ = ["AguiAgent", "AguiRequest", "BadRequest", "agui_routes", "react_agui"]
