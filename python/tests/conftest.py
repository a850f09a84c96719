"""Makes python/ importable so that `import tilec` finds the in-tree package."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
