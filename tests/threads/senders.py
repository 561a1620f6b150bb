"""Sender processes (tests/threads/sender.py) as a test drives them: a command, then ``go`` to all at once."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 600.0
"""Seconds a sender may live: past it, it is killed, and the test reading it fails (never hangs)."""


class Sender:
    """One ``python -m tests.threads.sender`` process on a store."""

    def __init__(
        self, store_db: str, notes: Path | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        argv = [sys.executable, "-m", "tests.threads.sender", store_db, *([str(notes)] if notes else [])]
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        )
        self.watchdog = threading.Timer(DEADLINE, self.process.kill)  # a hung sender fails the test
        self.watchdog.start()

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f"the sender ended (exit {self.process.wait()}) before it answered")
        return line.strip()

    def _write(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def ready(self, thread: str, message: str, queue: bool = False) -> None:
        """Give it a message to send; it is ready when this returns."""
        self._write(json.dumps({"thread": thread, "message": message, "queue": queue}))
        assert self._line() == "ready"

    def go(self) -> None:
        """Send now."""
        self._write("go")

    def outcome(self) -> dict[str, object]:
        """How its send went (the JSON line it printed)."""
        found = json.loads(self._line())
        assert isinstance(found, dict)
        return found

    def close(self) -> int:
        """End it (stdin closed), its exit code."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            with contextlib.suppress(BrokenPipeError):  # it died already
                self.process.stdin.close()
        code = self.process.wait(timeout=60)
        self.watchdog.cancel()
        if self.process.stdout is not None:
            self.process.stdout.close()
        return code


def send_at_once(
    senders: Sequence[Sender], thread: str, messages: Sequence[tuple[str, bool]]
) -> list[dict[str, object]]:
    """Each sender sends one of ``messages`` (text, queue), all told to go at the same moment."""
    for sender, (message, queue) in zip(senders, messages, strict=False):
        sender.ready(thread, message, queue)
    used = senders[: len(messages)]
    for sender in used:
        sender.go()
    return [sender.outcome() for sender in used]
