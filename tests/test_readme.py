"""The README stays true: its composition example runs and prints what it says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert first_block is not None
    commands = [line.split("#")[0].strip() for line in first_block.group(1).splitlines() if line.strip()]
    assert commands == ["bash scripts/dev.sh demo", "bash scripts/dev.sh test"]


def test_the_composition_example_runs_as_printed() -> None:
    block = next(b for b in python_blocks() if "define_machine(" in b)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {"__name__": "readme_example"})
    first_line = out.getvalue().splitlines()[0]
    assert first_line == "St.ESCALATED ('received',)"
