"""A deployment's world on real directories, for model_shard's present and the pulls under it: the lab's tiny model
as the source (written by the lab's own writer), a stand-in ssh that runs the remote command locally and logs the
address it was given, and model_shard run against it with real shell commands."""
import os
import subprocess
import sys

from ansible_collections.macops.cluster.plugins.modules import model_shard

from module_harness import FakeMac, run_module


# ssh's place: drop the options, log the address, run the remote command line through the shell.
FAKE_SSH = """#!/bin/sh
while :; do case "$1" in -o) shift 2;; -x|-a) shift;; -O) exit 0;; *) break;; esac; done
address="$1"; shift
echo "$address" >> "%(log)s"
exec /bin/sh -c "$1"
"""


def pulls_from(world, names, parent_dir=None, relay=False):
    return [dict(entry, parent="mac1", address="198.18.0.1", parent_dir=str(parent_dir or world["source"]),
                 relay=relay) for entry in world["files"] if entry["file"] in names]


class RealShell(FakeMac):
    """run_command for real: the module's pulls are shell command lines (ssh ... >> partial file)."""

    def run_command(self, args, **kwargs):
        self.calls.append(args)
        proc = subprocess.run(args, shell=bool(kwargs.get("use_unsafe_shell")), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)
        return proc.returncode, proc.stdout, proc.stderr


def run(monkeypatch, capsys, world, state="present", check=False, **args):
    module_args = dict(state=state, dest=str(world["dest"]), files=world["files"], run_id="run-1",
                       ssh=world["ssh"], parent_python=sys.executable, stall_timeout=5,
                       checksum_cache=str(world["tmp"] / "cache.json"), _ansible_check_mode=check)
    module_args.update(args)
    return run_module(monkeypatch, capsys, model_shard.main, module_args, RealShell([]))[0]


def same_files(left, right):
    names = sorted(n for n in os.listdir(str(left)) if not n.startswith("."))
    for name in names:
        with open(str(left / name), "rb") as a, open(str(right / name), "rb") as b:
            assert a.read() == b.read(), name
    return names


def pieces_from(world, entry, parents):
    """The entry cut into one piece per parent, as the transfer plan cuts it: [(parent, parent_dir)]."""
    step = -(-entry["size"] // len(parents))
    return [dict(entry, parent=parent, address=address, parent_dir=str(directory), offset=offset,
                 length=min(step, entry["size"] - offset))
            for (parent, address, directory), offset in zip(parents, range(0, entry["size"], step))]
