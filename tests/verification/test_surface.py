"""The public surface: a sorted __all__ that is exactly what the package exports, no networkx in the core."""

from __future__ import annotations

import subprocess
import sys

import verification


def test_all_is_sorted_and_exported() -> None:
    assert list(verification.__all__) == sorted(verification.__all__)
    for name in verification.__all__:
        assert hasattr(verification, name), name


def test_importing_the_core_does_not_import_networkx() -> None:
    code = "import sys, agentsm_fn; print('networkx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


FOREIGN = ("langgraph", "langchain_core", "statemachine", "transitions")


def test_importing_the_verifier_or_the_library_imports_no_foreign_framework() -> None:
    code = (
        "import sys, agentsm_fn, verification, verification.cli, verification.foreign; "
        "from verification.loading import load_model; "
        "load_model('agentsm_fn.agents.react:REACT_MACHINE').unwrap(); "
        f"print(sorted(m for m in {FOREIGN!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_reading_a_transitions_machine_does_not_import_langgraph() -> None:
    code = (
        "import sys; from verification.loading import load_model; "
        "load_model('tests.verification.foreign_machines:MATTER').unwrap(); "
        f"print(sorted(m for m in {FOREIGN!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['statemachine', 'transitions']"  # the fixture module imports both
