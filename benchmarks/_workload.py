"""The reference workload's states, events, scripted LLM and tool, shared by engine.py and history.py.

``Idle -> Planning -> (Acting -> Observing -> Planning) x K -> Done``: Planning consults
``LLM`` (K tool calls, then a final answer), Acting calls ``tool``. Each benchmark builds its
own effects, memory and machine over these.
"""

from __future__ import annotations

import enum


class S(enum.Enum):
    IDLE = "Idle"
    PLANNING = "Planning"
    ACTING = "Acting"
    OBSERVING = "Observing"
    DONE = "Done"


class E(enum.Enum):
    START = "start"
    TOOL_CALL = "tool_call"
    FINAL = "final"
    TOOL_DONE = "tool_done"
    CONTINUE = "continue"


class ScriptedLlm:
    """K tool calls, then a final answer; reset before each run."""

    def __init__(self) -> None:
        self.left = 0

    def reset(self, k: int) -> None:
        self.left = k

    def __call__(self) -> str:
        if self.left:
            self.left -= 1
            return "calculator"
        return ""


def tool(name: str) -> str:
    return f"{name} says 42"


LLM = ScriptedLlm()
