"""Makes python/ importable so that `import tilec` finds the in-tree package;
the `torch` fixture: the module, or the test skipped where it is not installed."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="torch is not installed")
