"""``agentsm-runs thread ...``: stored threads from the command line, as the HTTP API's ``/threads``.

    agentsm-runs [--db DB] thread list [--machine M] [--parent T] [--limit N]
    agentsm-runs [--db DB] thread show THREAD                  its turns: status, run, message
    agentsm-runs [--db DB] thread messages THREAD [--turn N]   its conversation after a turn
    agentsm-runs [--db DB] thread send THREAD MESSAGE [--machine M] [--queue] [--watch]
    agentsm-runs [--db DB] thread fork THREAD TURN MESSAGE [--as NEW] [--watch]
    agentsm-runs [--db DB] thread delete THREAD

``send`` is ``Durable.chat``: the message becomes the thread's next turn, run in this process (a
new thread is made by it, and needs ``--machine``); a thread whose last turn runs or waits refuses
it (exit 4, naming the turn) unless ``--queue``. ``fork`` is "edit and run again from here". The
machine of a thread's turns is loaded by the name it was stored under (``module:attribute``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from returns.result import Failure, Result

from agentsm_fn.commands.runs._support import WATCH_HELP, Exit, Unloaded, age, exit_for, load_target, watching
from agentsm_fn.durable import Durable, DurableError, RunStore, Stopped
from agentsm_fn.durable.operations.threads import conversation_after, fork_thread
from agentsm_fn.durable.running.chat import Turn
from agentsm_fn.durable.stores.protocol.threads import ThreadQuery, ThreadStore
from agentsm_fn.durable.thread_errors import (
    HolderUnknown,
    NoSuchTurn,
    NotConversational,
    OtherMachine,
    ThreadBusy,
    ThreadError,
    ThreadExists,
    ThreadIdRefused,
    ThreadNotFound,
)
from agentsm_fn.llm.conversation import Conversation
from agentsm_fn.llm.json import dumps
from agentsm_fn.llm.messages import AssistantMessage, ToolResultMessage
from agentsm_fn.llm.numbering import Numbered, numbered

__all__: list[str] = []

Fail = Callable[[DurableError | str, Exit | None], int]


def thread_arguments(sub: Any) -> None:
    """Add ``thread`` and its own commands to ``agentsm-runs``' subcommands ``sub``."""
    thread = sub.add_parser("thread", help="stored threads (conversations): list, show, messages, send, fork")
    actions = thread.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="threads, newest first: machine, turns, the last turn's status")
    listing.add_argument("--machine", help="only threads of this machine (module:attribute)")
    listing.add_argument("--parent", help="only the forks of this thread")
    listing.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    actions.add_parser("show", help="the thread's turns: status, run, message").add_argument("thread")
    messages = actions.add_parser("messages", help="the thread's conversation after a turn")
    messages.add_argument("thread")
    messages.add_argument("--turn", type=int, help="after this turn (default: its last ended turn)")
    send = actions.add_parser("send", help="send a message: the thread's next turn, run in this process")
    send.add_argument("thread")
    send.add_argument("message")
    send.add_argument("--machine", help="module:attribute of the Durable (needed to start a thread)")
    send.add_argument("--queue", action="store_true", help="wait for a turn that runs or waits, then run")
    send.add_argument("--watch", action="store_true", help=WATCH_HELP)
    forking = actions.add_parser("fork", help="a new thread: the turns before TURN, then MESSAGE as TURN")
    forking.add_argument("thread")
    forking.add_argument("turn", type=int, help="the turn whose message is edited")
    forking.add_argument("message")
    forking.add_argument("--as", dest="new_id", help="the new thread's id (default: a new one)")
    forking.add_argument("--watch", action="store_true", help=WATCH_HELP)
    actions.add_parser(
        "delete", help="the thread, its turns, and the runs no other thread names"
    ).add_argument("thread")


def thread_exit(error: ThreadError) -> Exit:
    """The exit code that reports a thread operation's ``error``.

    Example:
        >>> thread_exit(ThreadNotFound(thread_id="t1")).name
        'NOT_FOUND'
    """
    if isinstance(error, ThreadNotFound | NoSuchTurn):
        return Exit.NOT_FOUND
    if isinstance(error, ThreadIdRefused):
        return Exit.USAGE
    if isinstance(error, ThreadBusy | ThreadExists | OtherMachine | NotConversational | HolderUnknown):
        return Exit.REFUSED
    return exit_for(error)


def _line(item: Numbered) -> str:
    message = item.message
    if isinstance(message, AssistantMessage):
        calls = ", ".join(f"{call.name}({dumps(call.arguments)})" for call in message.tool_calls)
        said = " ".join(part for part in (message.content, f"[calls {calls}]" if calls else "") if part)
        return f"[turn {item.turn}] assistant: {said}"
    if isinstance(message, ToolResultMessage):
        return f"[turn {item.turn}] tool {message.name or message.tool_call_id}: {message.content}"
    return f"[turn {item.turn}] user: {message.content}"


