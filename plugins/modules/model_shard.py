#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: model_shard
short_description: Plan a model's placement on the cluster, and give each node exactly its files
version_added: 0.1.0
description:
  - V(plan) runs where the model is (a node, or the controller with C(delegate_to)) and reads the model directory's
    C(config.json), its C(model.safetensors.index.json) and the header of every C(.safetensors) file, never the
    weights, so the sizes of each layer are exact and a truncated or corrupt file is found before anything moves.
  - Returns the placement for the runtime named, by that runtime's own rule for its version. For mlx-lm's
    pipeline (ranks in hostfile order, rank 0 holding the last layers) each rank gets only its files; mlx-lm
    before 0.32.0 loses layers when the layer count does not divide by the rank count, so such a split is
    refused. exo loads only complete model directories, so every node gets every file (exo's memory-weighted
    layer split is shown for information). Tensor mode needs the hidden size and the heads to divide.
  - Each rank's share (its weights, its KV cache for O(context_tokens), O(overhead_mb)) is checked against the
    node's GPU wired limit, not its RAM.
  - With O(checksums), every file of the plan gets its sha256, remembered in O(checksum_cache) by size and
    modification time so a second plan of a large model does not read it again.
  - V(inventory) (read only) runs on each node and says which of the files it must hold are there and right
    (size and sha256), partial (and how many bytes), wrong or missing, and which other files are in O(dest). The
    controller plans the transfers from it and checks the bytes still missing against the free disk that
    M(macops.cluster.node_facts) reads.
  - V(present) makes O(dest) hold exactly O(files). It removes wrong files, links or copies what O(local_source)
    holds, pulls the rest from its parents over SSH (O(pulls), each a file or a piece of one, from the parent's
    address on the cable they share; a file's pieces come from several parents at once), and removes every other
    file. A file appears under its name only whole and with its sha256 checked; an interrupted pull resumes from
    its partial files; a parent that is itself receiving a piece serves it as it arrives (the striped relay of
    C(docs/deploy-model.md)).
  - V(absent) removes the model's directory O(dest) and the directories in O(also) (the source copies a hub
    download or a controller copy left), each of which must lie inside O(root), the models directory, under a
    name that does not start with a dot; a path that does not exist is no failure. O(dest) must hold a
    deployment's record or run marker (a directory V(present) made), and one deployed in place (the owner's
    source directory itself) is kept, never removed (RV(kept)).
  - The placement rules, the transfer plan and the relay, with their sources, are in C(docs/deploy-model.md).
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
attributes:
  check_mode:
    support: full
    details: V(plan) and V(inventory) only read (in check mode they do not write O(checksum_cache)); V(present)
      in check mode reports the files it would pull, link and remove; V(absent) the directories it would remove.
  diff_mode:
    support: none
  platform:
    platforms: posix
