import os
import sys

# The generate suite's tests read the captured command output the parser tests keep (fixture_files).
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "module_utils"))
