"""Resume a queued parent and SIGKILL this process at one store write (the crash test's parent process).

python -m tests.teams.crash_parent DB RUN_ID WRITE   (WRITE: ``wait_on_children``, the child's row
and run being stored with the parent's wait; or ``start_effect``, the child's first effect starting
here after that)
"""

from __future__ import annotations

import os
import signal
import sys

from agentsm_fn.durable import open_store
from tests.teams.programs import DELEGATOR


def main(argv: list[str]) -> int:
    db, run_id, write = argv
    store = open_store(db).unwrap()

    def die(*args: object, **kwargs: object) -> object:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")  # pragma: no cover

    setattr(store, write, die)  # the one write this process never makes
    DELEGATOR.resume(store, run_id)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
