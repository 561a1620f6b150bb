"""The worker benchmark's ReAct agent as a Durable that ``agentsm-runs worker`` loads from this file.

Its LLM is aimock at ``$BENCH_AIMOCK_URL`` (OpenAI's protocol, one HTTP client per process), its
one tool a coroutine: three lookups, then the answer (``providers.TASK``, ``providers.ANSWER``).
"""

from __future__ import annotations

import os
import time

import httpx
import providers  # beside this file (a worker imports this file from its folder)

from agentsm_fn.agents.react import AgentMemory
from agentsm_fn.durable import Durable
from agentsm_fn.shell import Shell
from agentsm_fn.shell.react_agent import Agent, AgentBuilder

_CLIENT: list[httpx.AsyncClient] = []


def _agent() -> Agent:
    if not _CLIENT:
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
        _CLIENT.append(httpx.AsyncClient(limits=limits))
    base = os.environ.get("BENCH_AIMOCK_URL", "http://127.0.0.1:9")
    return (
        AgentBuilder.new(providers.TASK)
        .llm(providers.make_provider("openai", base, _CLIENT[0]))
        .tool("lookup", "Look a key up", providers.SCHEMA, providers.alookup)
        .build()
        .unwrap()
    )


def _shell() -> Shell:
    return _agent().shell()


def memory() -> AgentMemory:
    """A new run's memory."""
    return _agent().memory


REACT = Durable(name="bench_react:REACT", machine=_agent().machine, shell=_shell, clock=time.time)
