"""The command line of ``agentsm-runs``: its commands, arguments and help texts (argparse)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from agentsm_fn.commands.runs._support import WATCH_HELP
from agentsm_fn.commands.runs._threads import thread_arguments

__all__: list[str] = []

_RUN_HELP = "the run's id (see `list`)"


def step_number(text: str) -> int:
    """A step given on the command line: a whole number of transitions, 0 or more.

    Example:
        >>> step_number("3")
        3
    """
    try:
        number = int(text)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a step (a number of transitions, 0 or more)")
    return number


def store_name(args: argparse.Namespace) -> str:
    """The store the command line names: ``--db``, else ``$AGENTSM_RUNS_DB``, else ``runs.db``.

    Example:
        >>> store_name(parser().parse_args(["--db", "x.db", "list"]))
        'x.db'
    """
    given: str | None = args.db
    return given if given is not None else os.environ.get("AGENTSM_RUNS_DB", "runs.db")


def parser() -> argparse.ArgumentParser:
    """The parser of ``agentsm-runs``' command line.

    Example:
        >>> parser().parse_args(["--db", "x.db", "approve", "r1", "2"]).seq
        2
    """
    parser = argparse.ArgumentParser(
        prog="agentsm-runs",
        description="Stored durable runs: init, list, show, export, record, rerecord, replay, resume, "
        "answer, cancel, fork, check, recover, worker, serve; and threads (thread list, show, messages, "
        "send, fork, delete).",
        epilog="Exit codes: 0 done; 1 check found a diverging run (or a finished run whose result no longer "
        "reads); 2 usage; 3 no such run or machine; "
        "4 refused; 5 store or stored data failed (check: a stored run could not be read); "
        "6 the run failed or diverged.",
    )
    parser.add_argument(
        "--db",
        help="the store, given before the command: a SQLite file or a postgresql:// connection string "
        "(default: $AGENTSM_RUNS_DB or runs.db); only `init` creates one",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "init",
        help="create an empty store (a SQLite file, or the tables in a PostgreSQL schema); "
        "a store of ours is left as it is, another program's database refused",
    )
    listing = sub.add_parser("list", help="runs with status, machine, state and age (unfinished by default)")
    listing.add_argument("--all", action="store_true", help="include finished runs")
    for name, text in (("show", "the run's trace as a table"), ("export", "the run as JSON")):
        command = sub.add_parser(name, help=text)
        command.add_argument("run", help=_RUN_HELP)
        command.add_argument(
            "--machine", help="module:attribute (default: the name the run was stored under)"
        )
    recording = sub.add_parser("record", help="the run as a recording: a regression case pytest replays")
    recording.add_argument("run", help=_RUN_HELP)
    recording.add_argument("--machine", help="module:attribute (default: the name the run was stored under)")
    recording.add_argument("--out", help="the file to write (default: standard output)")
    recording.add_argument("--no-requests", action="store_true", help="leave the requests out (digests only)")
    rerecording = sub.add_parser(
        "rerecord", help="run a recording's start again through its live Durable (no store); write it anew"
    )
    rerecording.add_argument("file", help="the recording (a *.recording.json file)")
    rerecording.add_argument("--machine", help="module:attribute of the Durable (default: the recording's)")
    rerecording.add_argument("--out", help="the file to write (default: over FILE)")
    rerecording.add_argument(
        "--no-requests", action="store_true", help="leave the requests out (digests only)"
    )
    replay = sub.add_parser(
        "replay", help="replay the journal: final (or --step N) state and memory, no effects"
    )
    replay.add_argument("run", help=_RUN_HELP)
    replay.add_argument("--step", type=step_number, help="stop after this many transitions")
    replay.add_argument("--machine", help="module:attribute (default: the run's)")
    resume = sub.add_parser("resume", help="run a stored run on in this process")
    resume.add_argument("run", help=_RUN_HELP)
    resume.add_argument(
        "--allow-changed", action="store_true", help="resume even if the machine's fingerprint changed"
    )
    resume.add_argument("--machine", help="module:attribute of the Durable (default: the run's)")
    resume.add_argument("--watch", action="store_true", help=WATCH_HELP)
    for name, text in (("approve", "approve the effect a run waits on"), ("reject", "reject it")):
        command = sub.add_parser(name, help=text)
        command.add_argument("run", help=_RUN_HELP)
        command.add_argument(
            "seq", type=int, help="the waiting effect's number (see `pending`: `list` does not show it)"
        )
        command.add_argument("--resume", action="store_true", help="then run the run on in this process")
        command.add_argument("--watch", action="store_true", help=WATCH_HELP + "; with --resume")
        if name == "reject":
            command.add_argument("--reason", default="rejected", help="why (the machine sees it)")
    sub.add_parser("pending", help="the effects stored runs wait on")
    cancelling = sub.add_parser("cancel", help="cancel a run (never resumed) and its unfinished child runs")
    cancelling.add_argument("run", help=_RUN_HELP)
    forking = sub.add_parser("fork", help="start a new run from a run's step (memory changed with --set)")
    forking.add_argument("run", help=_RUN_HELP)
    forking.add_argument(
        "step", type=step_number, help="the number of transitions to replay first (see `show`)"
    )
    forking.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=JSON",
        help="change a memory field (repeatable; a JSON value: --set amount=50, --set 'note=\"text\"')",
    )
    forking.add_argument(
        "--machine", help="module:attribute of the Durable to run the fork (default: the run's)"
    )
    check = sub.add_parser(
        "check",
        help="replay every unfinished run of MACHINE against its current code (a Durable's finished runs "
        "too: does each result still read as its class?)",
    )
    check.add_argument(
        "machine", help="module:attribute (or file.py:attribute) of the changed Durable or Machine"
    )
    check.add_argument(
        "--name",
        help="the name the runs were stored under (default: the Durable's name, or MACHINE for a Machine)",
    )
    serving = sub.add_parser(
        "serve", help="serve the store's runs of these machines over HTTP (needs the server extra)"
    )
    serving.add_argument("machines", nargs="*", help="module:attribute of each Durable to serve")
    serving.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (not loopback: needs a token)"
    )
    serving.add_argument("--port", type=int, default=8000, help="the port to listen on (default 8000)")
    serving.add_argument(
        "--token", help="the bearer token every request must carry (default: $AGENTSM_RUNS_TOKEN)"
    )
    serving.add_argument(
        "--agui",
        action="store_true",
        help="also serve each machine to chat frontends over AG-UI at /agui/MACHINE "
        "(a ReAct or plan-and-execute agent's Durable with its memory as template; others are refused)",
    )
    recovering = sub.add_parser(
        "recover", help="resume every run of these machines that no live process runs"
    )
    recovering.add_argument("machines", nargs="+", help="module:attribute of each Durable")
    recovering.add_argument("--watch", action="store_true", help=WATCH_HELP)
    working = sub.add_parser(
        "worker", help="run queued and orphaned runs of these machines until SIGTERM (a long-running process)"
    )
    working.add_argument("machines", nargs="+", help="module:attribute of each Durable")
    working.add_argument("--concurrency", type=_positive(int), default=4, help="runs held at once (4)")
    working.add_argument(
        "--poll", type=_positive(float), default=0.5, help="longest wait between looks at the queue (s)"
    )
    working.add_argument(
        "--grace",
        type=_positive(float),
        default=30.0,
        help="after SIGTERM: seconds the held runs may go on before they go back to the queue (default 30)",
    )
    working.add_argument("--watch", action="store_true", help=WATCH_HELP)
    thread_arguments(sub)
    return parser


def _positive(kind: type[int] | type[float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
        return value

    return parse
