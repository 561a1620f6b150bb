"""Run N durable runs one after another (the crash test kills this process at random points).

python -m tests.durable.crash_worker DB COUNTS KIND PREFIX N   (DB: a SQLite file or a postgresql:// URL)
"""

from __future__ import annotations

import sys
from pathlib import Path

from agentsm_fn.durable import open_store
from tests.durable import agents


def main(argv: list[str]) -> int:
    db, counts, kind, prefix, runs = argv
    store = open_store(db).unwrap()
    agents.COUNTS.append(Path(counts))
    durable = agents.KINDS[kind][0]
    for index in range(int(runs)):
        agents.RUN[0] = f"{prefix}-{index}"
        durable.start(store, agents.start_memory_of(kind), run_id=agents.RUN[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
