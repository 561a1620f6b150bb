"""A thread's page as data: its turns as a chat, each with its run, its answer and the tool calls under it.

:func:`thread_view` reads the thread's turns (one query) and its conversation after its last
ended turn (one stored value, as a turn's start reads it: no journal is read), and groups the
conversation by turn (:func:`turn_chat`): the user's message, the assistant's answer, and the
tool calls and their results that led to that answer, folded under it. Turns whose messages a
compression replaced by the thread's summary are listed with their message and run, not their
answer, which :func:`turn_view` reads on demand (the thread so far after that turn). A waiting
turn carries what it waits on (the run page's answer), a failed one why it failed: only those
turns' runs are read. Each turn names the agent it ran on (``program``: the thread's machine, or
the agent a handoff gave the thread to) and the one holding the thread after it (``holder``).
:func:`run_threads` says which thread (and turn) each of some runs is.
Every string is redacted (:func:`~agentsm_fn.inspector.plain.plain`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import DurableError, StoreFailure
from agentsm_fn.durable.operations.threads import conversation_after
from agentsm_fn.durable.operations.waiting_below import pending_of
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.stores.protocol.store import RunStatus, RunStore
from agentsm_fn.durable.stores.protocol.threads import ThreadRecord, ThreadStore, TurnRecord, TurnStatus
from agentsm_fn.durable.thread_errors import ThreadError
from agentsm_fn.inspector.pending_view import pending_shown
from agentsm_fn.inspector.plain import plain
from agentsm_fn.llm.conversation import ConversationMessage
from agentsm_fn.llm.json import JsonValue, thaw
from agentsm_fn.llm.messages import AssistantMessage, ToolResultMessage, UserMessage
from agentsm_fn.llm.numbering import numbered
from agentsm_fn.shell.credentials import credential_redactor

__all__ = ["run_threads", "thread_view", "turn_chat", "turn_view"]

Redact = Callable[[str], str]
View = dict[str, JsonValue]


def _said(message: AssistantMessage, redact: Redact) -> list[JsonValue]:
    """An assistant message that calls tools: what it said first, then each call awaiting its result."""
    steps: list[JsonValue] = [{"said": redact(message.content)}] if message.content else []
    for call in message.tool_calls:
        steps.append(
            {
                "call": redact(call.id),
                "name": redact(call.name),
                "arguments": plain(thaw(call.arguments), redact),
                "result": None,
                "error": False,
            }
        )
    return steps


def turn_chat(messages: Sequence[ConversationMessage], redact: Redact | None = None) -> View:
    """One turn's messages as the chat shows them: the answer, and the steps (tool calls) that led to it.

    The user's message (a turn's first) is left out: the turn's record holds it. Each tool
    call gets its result; text the assistant said on the way is a step of its own; the answer
    is the last thing the assistant said without calling a tool (None: the turn gave none).

    Example:
        >>> from agentsm_fn.llm import ToolCall
        >>> chat = turn_chat([
        ...     UserMessage("Where is A-17?"),
        ...     AssistantMessage(tool_calls=(ToolCall("c1", "lookup", {"order": "A-17"}),)),
        ...     ToolResultMessage(tool_call_id="c1", name="lookup", content="shipped"),
        ...     AssistantMessage("A-17 has shipped."),
        ... ])
        >>> chat["answer"], [(s["name"], s["arguments"], s["result"]) for s in chat["steps"]]
        ('A-17 has shipped.', [('lookup', {'order': 'A-17'}, 'shipped')])
    """
    shown = redact or credential_redactor()
    steps: list[JsonValue] = []
    calls: dict[str, dict[str, JsonValue]] = {}
    answer: str | None = None
    for message in messages:
        if isinstance(message, UserMessage):
            continue
        if isinstance(message, ToolResultMessage):
            result, text = calls.get(message.tool_call_id), shown(message.content)
            if result is None:  # a result whose call is not in the turn (cut by a compression)
                result = {"call": shown(message.tool_call_id), "name": shown(message.name), "arguments": {}}
                steps.append(result)
            result.update(result=text, error=message.is_error)
            continue
        if not message.tool_calls:
            if answer is not None:  # it said something and went on: a step on the way
                steps.append({"said": answer})
            answer = shown(message.content)
            continue
        if answer is not None:
            steps.append({"said": answer})
            answer = None
        added = _said(message, shown)
        steps.extend(added)
        calls.update({str(step["call"]): step for step in added if isinstance(step, dict) and "call" in step})
    return {"answer": answer, "steps": steps}


def _turn(turn: TurnRecord, redact: Redact) -> View:
    return {
        "turn": turn.turn,
        "run_id": turn.run_id,
        "status": turn.status.value,
        "message": redact(turn.message),
        "created": turn.created,
        "holder": turn.holder,
        "program": "",
        "shown": False,
        "answer": None,
        "steps": [],
        "pending": None,
        "failure": None,
    }


def _thread(record: ThreadRecord, redact: Redact) -> View:
    return {
        "thread_id": record.thread_id,
        "machine": record.machine,
        "created": record.created,
        "updated": record.updated,
        "turns": record.turns,
        "title": redact(record.title),
        "parent": record.parent or None,
        "parent_turn": record.parent_turn if record.parent else None,
        "holder": record.holder,
    }


def _waits_and_fails(store: RunStore, shown: View, redact: Redact) -> str | None:
    """Fill a waiting turn's pending effect, a failed one's reason; the store's failure, if any."""
    found = store.get(str(shown["run_id"]))
    if isinstance(found, Failure):
        missing: DurableError = found.failure()
        return missing.describe()
    record = found.unwrap()
    if record.reason:
        shown["failure"] = redact(record.reason)
    waiting = pending_of(store, record.run_id) if record.status is RunStatus.WAITING else Success(())
    if isinstance(waiting, Failure):
        unread: DurableError = waiting.failure()
        return unread.describe()
    asked = waiting.unwrap()
    if asked:  # its own effect, or, waiting on its children, the first waiting one's (an approval in a child)
        shown["pending"] = pending_shown(asked[0], redact)
    return None


