"""Objects the dataset-file tests name by ``module:attribute``."""

from __future__ import annotations

import enum

from agentsm_fn.evals import Evidence
from agentsm_fn.llm import LlmReply
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from verification.kit import RunProperty, never, took


class E(enum.Enum):
    REFUND = 1


NO_REFUND: RunProperty[enum.Enum, object] = never(took(E.REFUND), name="no refund")


def short_answer(evidence: Evidence) -> bool:
    return len(str(evidence.answer)) < 40


def scripted_judge() -> ScriptedLlm:
    return ScriptedLlm([LlmReply(content='{"passed": true, "score": 1, "reason": "right"}')])
