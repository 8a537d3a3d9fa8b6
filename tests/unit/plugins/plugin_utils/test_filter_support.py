"""Loading the collection's filter files imports no engine (plugins/plugin_utils/_filter_support.py says why: Ansible
imports every filter file, in every worker, to find one filter)."""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
# What a filter file may import when it loads: the small shared pieces every file needs anyway.
ALLOWED = {"_filter_support", "_topology_common", "_tb_addressing"}


def test_loading_every_filter_file_imports_no_engine_and_each_filter_still_works():
    script = """
import importlib, json, pkgutil, sys
sys.path.insert(0, %r)
import ansible_collections.macops.cluster.plugins.filter as filters
names = [m.name for m in pkgutil.iter_modules(filters.__path__)]
for name in names:
    module = importlib.import_module(filters.__name__ + "." + name)
    module.FilterModule().filters()
loaded = sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("ansible_collections.macops.cluster.plugins.plugin_utils."))
print(json.dumps({"files": len(names), "plugin_utils": loaded}))
""" % os.path.join(REPO, "collections")
    found = subprocess.run([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, check=True)
    result = json.loads(found.stdout)
    assert result["files"] >= 17
    assert set(result["plugin_utils"]) <= ALLOWED, result["plugin_utils"]