def _threads(store: RunStore) -> Result[ThreadStore, ThreadError]:
    if isinstance(store, ThreadStore):
        return Success(store)
    return Failure(StoreFailure(operation="threads", detail=f"{type(store).__name__} keeps no threads"))


def thread_view(
    store: RunStore, durable: Durable[Any, Any, Any], thread_id: str
) -> Result[View, ThreadError]:
    """Everything the thread page shows: the thread, each turn with its run and its chat, the summary.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> from agentsm_fn.llm import LlmReply
        >>> from agentsm_fn.shell.react_agent import AgentBuilder
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> llm = ScriptedLlm([LlmReply(content="Hello Ada! How can I help?")])
        >>> built = AgentBuilder.new("").llm(llm).build().unwrap()
        >>> agent = Durable(name="app:AGENT", machine=built.machine, shell=built.shell, template=built.memory)
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> _ = agent.chat(store, "t1", "I am Ada.")
        >>> view = thread_view(store, agent, "t1").unwrap()
        >>> [(t["turn"], t["status"], t["message"], t["answer"]) for t in view["turns"]]
        [(0, 'finished', 'I am Ada.', 'Hello Ada! How can I help?')]
        >>> store.close()
    """
    redact = credential_redactor()
    threads = _threads(store)
    if isinstance(threads, Failure):
        return threads
    kept = threads.unwrap()
    # first: a turn that ended outside chat (answered and resumed) gets its thread so far and holder kept
    conversation = conversation_after(durable, store, thread_id)
    record, turns = kept.thread(thread_id), kept.turns(thread_id)
    if isinstance(record, Failure):
        return record
    if isinstance(turns, Failure):
        return turns
    shown = [_turn(turn, redact) for turn in turns.unwrap()]
    program = record.unwrap().machine
    for turn in shown:  # each turn is a run of the agent that held the thread after the one before
        turn["program"], program = program, str(turn["holder"] or program)
    problems: list[str] = []
    summary = ""
    if isinstance(conversation, Failure):
        problems.append(conversation.failure().describe())
    else:
        had = conversation.unwrap()
        summary = redact(had.summary)
        by_turn: dict[int, list[ConversationMessage]] = {}
        for item in numbered(had):
            by_turn.setdefault(item.turn, []).append(item.message)
        for turn in shown:
            messages = by_turn.get(int(str(turn["turn"])))
            if messages and isinstance(messages[0], UserMessage):  # the whole turn is in the conversation
                turn.update(turn_chat(messages, redact), shown=True)
    for turn in shown:
        if turn["status"] in (TurnStatus.WAITING.value, TurnStatus.FAILED.value):
            problem = _waits_and_fails(store, turn, redact)
            if problem is not None:
                problems.append(problem)
    return Success(
        {
            "thread": _thread(record.unwrap(), redact),
            "summary": summary,
            "turns": list[JsonValue](shown),
            "problem": redact("; ".join(problems)) if problems else None,
        }
    )


def turn_view(
    store: RunStore, durable: Durable[Any, Any, Any], thread_id: str, turn: int
) -> Result[View, ThreadError]:
    """One ended turn's chat (its answer and steps), read from the thread so far after it.

    What the page asks for a turn the thread's summary stands for.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> agent = Durable(name="app:AGENT", machine=REACT_MACHINE, template=AgentMemory.new(""))
        >>> turn_view(store, agent, "t1", 0).failure().describe()
        'no stored thread t1'
        >>> store.close()
    """
    after = conversation_after(durable, store, thread_id, turn)
    if isinstance(after, Failure):
        return after
    return Success({"turn": turn, **turn_chat(after.unwrap().latest_turn)})


def run_threads(store: RunStore, run_ids: Iterable[str]) -> Result[dict[str, JsonValue], StoreFailure]:
    """Which threads (and turns) each run is a turn of: ``{run_id: [{thread_id, turn}, ...]}``.

    A run of no thread is left out; a run forks share is listed under each thread that holds it.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> run_threads(store, ["r1"]).unwrap()  # r1 is no thread's turn
        {}
        >>> store.close()
    """
    if not isinstance(store, ThreadStore):
        return Success({})
    found: dict[str, JsonValue] = {}
    for run_id in dict.fromkeys(run_ids):
        turns = store.turns_of_run(run_id)
        if isinstance(turns, Failure):
            return turns
        if turns.unwrap():
            found[run_id] = [{"thread_id": t.thread_id, "turn": t.turn} for t in turns.unwrap()]
    return Success(found)
