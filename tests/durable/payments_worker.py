"""Run one payments run; the test kills this process at a chosen point.

python -m tests.durable.payments_worker DB RUN_ID COUNT DIE_AT

``DIE_AT`` > 0: SIGKILL as the store's DIE_AT-th transaction is about to commit;
``PAYMENTS_DIE_IN`` (see :mod:`tests.durable.payments`): SIGKILL in a payment.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.durable.payments import DURABLE_PAYMENTS, Payments
from tests.durable.transactions import counted_store


def main(argv: list[str]) -> int:
    db, run_id, count, die_at = argv
    with counted_store(Path(db), int(die_at)) as (store, _):
        DURABLE_PAYMENTS.start(store, Payments(count=int(count)), run_id=run_id).unwrap()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
