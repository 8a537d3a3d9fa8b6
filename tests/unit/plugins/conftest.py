"""The plugin tests mirror the code: plugins/<type>/<name>.py is tested in <type>/test_<name>.py here (a leading
underscore of a private file's name dropped: plugins/module_utils/_df.py in module_utils/test_df.py), and
tests/unit/test_tests_mirror_code.py keeps it so. Each <type> folder is a package, so two types may each hold a
test_<name>.py. What several test files share (fake Macs, cable lists, the report fixture, the captured command
output's reader) is in helpers/, importable by name from any of them."""
import hashlib
import os
import stat
import sys

import pytest

HELPERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers")
if HELPERS not in sys.path:
    sys.path.insert(0, HELPERS)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "lab"))
from macsim import testmodel  # noqa: E402  (the lab's model writer)
from model_world import FAKE_SSH  # noqa: E402


@pytest.fixture()
def world(tmp_path):
    """A deployment's world: the lab's tiny model as the source, a stand-in ssh, a destination (model_world.py)."""
    source = tmp_path / "source" / "tiny-qwen2"
    testmodel.write(str(source))
    files = []
    for name in sorted(os.listdir(str(source))):
        with open(str(source / name), "rb") as handle:
            data = handle.read()
        files.append({"file": name, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    ssh = tmp_path / "ssh"
    ssh.write_text(FAKE_SSH % {"log": str(tmp_path / "ssh.log")})
    ssh.chmod(ssh.stat().st_mode | stat.S_IXUSR)
    return {"tmp": tmp_path, "source": source, "files": files, "ssh": str(ssh), "dest": tmp_path / "node" / "m"}
