import sys
from pathlib import Path

# The excerpt helpers live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))
