#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: node_files
short_description: Put a role's small files and directories in place in one module run
version_added: 0.1.0
description:
  - Writes several small text files (hostfiles, LaunchDaemon plists, pf anchors, scripts), creates
    directories and removes files, each with its owner, group and mode, in one module execution.
  - Why not a loop over M(ansible.builtin.copy) or M(ansible.builtin.template)? Those cost two
    remote executions per file even when nothing changes (a stat, then the file attributes); a role
    that keeps three files in place would pay six per node and run. Render templates on the
    controller with C(lookup('ansible.builtin.template', ...)) and pass the text as O(files[].content).
  - A file is written to a temporary file in the same directory, checked with O(files[].validate)
    when given, then moved over the old one atomically, so a broken file never lands.
  - A V(block) entry keeps a block of lines between two marker lines inside a file others also edit (pf.conf,
    C(~/.ssh/known_hosts)), as M(ansible.builtin.blockinfile) does with C(insertafter=EOF) or C(insertbefore=BOF),
    and writes the same text, so a file blockinfile kept is left unchanged.
  - Entries are handled in the order given; a failure stops at that entry and names it, leaving the
    entries before it done.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
attributes:
  diff_mode:
    support: full
  platform:
    platforms: posix
options:
  files:
    description: What to put in place, in order.
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: Absolute path of the file or directory.
        type: path
        required: true
      state:
        description:
          - V(file) writes O(files[].content); V(directory) creates the directory and its parents;
            V(absent) removes a file or a symbolic link (never a directory); V(block) sets the managed block
            O(files[].block) inside the file (created when missing), or removes it when O(files[].block) is empty.
        type: str
        choices: [file, directory, absent, block]
        default: file
      content:
        description: The file's text (V(file) only; required there). Written as UTF-8.
        type: str
      owner:
        description: Owner name or uid. Unchanged when omitted.
        type: str
      group:
        description: Group name or gid. Unchanged when omitted.
        type: str
      mode:
        description: Octal mode such as C('0644'). Unchanged for an existing path when omitted.
        type: str
      block:
        description: The managed block's lines (V(block) only); empty removes the block and its markers.
        type: str
        version_added: 0.2.0
      marker:
        description: The marker lines, C({mark}) standing for C(BEGIN) and C(END) (V(block) only).
        type: str
        default: "# {mark} ANSIBLE MANAGED BLOCK"
        version_added: 0.2.0
      insert_at:
        description: Where a block the file does not hold yet goes (V(block) only).
        type: str
        choices: [end, start]
        default: end
        version_added: 0.2.0
      validate:
        description:
          - Command that checks the new file before it replaces the old one; C(%s) stands for the
            temporary file (e.g. C(/usr/bin/plutil -lint %s)). Run without a shell.
        type: str
notes:
  - Needs the rights to write where the files go (usually C(become)).
  - The content travels in the module arguments, so do not use it for secrets unless the task has C(no_log).
"""

EXAMPLES = r"""
- name: Write the hostfile and the LaunchDaemon, and make the log directory
  macops.cluster.node_files:
    files:
      - path: /Library/Application Support/macops/hostfile-ring.json
        content: "{{ macops_topology['hostfiles']['ring'] | to_json(indent=4) }}\n"
        owner: root
        group: wheel
        mode: "0644"
      - path: /Library/LaunchDaemons/org.macops.exo.plist
        content: "{{ lookup('ansible.builtin.template', 'exo.plist.j2') }}"
        owner: root
        group: wheel
        mode: "0644"
        validate: /usr/bin/plutil -lint %s
      - path: /Library/Logs/macops
        state: directory
        mode: "0755"
  become: true
"""

RETURN = r"""
changed_paths:
  description: The paths that changed (in check mode, that would change), in the order given.
  type: list
  elements: str
  returned: always
  sample: [/Library/LaunchDaemons/org.macops.exo.plist]
"""

import os
import shlex
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text
from ansible_collections.macops.cluster.plugins.module_utils import _module_commands as commands
from ansible_collections.macops.cluster.plugins.module_utils._managed_block import with_block


def _read(path):
    """The file's current bytes, or None when there is no regular file there."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as handle:
        return handle.read()


def _attributes(module, entry, changed, diff):
    """Apply owner, group and mode (check mode aware); returns whether any of them changed."""
    args = module.load_file_common_arguments({
        "path": entry["path"], "owner": entry.get("owner"), "group": entry.get("group"), "mode": entry.get("mode"),
    })
    return module.set_fs_attributes_if_different(args, changed, diff=diff)