options:
  state:
    description: V(plan) the placement, V(inventory) what a node holds, V(present) make it hold its files, V(absent)
      remove the model from the node.
    type: str
    choices: [plan, inventory, present, absent]
    default: plan
  path:
    description: V(plan) only. The model directory on the host the module runs on.
    type: path
  nodes:
    description:
      - V(plan) only. The nodes to place the model on, in rank order (the MLX hostfile's order).
    type: list
    elements: str
  node_facts:
    description:
      - V(plan) only. Per node of O(nodes), its M(macops.cluster.node_facts) result with the C(mac) group
        (C(memory_bytes)) and the C(wired_limit) group (C(live_mb), C(target_mb)).
    type: dict
    default: {}
  runtime:
    description: V(plan) only. The runtime that will run the model.
    type: str
    choices: [mlx-lm, exo]
  runtime_version:
    description: V(plan) only. The installed version of that runtime (its rules change between versions).
    type: str
  mode:
    description: V(pipeline) splits the layers across the nodes; V(tensor) splits every layer.
    type: str
    choices: [pipeline, tensor]
    default: pipeline
  split:
    description:
      - mlx-lm pipeline only. V(even) is the split C(--pipeline) uses; V(memory) gives each rank layers in
        proportion to its wired limit (mlx-lm 0.32.0 or later, run through a launcher that passes the split);
        V(auto) is even when it fits, else by memory.
    type: str
    choices: [auto, even, memory]
    default: auto
  context_tokens:
    description: The context length whose KV cache each rank must hold beside its weights.
    type: int
    default: 32768
  overhead_mb:
    description: Memory each rank needs beyond weights and KV cache (activations, buffers, the process).
    type: int
    default: 2048
  smallest_fit:
    description: Place on the fewest nodes that fit (those with the largest wired limits), not on every node.
    type: bool
    default: false
  trust_remote_code:
    description:
      - Whether serving will run a tokenizer's own Python code (serve_trust_remote_code). False refuses, for
        runtime mlx-lm, a model whose tokenizer_config.json maps its tokenizer to its own code
        (C(shard_remote_code_untrusted)); omitted, it is not checked.
    type: bool
    version_added: 0.2.0
  supports:
    description:
      - What the installed runtime can do with this model type, as C({pipeline, tensor}) booleans (mlx-lm
        pipelines only models with its PipelineMixin); omitted keys are not checked.
    type: dict
    default: {}
  checksums:
    description: Compute the sha256 of every file of the plan.
    type: bool
    default: true
  checksum_cache:
    description: Where the sha256 of each file is remembered (by path, size and mtime).
    type: path
    default: ~/.cache/macops/model-sha256.json
  dest:
    description: V(inventory) and V(present). The node's directory of this model.
    type: path
  files:
    description: V(inventory) and V(present). Every file the node must hold, with its size and sha256.
    type: list
    elements: dict
    suboptions:
      file:
        description: The file's name in O(dest).
        type: str
        required: true
      size:
        description: Its size in bytes.
        type: int
        required: true
      sha256:
        description: Its sha256, hex.
        type: str
        required: true
  pulls:
    description:
      - V(present) only. The files to pull and from whom, as the controller's transfer plan gives them; a file of
        O(files) the node lacks must be here or in O(local_source).
    type: list
    elements: dict
    default: []
    suboptions:
      file:
        description: The file's name.
        type: str
        required: true
      size:
        description: Its size in bytes.
        type: int
        required: true
      sha256:
        description: Its sha256, hex.
        type: str
        required: true
      parent:
        description: The node it comes from (for messages).
        type: str
        required: true
      address:
        description: The parent's address on the cable the two share (SSH connects there).
        type: str
        required: true
      link_id:
        description: The cable the bytes cross (for messages and the report).
        type: str
      parent_dir:
        description: The directory that holds the file on the parent.
        type: path
        required: true
      relay:
        description: The parent is receiving the file in this run too, and serves it as it arrives.
        type: bool
        default: false
      offset:
        description: The first byte of the piece this entry pulls (a file may come in pieces from several
          parents at once; together a file's entries cover it exactly).
        type: int
        default: 0
      length:
        description: The piece's length in bytes; by default the rest of the file from O(pulls[].offset).
        type: int
  local_source:
    description: V(present) only. A directory on this node that holds the model (the source); its files are hard
      linked (or copied) rather than pulled.
    type: path
  prune:
    description: V(present) only. Remove the files of O(dest) that are not in O(files). Never done when O(dest) is
      O(local_source).
    type: bool
    default: true
  run_id:
    description: V(present) only. This deployment's id, the same on every node (a relay serves only once it has
      started this run).
    type: str
  ssh:
    description: V(present) only. The ssh client that reaches the parents.
    type: path
    default: /usr/bin/ssh
  parent_python:
    description: V(present) only. The Python interpreter on the parents that serves the bytes.
    type: path
    default: /usr/bin/python3
  stall_timeout:
    description: V(present) only. Seconds without a byte before a pull fails (a relay waits this long for its own
      parent).
    type: int
    default: 120
  manifest:
    description:
      - V(present) only. The deployment's record, written as C(.macops-model.json) in O(dest) once every file is
        there (with O(files) added), and kept by the prune. M(macops.cluster.node_facts)' C(models) group reads it
        for the health report and the doctor.
      - Give only what stays the same from run to run (model, runtime, rank, layers), so a second run changes
        nothing.
    type: dict
  root:
    description: V(absent) only. The models directory, which O(dest) and every path of O(also) must lie inside.
    type: path
    version_added: 0.2.0
  also:
    description: V(absent) only. More directories of the model to remove, such as its source copies.
    type: list
    elements: path
    default: []
    version_added: 0.2.0
seealso:
  - module: macops.cluster.node_facts
"""

EXAMPLES = r"""
- name: Plan DeepSeek V3.1 across the cluster for mlx-lm's pipeline
  macops.cluster.model_shard:
    path: /Users/admin/models/DeepSeek-V3.1-4bit
    nodes: [studio1, studio2]
    node_facts:
      studio1: {mac: {memory_bytes: 549755813888}, wired_limit: {live_mb: 491520, target_mb: 491520}}
      studio2: {mac: {memory_bytes: 549755813888}, wired_limit: {live_mb: 0, target_mb: 491520}}
    runtime: mlx-lm
    runtime_version: 0.32.2
  register: model_plan

- name: Remove a model and the copy its hub download left
  macops.cluster.model_shard:
    state: absent
    root: /Users/admin/models
    dest: /Users/admin/models/mlx-community--Qwen3-0.6B-4bit
    also: [/Users/admin/models/.hub/mlx-community--Qwen3-0.6B-4bit]
"""

RETURN = r"""
removed_dirs:
  description: V(absent). Each directory removed (in check mode, that would be), with the bytes of its files.
  returned: state is absent
  type: list
  elements: dict
  sample: [{"path": "/Users/admin/models/Qwen3-0.6B-4bit", "bytes": 335544320}]
kept:
  description: V(absent). The directories kept because the model was deployed in place (the owner's own copy).
  returned: state is absent
  type: list
  elements: str
inventory:
  description: V(inventory). C(files) (name -> C(state) ok, partial, wrong or missing, and C(bytes) held), C(extra)
    (other files) and C(missing_bytes) (what the node still needs, partial bytes counted as held).
  returned: state is inventory
  type: dict
received:
  description: V(present). Per pulled file its C(parent) (of the first piece), C(parents), C(pieces), C(received)
    bytes, C(resumed_from) (bytes its partial files held) and C(seconds).
  returned: state is present
  type: list
  elements: dict
linked:
  description: V(present). The files taken from O(local_source).
  returned: state is present
  type: list
  elements: str
removed:
  description: V(present). The files removed (wrong copies and files that are not the node's).
  returned: state is present
  type: list
  elements: str
bytes_received:
  description: V(present). Bytes that came over the cables in this run.
  returned: state is present
  type: int
manifest:
  description: V(present). Whether the deployment's record (O(manifest)) was written (or would be, in check mode).
  returned: state is present
  type: bool
seconds:
  description: V(present). Wall time of the pulls.
  returned: state is present
  type: float
plan:
  description:
    - The placement. C(ranks) lists per rank its C(host), C(layers) ([start, end)), C(files), C(disk_bytes),
      C(weight_bytes), C(kv_reserve_bytes), C(need_bytes), C(wired_limit_bytes) and C(headroom_bytes);
      C(split) the layers per rank; C(copies) is C(per-rank) or C(full); C(files) maps each file to its size and
      C(sha256) to its digest. With O(checksums), each rank's C(entries) lists its files with size and sha256, as
      V(inventory) and V(present) take them.
  returned: state is plan
  type: dict
model:
  description: The model's architecture (C(model_type), C(layers), C(hidden_size), C(heads), C(kv_heads)), its
    bytes and its file count.
  returned: state is plan
  type: dict
hashed:
  description: The files whose sha256 was computed in this run (not taken from the cache).
  returned: state is plan or inventory
  type: list
  elements: str
problems:
  description: Catalogue problems (C(docs/problems.md)) when no placement is safe; the module then fails.
  returned: failure
  type: list
  elements: dict
"""

import os
import shutil
import tempfile
import time
from shlex import quote as shlex_quote

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._file_digest import digests, load_cache, save_cache
from ansible_collections.macops.cluster.plugins.module_utils._model_deploy import (
    hold_lock, inventory, link_or_copy, manifest_of, mark_run, prune, remove, removal, write_json, write_manifest)
from ansible_collections.macops.cluster.plugins.module_utils._model_dir import ModelError, read_model
from ansible_collections.macops.cluster.plugins.module_utils._model_plan import place, smallest_fit
from ansible_collections.macops.cluster.plugins.module_utils._plan_error import PlanError
from ansible_collections.macops.cluster.plugins.module_utils._model_pull import (
    PROGRESS_FILE, Progress, close_masters, control_options, pull_all, serve_argv, ssh_argv, tiling_errors)
from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

FILE_SPEC = dict(file=dict(type="str", required=True), size=dict(type="int", required=True),
                 sha256=dict(type="str", required=True))
ARGUMENT_SPEC = dict(
    state=dict(type="str", choices=["plan", "inventory", "present", "absent"], default="plan"),
    path=dict(type="path"),
    nodes=dict(type="list", elements="str"),
    node_facts=dict(type="dict", default={}),
    runtime=dict(type="str", choices=["mlx-lm", "exo"]),
    runtime_version=dict(type="str"),
    mode=dict(type="str", choices=["pipeline", "tensor"], default="pipeline"),
    split=dict(type="str", choices=["auto", "even", "memory"], default="auto"),
    context_tokens=dict(type="int", default=32768, no_log=False),
    overhead_mb=dict(type="int", default=2048),
    smallest_fit=dict(type="bool", default=False),
    supports=dict(type="dict", default={}),
    trust_remote_code=dict(type="bool"),
    checksums=dict(type="bool", default=True),
    checksum_cache=dict(type="path", default="~/.cache/macops/model-sha256.json"),
    dest=dict(type="path"),
    files=dict(type="list", elements="dict", options=FILE_SPEC),
    pulls=dict(type="list", elements="dict", default=[], options=dict(
        FILE_SPEC, parent=dict(type="str", required=True), address=dict(type="str", required=True),
        link_id=dict(type="str"),
        parent_dir=dict(type="path", required=True), relay=dict(type="bool", default=False),
        offset=dict(type="int", default=0), length=dict(type="int"))),
    local_source=dict(type="path"),
    prune=dict(type="bool", default=True),
    run_id=dict(type="str"),
    ssh=dict(type="path", default="/usr/bin/ssh"),
    parent_python=dict(type="path", default="/usr/bin/python3"),
    stall_timeout=dict(type="int", default=120),
    manifest=dict(type="dict"),
    root=dict(type="path"),
    also=dict(type="list", elements="path", default=[]),
)
REQUIRED_IF = [("state", "plan", ("path", "nodes", "runtime", "runtime_version")),
               ("state", "inventory", ("dest", "files")),
               ("state", "present", ("dest", "files", "run_id")),
               ("state", "absent", ("dest", "root"))]


def model_summary(model):
    summary = dict(model["arch"])
    summary.update(path=model["path"], files=len(model["files"]), weight_files=len(model["weight_files"]),
                   bytes=sum(entry["size"] for entry in model["files"].values()),
                   checkpoint_layers=len(model["checkpoint_layers"]))
    return summary


def capacities(names, facts):
    """[{name, memory_bytes, wired_limit_mb, wired_target_mb}] from each node's node_facts result; raises
    ValueError naming a node whose facts lack its memory."""
    nodes = []
    for name in names:
        node = facts.get(name) or {}
        memory = (node.get("mac") or {}).get("memory_bytes")
        if not isinstance(memory, int) or memory <= 0:
            raise ValueError("node %s has no memory_bytes in node_facts (gather the mac group on every node of "
                             "nodes; known: %s)" % (name, ", ".join(sorted(facts)) or "none"))
        wired = node.get("wired_limit") or {}
        nodes.append({"name": name, "memory_bytes": memory, "wired_limit_mb": wired.get("live_mb") or 0,
                      "wired_target_mb": wired.get("target_mb")})
    return nodes


def run_plan(params, check_mode):
    """(plan, model summary, hashed files); raises ModelError or PlanError."""
    nodes = capacities(params["nodes"], params["node_facts"])
    model = read_model(params["path"])
    settings = dict(mode=params["mode"], split=params["split"], context_tokens=params["context_tokens"],
                    overhead_mb=params["overhead_mb"], supports=params["supports"],
                    trust_remote_code=params["trust_remote_code"])
    planner = smallest_fit if params["smallest_fit"] else place
    plan = planner(model, nodes, params["runtime"], params["runtime_version"], **settings)
    hashed = []
    if params["checksums"]:
        cache_path = params["checksum_cache"]
        cache = load_cache(cache_path)
        paths = [os.path.join(model["path"], name) for name in sorted(plan["files"])]
        found, hashed = digests(paths, cache)
        plan["sha256"] = dict((os.path.basename(path), value) for path, value in found.items())
        for rank in plan["ranks"]:
            rank["entries"] = [{"file": name, "size": plan["files"][name], "sha256": plan["sha256"][name]}
                               for name in rank["files"]]
        if hashed and not check_mode:
            save_cache(cache_path, cache)
    return plan, model_summary(model), [os.path.basename(path) for path in hashed]


def plan_state(module):
    params = module.params
    if params["context_tokens"] < 0 or params["overhead_mb"] < 0:
        module.fail_json(msg="context_tokens (%d) and overhead_mb (%d) cannot be negative"
                         % (params["context_tokens"], params["overhead_mb"]))
    names = params["nodes"]
    if not names or len(set(names)) != len(names):
        module.fail_json(msg="nodes must name each node once, got %s" % names)
    try:
        plan, model, hashed = run_plan(params, module.check_mode)
    except ModelError as exc:
        found = problem(exc.code, "%s: %s." % (exc.path, exc.fault))
        module.fail_json(msg=found["message"], problems=[found])
    except PlanError as exc:
        module.fail_json(msg="no safe placement: %s" % exc, problems=exc.problems)
    except ValueError as exc:
        module.fail_json(msg="%s" % exc)
    module.exit_json(changed=False, plan=plan, model=model, hashed=hashed)


def inventory_state(module, cache_path):
    cache = load_cache(cache_path)
    before = len(cache)
    held = inventory(module.params["dest"], module.params["files"], cache)
    if len(cache) != before and not module.check_mode:
        save_cache(cache_path, cache)
    return held


def present_state(module, cache_path):
    params = module.params
    dest, wanted = params["dest"], dict((entry["file"], entry) for entry in params["files"])
    local = params["local_source"]
    in_place = bool(local) and os.path.realpath(local) == os.path.realpath(dest)
    held = inventory_state(module, cache_path)
    pulls = set(entry["file"] for entry in params["pulls"])
    tiling = tiling_errors(params["pulls"])
    if tiling:
        module.fail_json(msg="the transfer plan's pieces are wrong: %s" % "; ".join(tiling))
    lacking = [name for name, state in sorted(held["files"].items()) if state["state"] != "ok"]
    from_local = [name for name in lacking if name not in pulls and local and not in_place
                  and os.path.isfile(os.path.join(local, name))]
    unplanned = [name for name in lacking if name not in pulls and name not in from_local]
    if unplanned:
        module.fail_json(msg="%s lacks %s and the transfer plan gives no parent for it" % (dest, ", ".join(unplanned)))
    wrong = [name for name in lacking if held["files"][name]["state"] == "wrong"]
    extra = held["extra"] if params["prune"] and not in_place else []
    record = manifest_of(params["manifest"], params["files"]) if params["manifest"] is not None else None
    if record is not None and in_place:
        record["in_place"] = True  # the owner's own copy: state absent never removes it
    result = dict(changed=bool(lacking or extra), received=[], linked=from_local, removed=sorted(wrong + extra),
                  bytes_received=0, seconds=0.0, inventory=held, manifest=False)
    if module.check_mode:
        result["would_pull"] = sorted(name for name in lacking if name in pulls)
        result["manifest"] = record is not None and write_manifest(dest, record, True)
        result["changed"] = result["changed"] or result["manifest"]
        module.exit_json(**result)
    if not os.path.isdir(dest):
        os.makedirs(dest, 0o755)
    lock = hold_lock(dest)
    if lock is None:
        module.fail_json(msg="%s: another deployment is still pulling into it (an earlier run's job, left running when "
                         "its controller went away); wait for it or end it, then run again" % dest, **result)
    for name in wrong:  # before the marker: no child may read a copy that is about to be replaced
        os.remove(os.path.join(dest, name))
    mark_run(dest, params["run_id"])
    for name in from_local:
        link_or_copy(local, dest, name)
    todo = [entry for entry in params["pulls"] if entry["file"] in lacking]
    # The bytes still to come: the pieces less what their partial files hold.
    coming = sum(entry.get("length") or entry["size"] - (entry.get("offset") or 0) for entry in todo) - sum(
        held["files"][name]["bytes"] for name in set(entry["file"] for entry in todo))
    progress = Progress(coming, os.path.join(dest, PROGRESS_FILE), write_json)
    write_json(os.path.join(dest, PROGRESS_FILE), progress.snapshot())  # this run's, from its first second

    control = tempfile.mkdtemp(prefix="mcs-", dir="/tmp")  # short: a socket path has at most 104 bytes

    def command_for(entry, pos):
        remote = serve_argv(params["parent_python"], entry["parent_dir"], entry, pos, params["stall_timeout"],
                            params["run_id"], entry["relay"])
        return ssh_argv(params["ssh"], entry["address"], remote, options=control_options(control))

    def run(argv, path):
        # stdout goes straight to the partial file: the shell appends it, nothing passes through Python.
        command = "exec %s >> %s" % (" ".join(shlex_quote(word) for word in argv), shlex_quote(path))
        # No time limit here: pull_all ends a pull that stops moving (stall_timeout). Exceptions stay
        # exceptions, for pull_all to report.
        rc, _stdout, stderr = commands.execute(["/bin/sh", "-c", command])
        return rc, stderr

    started = time.time()
    try:
        done, errors = pull_all(todo, dest, command_for, run, progress, params["stall_timeout"])
    finally:
        close_masters(params["ssh"], control, [entry["address"] for entry in todo], commands.result_of)
        shutil.rmtree(control, ignore_errors=True)
    result.update(received=sorted(done, key=lambda item: item["file"]), seconds=round(time.time() - started, 3),
                  bytes_received=sum(item["received"] for item in done))
    write_json(os.path.join(dest, PROGRESS_FILE), progress.snapshot())
    if errors:
        module.fail_json(msg="%s: %d file(s) could not be pulled: %s" % (dest, len(errors), "; ".join(errors)),
                         **result)
    if extra:
        prune(dest, wanted)
    if record is not None:
        result["manifest"] = write_manifest(dest, record, False)
        result["changed"] = result["changed"] or result["manifest"]
    module.exit_json(**result)


def absent_state(module):
    try:
        found, kept = removal(module.params["root"], [module.params["dest"]] + module.params["also"],
                              deployed=[module.params["dest"]])
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    if not module.check_mode:
        for path, _size in found:
            remove(path)
    module.exit_json(changed=bool(found), removed_dirs=[{"path": path, "bytes": size} for path, size in found],
                     kept=kept)


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, required_if=REQUIRED_IF, supports_check_mode=True)
    state = module.params["state"]
    cache_path = module.params["checksum_cache"]
    try:
        if state == "absent":
            absent_state(module)
        if state == "plan":
            plan_state(module)
        if state == "inventory":
            module.exit_json(changed=False, inventory=inventory_state(module, cache_path))
        present_state(module, cache_path)
    except (IOError, OSError) as exc:
        module.fail_json(msg="%s: %s" % (getattr(exc, "filename", None) or module.params["dest"]
                                         or module.params["path"], exc))


if __name__ == "__main__":
    main()
