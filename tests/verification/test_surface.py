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