def _conversation(conversation: Conversation) -> None:
    if conversation.summary:
        print(f"(summary of {conversation.summarized} earlier messages) {conversation.summary}")
    for item in numbered(conversation):
        print(_line(item))


def thread_command(store: RunStore, args: argparse.Namespace, fail: Fail) -> int:
    """Run ``agentsm-runs thread ACTION`` on ``store``; its exit code."""
    if not isinstance(store, ThreadStore):
        return fail("this store keeps no threads", Exit.USAGE)
    action = args.action
    if action == "list":
        return _listing(store, ThreadQuery(machine=args.machine, parent=args.parent, limit=args.limit), fail)
    if action == "delete":
        deleted = store.delete_thread(args.thread)
        if isinstance(deleted, Failure):
            return fail(deleted.failure().describe(), thread_exit(deleted.failure()))
        print(f"{args.thread}: deleted, with {len(deleted.unwrap())} run(s)")
        return int(Exit.OK)
    found = store.thread(args.thread)
    if isinstance(found, Failure) and not (action == "send" and isinstance(found.failure(), ThreadNotFound)):
        return fail(found.failure().describe(), thread_exit(found.failure()))
    if action == "show":
        return _show(store, args.thread, fail)
    name = getattr(args, "machine", None) or (None if isinstance(found, Failure) else found.unwrap().machine)
    if name is None:
        return fail(
            f"thread {args.thread} is new: name the Durable whose runs are its turns (--machine)", Exit.USAGE
        )
    durable = _durable(name, getattr(args, "watch", False))
    if isinstance(durable, str):
        return fail(durable, Exit.USAGE if "--watch" in durable else Exit.NOT_FOUND)
    if action == "messages":
        conversation = conversation_after(durable, store, args.thread, args.turn)
        if isinstance(conversation, Failure):
            return fail(conversation.failure().describe(), thread_exit(conversation.failure()))
        _conversation(conversation.unwrap())
        return int(Exit.OK)
    if action == "send":
        return _said(durable, durable.chat(store, args.thread, args.message, queue=args.queue), fail)
    return _said(
        durable, fork_thread(durable, store, args.thread, args.turn, args.message, args.new_id), fail
    )


def _durable(name: str, watch: bool) -> Durable[Any, Any, Any] | str:
    target = load_target(name)
    if isinstance(target, Unloaded):
        return target.why
    if not isinstance(target, Durable):
        return f"{name} is a Machine; a thread's turns need the Durable that says how to perform its effects"
    return watching(target) if watch else target


def _listing(store: ThreadStore, query: ThreadQuery, fail: Fail) -> int:
    found = store.threads(query)
    if isinstance(found, Failure):
        return fail(found.failure(), None)
    now = time.time()
    print(f"{'thread':<34} {'machine':<36} {'turns':>5} {'last':<9} {'age':>5}")
    for thread in found.unwrap():
        last = "-" if thread.last is None else thread.last.status.value
        made = age(now - thread.created)
        print(f"{thread.thread_id:<34} {thread.machine:<36} {thread.turns:>5} {last:<9} {made:>5}")
    return int(Exit.OK)


def _show(store: ThreadStore, thread_id: str, fail: Fail) -> int:
    turns = store.turns(thread_id)
    if isinstance(turns, Failure):
        return fail(turns.failure(), None)
    print(f"{'turn':>4} {'status':<9} {'run':<34} message")
    for turn in turns.unwrap():
        print(f"{turn.turn:>4} {turn.status.value:<9} {turn.run_id:<34} {turn.message[:80]}")
    return int(Exit.OK)


def _said(durable: Durable[Any, Any, Any], chatted: Result[Turn[Any, Any], ThreadError], fail: Fail) -> int:
    """Report the turn a message made: the messages it added, or where it waits; a failed turn is exit 6."""
    if isinstance(chatted, Failure):
        error = chatted.failure()
        if isinstance(error, Stopped):
            return fail(error.describe(), Exit.RUN_FAILED)
        return fail(error.describe(), thread_exit(error))
    turn = chatted.unwrap()
    stored = turn.run
    print(f"{turn.thread_id} turn {turn.turn} (run {turn.run_id}): ", end="")
    if not stored.finished:
        snap = stored.snapshot
        print(f"waits in {snap.state.name} for {snap.pending!r}"[:200])
        print("  answer it (`pending`, `approve RUN SEQ --resume`) before the thread takes another message")
        return int(Exit.OK)
    print("finished")
    if durable.turns is not None:
        added = durable.turns.so_far(stored.snapshot.memory).latest_turn
        for place, message in enumerate(added):
            print(f"  {_line(Numbered(turn.turn, place, message))}")
    return int(Exit.OK)