def _write(module, entry, data):
    """Write data next to the target, validate it, then move it over the target."""
    directory = os.path.dirname(entry["path"]) or "."
    handle, temp = tempfile.mkstemp(prefix=".node_files.", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        if entry.get("validate"):
            command = entry["validate"]
            if "%s" not in command:
                module.fail_json(msg="files[%s].validate must contain %%s, the file to check: %r" % (entry["path"], command))
            argv = [arg.replace("%s", temp) for arg in shlex.split(command)]
            rc, out, err = commands.result_of(argv)
            if rc != 0:
                module.fail_json(msg="%s failed validation with %r (rc %d): %s" % (
                    entry["path"], command, rc, (to_text(err) or to_text(out)).strip()))
        module.atomic_move(temp, entry["path"])
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def apply_entry(module, entry):
    """Put one entry in place. Returns (changed, diff)."""
    path, state = entry["path"], entry["state"]
    check = module.check_mode
    diff = {"before_header": path, "after_header": path, "before": "", "after": ""}
    if not os.path.isabs(path):
        module.fail_json(msg="files[].path must be absolute, got %r" % path)

    if state == "absent":
        if os.path.isdir(path) and not os.path.islink(path):
            module.fail_json(msg="%s is a directory; node_files removes only files and symbolic links" % path)
        if not os.path.lexists(path):
            return False, None
        if not check:
            os.unlink(path)
        diff.update(before="%s exists\n" % path, after="%s removed\n" % path)
        return True, diff

    if state == "directory":
        if os.path.lexists(path) and not os.path.isdir(path):
            module.fail_json(msg="%s exists and is not a directory" % path)
        created = not os.path.isdir(path)
        if created:
            diff.update(before="%s absent\n" % path, after="directory %s\n" % path)
            if check:
                return True, diff
            os.makedirs(path)
        attr_diff = {}
        changed = _attributes(module, entry, created, attr_diff)
        return changed, (diff if created else _attribute_diff(path, attr_diff))

    if os.path.isdir(path):
        module.fail_json(msg="%s is a directory, not a file" % path)
    before = _read(path)
    if state == "block":
        if before is None and not entry.get("block"):
            return False, None  # no file, no block: nothing to remove
        text = with_block(to_text(before, errors="surrogate_or_strict") if before is not None else None,
                          entry.get("block") or "", entry["marker"], entry["insert_at"] == "start")
        data = to_bytes(text, errors="surrogate_or_strict")
    elif entry.get("content") is None:
        module.fail_json(msg="files[%s]: state=file needs content" % path)
    else:
        data = to_bytes(entry["content"], errors="surrogate_or_strict")
    written = before != data
    if written:
        diff.update(before=to_text(before or b"", errors="surrogate_or_replace"),
                    after=to_text(data, errors="surrogate_or_replace"))
        if check:
            # A file that does not exist yet gets its attributes when it is written.
            if before is None:
                return True, diff
        else:
            _write(module, entry, data)
    attr_diff = {}
    changed = _attributes(module, entry, written, attr_diff)
    if written:
        return True, diff
    return changed, _attribute_diff(path, attr_diff) if changed else None


def _attribute_diff(path, attr_diff):
    """set_fs_attributes_if_different fills before/after dicts; show them as text."""
    if not attr_diff:
        return None
    before = "".join("%s: %s\n" % item for item in sorted(attr_diff.get("before", {}).items()))
    after = "".join("%s: %s\n" % item for item in sorted(attr_diff.get("after", {}).items()))
    return {"before_header": path, "after_header": path, "before": before, "after": after}


def main():
    module = AnsibleModule(
        argument_spec=dict(
            files=dict(type="list", elements="dict", required=True, options=dict(
                path=dict(type="path", required=True),
                state=dict(type="str", choices=["file", "directory", "absent", "block"], default="file"),
                content=dict(type="str"),
                block=dict(type="str"),
                marker=dict(type="str", default="# {mark} ANSIBLE MANAGED BLOCK"),
                insert_at=dict(type="str", choices=["end", "start"], default="end"),
                owner=dict(type="str"),
                group=dict(type="str"),
                mode=dict(type="str"),
                validate=dict(type="str"),
            )),
        ),
        supports_check_mode=True,
    )
    changed_paths, diffs = [], []
    for entry in module.params["files"]:
        try:
            changed, diff = apply_entry(module, entry)
        except (IOError, OSError) as exc:
            module.fail_json(msg="%s: %s" % (entry["path"], to_native(exc)), changed_paths=changed_paths)
        if changed:
            changed_paths.append(entry["path"])
            if diff:
                diffs.append(diff)
    result = {"changed": bool(changed_paths), "changed_paths": changed_paths}
    if module._diff:
        result["diff"] = diffs
    module.exit_json(**result)


if __name__ == "__main__":
    main()
