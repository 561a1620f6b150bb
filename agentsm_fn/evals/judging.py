"""The LLM judge run durably: its call is an effect journaled in the run store, next to the case's run.

A judge's run id is derived from the case's run id and the judge's name, so judging again
(an experiment resumed, or re-reported) finds the finished judge run and reads its grade by
replay, asking the model nothing; a judge run cut off mid-way is resumed like any run.
"""

from __future__ import annotations

import hashlib

import attrs
from returns.result import Failure, Success

from agentsm_fn.durable import Durable, RunNotFound, RunStatus, RunStore
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.evals.evidence import Evidence
from agentsm_fn.evals.grades import Grade
from agentsm_fn.evals.judge import JUDGE_MACHINE, JudgeEvent, JudgeMemory, JudgeState, LlmJudge, judge_grade
from agentsm_fn.shell.react_performers import llm_performers
from agentsm_fn.shell.run import Shell

__all__ = ["JUDGE", "ajudge", "judge_run_id"]

JUDGE: Durable[JudgeState, JudgeEvent, JudgeMemory] = Durable(
    name="agentsm_fn.evals.judging:JUDGE", machine=JUDGE_MACHINE
)
"""The judge as a durable program (its runs open in the inspector; performers come per judge)."""


def judge_run_id(case_run: str, judge: str) -> str:
    """The judge's run id for a case's run: the case's run id, then the judge's name as a digest.

    Example:
        >>> judge_run_id("exp.fr.0.1a2b", "judge")
        'exp.fr.0.1a2b.judge-10e86c65'
    """
    return f"{case_run}.judge-{hashlib.sha256(judge.encode()).hexdigest()[:8]}"


def _error(judge: LlmJudge, reason: str) -> Grade:
    return Grade(evaluator=judge.name, passed=False, label="judge error", reason=reason)


async def ajudge(store: RunStore, judge: LlmJudge, evidence: Evidence) -> Grade:
    """The judge's grade of ``evidence``: from its stored run if it finished, else by running it."""
    run_id = judge_run_id(evidence.run_id, judge.name)
    durable = attrs.evolve(JUDGE, shell=lambda: Shell(llm_performers(judge.provider)))
    found = store.get(run_id)
    if isinstance(found, Failure) and not isinstance(found.failure(), RunNotFound):
        return _error(judge, found.failure().describe())
    if isinstance(found, Success) and found.unwrap().status is RunStatus.FINISHED:
        replayed = replay_stored(store, JUDGE_MACHINE, run_id)
        if isinstance(replayed, Failure):
            return _error(judge, replayed.failure().describe())
        return judge_grade(judge.name, replayed.unwrap().memory)
    if isinstance(found, Failure):
        ran = await durable.astart(store, judge.memory(evidence), run_id)
    else:
        ran = await durable.aresume(store, run_id)
    if isinstance(ran, Failure):
        return _error(judge, ran.failure().describe())
    return judge_grade(judge.name, ran.unwrap().snapshot.memory)
