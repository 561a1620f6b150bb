"""Start a delegating parent on a counted SQLite store and SIGKILL this process in its n-th transaction.

python -m tests.teams.crash_commits DB N   (the test: tests/teams/test_transactions.py)
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.durable.transactions import counted_store
from tests.teams.programs import DELEGATOR, Boss


def main(argv: list[str]) -> int:
    db, die_at = argv
    with counted_store(Path(db), int(die_at)) as (store, _):
        DELEGATOR.start(store, Boss(n=5), run_id="boss")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
