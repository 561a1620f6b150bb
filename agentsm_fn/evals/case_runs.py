"""One case's repeat in an experiment: its run id, its run (started, resumed or found), its judgement.

:func:`case_run_id` derives the run's id from the experiment, the case and the repeat, so running
the experiment again finds it. :func:`judge_case` runs the case (or resumes the run a killed process
left, or takes the stored run as it stands), reads its evidence from the store and grades it with
the dataset's evaluators (a judge runs durably next to it), pricing its LLM replies.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable import DurableError, RunNotFound, RunRecord, RunStatus, RunStore
from agentsm_fn.evals.cases import Case, Dataset
from agentsm_fn.evals.check import Check
from agentsm_fn.evals.judging import ajudge
from agentsm_fn.evals.recorded import evidence_of
from agentsm_fn.evals.results import CaseRun
from agentsm_fn.evals.subjects import Subject
from agentsm_fn.llm.replies import LlmReply, Usage

__all__ = ["Price", "case_run_id", "cost_of", "judge_case"]


@attrs.frozen(kw_only=True)
class Price:
    """What a model's tokens cost, per million input and output tokens.

    Example:
        >>> from agentsm_fn.llm import Usage
        >>> price = Price(input_per_million=3.0, output_per_million=15.0)
        >>> price.of(Usage(input_tokens=1000, output_tokens=100))
        0.0045
    """

    input_per_million: float
    output_per_million: float

    def of(self, usage: Usage) -> float:
        """The cost of ``usage``."""
        return round(
            (usage.input_tokens * self.input_per_million + usage.output_tokens * self.output_per_million)
            / 1e6,
            12,
        )


def cost_of(replies: Sequence[LlmReply], prices: Mapping[str, Price]) -> float:
    """What ``replies`` cost: each priced by its model's price (``"*"``: any other model; none: free).

    Example:
        >>> from agentsm_fn.llm import Usage
        >>> price = Price(input_per_million=2.0, output_per_million=8.0)
        >>> cost_of([LlmReply(model="m", usage=Usage(input_tokens=10**6))], {"m": price})
        2.0
    """
    total = 0.0
    for reply in replies:
        price = prices.get(reply.model) or prices.get("*")
        total += 0.0 if price is None else price.of(reply.usage)
    return total


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def case_run_id(experiment: str, case: str, repeat: int) -> str:
    """The run id of a case's repeat in an experiment: readable, and distinct for distinct triples.

    Example:
        >>> case_run_id("prompt v2", "capital/fr", 0)
        'prompt-v2.capital-fr.0.225a610b'
    """
    digest = hashlib.sha256(f"{experiment}\0{case}\0{repeat}".encode()).hexdigest()[:8]
    return f"{_UNSAFE.sub('-', experiment)[:40]}.{_UNSAFE.sub('-', case)[:40]}.{repeat}.{digest}"


@attrs.frozen
class _Ran:
    """A case's run as the experiment left it: where it stopped and how it ended (None: read them back)."""

    snapshot: Any = None
    ended: tuple[str, str] | None = None


async def _run_case(
    store: RunStore, subject: Subject[Any, Any, Any], case: Case, run_id: str, fresh: bool
) -> Result[_Ran, DurableError | str]:
    """Run (or resume, or find finished) the case's run; a fresh experiment has no run to find."""
    found: Result[RunRecord, Any] = Failure(RunNotFound(run_id=run_id)) if fresh else store.get(run_id)
    if isinstance(found, Failure) and not isinstance(found.failure(), RunNotFound):
        return found
    durable = subject.durable
    if isinstance(found, Failure):
        memory = subject.start(case)
        if isinstance(memory, Failure):
            return memory
        ran = await durable.astart(store, memory.unwrap(), run_id)
    elif found.unwrap().status in (RunStatus.RUNNING, RunStatus.READY):
        ran = await durable.aresume(store, run_id)
    else:
        return Success(_Ran())  # finished, failed or waiting: judged as it stands
    if isinstance(ran, Failure):
        stored = store.get(run_id)  # a machine failure is stored: a case result like any other
        return Success(_Ran()) if isinstance(stored, Success) else ran
    snapshot = ran.unwrap().snapshot
    if not snapshot.finished:
        return Success(_Ran(snapshot, (RunStatus.WAITING.value, "")))
    why = None if durable.failure is None else durable.failure(snapshot)
    return Success(_Ran(snapshot, (RunStatus.FAILED.value, why) if why else (RunStatus.FINISHED.value, "")))


async def judge_case(
    store: RunStore,
    dataset: Dataset,
    subject: Subject[Any, Any, Any],
    case: Case,
    repeat: int,
    name: str,
    prices: Mapping[str, Price],
    fresh: bool,
) -> tuple[CaseRun, Any]:
    """The case run of ``case``'s repeat, judged, and the snapshot its run stopped at (None: read back)."""
    run_id = case_run_id(name, case.name, repeat)
    ran = await _run_case(store, subject, case, run_id, fresh)
    if isinstance(ran, Failure):
        problem = ran.failure()
        error = problem if isinstance(problem, str) else problem.describe()
        return CaseRun(case=case.name, repeat=repeat, run_id=run_id, status="", error=error), None
    machine, done = subject.durable.machine, ran.unwrap()
    if done.snapshot is None:  # read back: a replay, in a thread
        read = await asyncio.to_thread(evidence_of, store, machine, run_id, case, subject.answer)
    else:
        read = evidence_of(store, machine, run_id, case, subject.answer, done.snapshot, done.ended)
    if isinstance(read, Failure):
        error = read.failure().describe()
        return CaseRun(case=case.name, repeat=repeat, run_id=run_id, status="", error=error), None
    evidence, replies = read.unwrap()
    grades = [
        e.grade(evidence) if isinstance(e, Check) else await ajudge(store, e, evidence)
        for e in dataset.evaluators_of(case)
    ]
    judged = CaseRun(
        case=case.name,
        repeat=repeat,
        run_id=run_id,
        status=evidence.status,
        grades=tuple(grades),
        usage=evidence.usage,
        cost=cost_of(replies, prices),
        seconds=evidence.seconds,
        steps=evidence.steps,
    )
    return judged, done.snapshot
