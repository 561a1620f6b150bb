"""benchmarks/temporal.py runs every side in quick mode and prints every ratio (no timing asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_benchmark_prints_every_ratio_and_the_payload_table() -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "temporal.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert out.count("(target <= 1.2)") == 2
    assert "adapter throughput, 2 workers / 1 worker" in out
    assert "zlib > 4 KB" in out and "plain" in out
