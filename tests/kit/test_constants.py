"""A derandomized check draws the same runs whatever local modules are loaded.

:func:`verification.kit._constants.fixed_constants` relies on Hypothesis's private pool of
constants read from loaded modules. If a Hypothesis release renames or moves it, the guard turns
into a no-op and the kit's fixed-seed coverage checks start to depend on which modules a test
session loaded. This test catches that: in a fresh interpreter it runs the same derandomized
check before and after importing a local module full of unusual constants, and shows that an
unguarded derandomized search does change with them (so the comparison can fail).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_PLANTED_INT = 7_345_901_237
_PLANTED_TEXT = "zq-planted-constant"

_SCRIPT = """
import importlib, json, sys
from hypothesis import given, settings, strategies as st
from verification.kit import check_machine, kit_settings
from verification.kit._demo import COUNTER, counters

drawn = []

def record(values):
    drawn.append([values[1], values[2]])
    return values[0]

def guarded_draws():
    drawn.clear()
    memories = st.tuples(counters(), st.integers(), st.text(max_size=30)).map(record)
    check_machine(
        COUNTER,
        memories,
        settings=kit_settings("ci", max_examples=40, stateful_step_count=4),
        require_all_transitions=False,
    )
    return list(drawn)

def unguarded_draws():
    seen = []
    @settings(derandomize=True, max_examples=300, database=None)
    @given(st.integers(), st.text(max_size=30))
    def search(number, text):
        seen.append([number, text])
    search()
    return seen

before, plain_before = guarded_draws(), unguarded_draws()
sys.path.insert(0, sys.argv[1])
importlib.import_module("planted_constants")
after, plain_after = guarded_draws(), unguarded_draws()
print(json.dumps({"before": before, "after": after, "plain": [plain_before, plain_after]}))
"""


def test_a_derandomized_check_ignores_constants_of_newly_loaded_modules(tmp_path: Path) -> None:
    (tmp_path / "planted_constants.py").write_text(
        f"NUMBER = {_PLANTED_INT}\nTEXT = {_PLANTED_TEXT!r}\nOTHER = -{_PLANTED_INT}\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    draws = json.loads(done.stdout)
    assert draws["before"], "the check drew nothing"
    assert draws["before"] == draws["after"]
    plain_before, plain_after = draws["plain"]
    assert plain_before != plain_after, (
        "an unguarded derandomized search no longer changes when a module is loaded: "
        "the guard may be obsolete, and this test could no longer fail"
    )
