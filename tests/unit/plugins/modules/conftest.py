import os
import sys

# The module tests replay the parser tests' fixtures (fixture_files) and share a harness (module_harness).
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "module_utils"))
