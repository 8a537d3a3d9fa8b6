import os
import sys

# fixture_files sits next to the tests; make it importable under any pytest --import-mode.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
