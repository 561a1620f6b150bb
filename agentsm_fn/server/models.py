"""The JSON API's request and response bodies, as pydantic models.

FastAPI validates requests with them and writes the OpenAPI document from them.

Request bodies refuse unknown fields (``extra="forbid"``): a misspelt field is a 422 naming
it, never silently ignored.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

__all__ = [
    "AnswerRequest",
    "ErrorBody",
    "ErrorDetail",
    "ForkRequest",
    "GraphEdge",
    "JournalItem",
    "MachineDetail",
    "MachineGraphJson",
    "MachineSummary",
    "PendingItem",
    "RecoverRequest",
    "RecoveredRun",
    "ResumeRequest",
    "RunDetail",
    "RunPage",
    "RunState",
    "RunSummary",
    "StartRequest",
    "TraceRow",
    "TurnRef",
]

RUN_ID = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
"""What a run id given by a client may be: letters, digits and ``._:-``, at most 128 characters."""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TurnRef(BaseModel):
    """The turn a refusal is about: a thread's last turn that has not ended (``thread_busy``)."""

    thread_id: str
    turn: int
    run_id: str = Field(description="its run: follow it (GET /runs/{run_id}/events), answer or resume it")
    status: str


class ErrorDetail(BaseModel):
    """What went wrong: a stable ``kind`` and a sentence (and the turn it is about, for ``thread_busy``)."""

    kind: str
    detail: str
    turn: TurnRef | None = None


class ErrorBody(BaseModel):
    """Every 4xx and 5xx response."""

    error: ErrorDetail


class MachineSummary(BaseModel):
    """A served durable machine."""

    name: str
    fingerprint: str
    initial: str
    states: list[str]
    terminals: list[str]
    memory: str | None = Field(description="the memory class a new run is made of (None: unknown)")


class GraphEdge(BaseModel):
    """One row of the transition table."""

    source: str
    event: str
    target: str


class MachineGraphJson(BaseModel):
    """The machine's graph: its states and the table's rows."""

    nodes: list[str]
    edges: list[GraphEdge]


class MachineDetail(MachineSummary):
    """A machine with its graph (JSON and Mermaid) and the verifier's report (agentsm-verify's JSON)."""

    graph: MachineGraphJson
    mermaid: str
    report: dict[str, JsonValue]


class RunSummary(BaseModel):
    """A stored run as listed: where it stands, as of its last stop."""

    run_id: str
    machine: str
    fingerprint: str
    status: Literal["running", "waiting", "ready", "finished", "failed"]
    state: str
    steps: int
    effects: int
    created: float
    updated: float
    age: float = Field(description="seconds since the run was created")
    reason: str
    parent: str | None
    parent_step: int | None
    orphaned: bool = Field(description="RUNNING, but its process is gone or its lease ran out")


class PendingItem(BaseModel):
    """An effect a stored run waits on: answer it at ``POST /runs/{run_id}/pending/{seq}/answer``."""

    run_id: str
    seq: int
    type: str | None = Field(
        description="the effect's class, e.g. AskHuman (None: its class is not loaded in the server)"
    )
    summary: str
    path: list[str] = Field(
        default_factory=list,
        description="listed under another run (GET /runs/{id}/pending): the runs from that one down to this "
        "run's parent; empty for a run's own effect",
    )


class RunDetail(RunSummary):
    """One stored run, as of its last stop, with the effect it waits on if it waits."""

    pending: PendingItem | None = Field(
        description="what a waiting run waits on: its own effect, or, waiting on child runs, the first "
        "waiting descendant's (GET /runs/{id}/pending lists them all; None: it waits on nothing)"
    )
    result: JsonValue = Field(
        default=None,
        description="a finished run's result as JSON, e.g. an agent's typed result (None: not finished, "
        "failed, or its program names no result)",
    )


class RunPage(BaseModel):
    """A page of runs, newest first; ``next`` is the cursor of the following page (None: the last page)."""

    runs: list[RunSummary]
    next: str | None


class TraceRow(BaseModel):
    """One transition, or one effect a handler asked for."""

    step: int
    at: float
    state: str
    event: str
    target: str
    data: str


class JournalItem(BaseModel):
    """One effect of a run: its summary and its outcome's (never the raw values)."""

    seq: int
    effect: str
    outcome: str | None = Field(description="a summary of the outcome (None: in flight or waiting)")
    waiting: bool
    at: float | None


class RunState(BaseModel):
    """A run as it was after ``steps`` transitions, by replay of its journal."""

    run_id: str
    state: str
    status: Literal["ready", "awaiting", "finished"]
    steps: int
    memory: JsonValue
    pending: str | None = Field(description="the effect the run waits on there, if any")


class StartRequest(_Request):
    """A new run of a served machine, from its memory as JSON (fields converted by their declared types)."""

    machine: str
    memory: dict[str, JsonValue]
    run_id: str | None = Field(default=None, pattern=RUN_ID)


class ForkRequest(_Request):
    """A new run from a run as it was after ``step`` transitions, with memory fields changed."""

    step: int = Field(ge=0, le=10**9)
    set: dict[str, JsonValue] = Field(default_factory=dict)
    run_id: str | None = Field(default=None, pattern=RUN_ID)


class ResumeRequest(_Request):
    """Run a stored run on in the server's process."""

    allow_changed: bool = False
    wait: bool = Field(
        default=True,
        description="answer when the run stops (true), or at once with 202 while it runs on (false)",
    )


class RecoverRequest(_Request):
    """Resume the runs of these machines that no live process runs (all served ones if empty)."""

    machines: list[str] = Field(default_factory=list)


class RecoveredRun(BaseModel):
    """One run recover took up: where it stands now, or why it did not go on."""

    run_id: str
    machine: str
    status: str
    error: ErrorDetail | None


class AnswerRequest(_Request):
    """The answer to a waiting effect: approve, reject (with a reason), or approve with changed arguments."""

    decision: Literal["approve", "reject", "modify"]
    reason: str = Field(default="", max_length=10_000)
    arguments: dict[str, JsonValue] | None = None
    run_id: str | None = Field(
        default=None,
        pattern=RUN_ID,
        description="the run below this one whose effect seq this answers (a child's, as "
        "GET /runs/{id}/pending names it); None: this run's own",
    )
    resume: bool = Field(default=False, description="then run the run on in the server's process")
    wait: bool = Field(
        default=True,
        description="with resume: answer when the run stops (true), or at once with 202 while it runs on",
    )
