"""docs/durable-runs.md stays true: its Python blocks run and print what their comments say.

The PostgreSQL section reads its connection string from ``AGENTSM_RUNS_DB``: a new database on the
server the tests start (``postgres_url``, tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "durable-runs.md"


def test_every_python_block_runs_and_prints_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postgres_url: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTSM_RUNS_DB", postgres_url)  # the PostgreSQL section's database
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(DOC), "exec"), {"__name__": "durable_docs"})
        printed = [line for line in out.getvalue().splitlines() if not line.startswith("    charging")]
        said = [
            line.split("# ", 1)[1].strip() for line in block.splitlines() if "print(" in line and "# " in line
        ]
        assert printed == said
