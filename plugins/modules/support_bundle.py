#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: support_bundle
short_description: Write a support bundle, redacted, from what every node printed
version_added: 0.2.0
description:
  - Runs on the control machine (C(delegate_to localhost)). From each node's M(macops.cluster.node_facts) read with
    C(record) (every command the collection reads, exactly as the node printed it, and the facts read from it) and
    its M(macops.cluster.file_tails) (the ends of its state files and logs), and the last reports on the control
    machine, writes one C(tar.gz) archive with a C(MANIFEST.json) saying what each node gave and what is missing.
  - Everything is redacted before it is written (serial numbers and hardware identifiers, keys, passwords and
    tokens; with O(redact_names) also the user and host names given), the same value by the same marker everywhere,
    so the facts in the bundle still match the outputs they were read from. C(lab/maclab replay) (or C(maclab up
    --from-bundle)) makes lab hosts print these outputs again.
  - A node that gave nothing, or part, is in the manifest with why; the bundle is written anyway.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - macops.cluster.attributes
options:
  dest:
    description: The directory the archive goes to (made when missing).
    type: path
    required: true
  name:
    description: The archive's name without C(.tar.gz) (also its top directory).
    type: str
    required: true
  hosts:
    description: The nodes (inventory names) the bundle is of.
    type: list
    elements: str
    required: true
  reads:
    description:
      - Per inventory name, its M(macops.cluster.node_facts) result with C(recorded) (failed or unreachable results
        too, the manifest then says why the node gave nothing).
    type: dict
    required: true
  tails:
    description: Per inventory name, its M(macops.cluster.file_tails) result.
    type: dict
    required: true
  reports:
    description: Report directories on the control machine; their C(report.json), C(report.md) and C(index.html).
    type: list
    elements: path
    default: []
  redact_names:
    description: Also replace O(names) (user and host names) wherever they appear.
    type: bool
    default: false
  names:
    description: The user and host names to replace with O(redact_names).
    type: list
    elements: str
    default: []
notes:
  - Use C(no_log) on the task; its input holds what it redacts.
"""

EXAMPLES = r"""
- name: Write the bundle
  macops.cluster.support_bundle:
    dest: artifacts/support
    name: support-bundle-20261207T093000Z
    hosts: "{{ ansible_play_hosts_all }}"
    reads: "{{ ansible_play_hosts_all | macops.cluster.per_host(hostvars, 'read') }}"
    tails: "{{ ansible_play_hosts_all | macops.cluster.per_host(hostvars, 'tails') }}"
    reports: [artifacts/doctor-report]
  delegate_to: localhost
  run_once: true
  no_log: true
  register: bundle
"""

RETURN = r"""
path:
  description: The archive written.
  returned: success
  type: str
manifest:
  description: What the bundle holds (C(MANIFEST.json)); per node its commands, files, what is missing and why.
  returned: success
  type: dict
summary:
  description: The same in lines for people, the archive's path first.
  returned: success
  type: list
  elements: str
"""

import io
import json
import os
import re
import tarfile
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.macops.cluster.plugins.module_utils._redact import Redactor
from ansible_collections.macops.cluster.plugins.module_utils._system_profiler import mask_serial

REPORT_FILES = ("report.json", "report.md", "index.html")
_SERIAL_IN_PROFILER = re.compile(r'"serial_number"\s*:\s*"([^"]+)"')


def _dump(value):
    return json.dumps(value, indent=1, sort_keys=True, default=str)


def node_parts(read, tails):
    """(recorded commands, facts, file tails, missing [{what, why}]) of one node's results."""
    read = read if isinstance(read, dict) else {}
    tails = tails if isinstance(tails, dict) else {}
    missing = []
    if read.get("unreachable"):
        missing.append({"what": "the node", "why": "unreachable: %s" % read.get("msg")})
    elif read.get("failed") or "recorded" not in read:
        missing.append({"what": "commands and facts", "why": str(read.get("msg") or "not read")})
    if tails.get("failed") or "files" not in tails:
        missing.append({"what": "state files and logs", "why": str(tails.get("msg") or "not read")})
    recorded = read.get("recorded") or []
    facts = dict((k, v) for k, v in read.items()
                 if k not in ("recorded", "invocation", "changed", "failed", "failed_when_result", "_ansible_no_log"))
    _unmask_serial(facts, recorded)
    missing.extend({"what": m.get("path"), "why": m.get("why")} for m in tails.get("missing") or [])
    missing.extend({"what": f["path"], "why": f["note"]} for f in tails.get("files") or [] if f.get("note"))
    return recorded, facts, tails.get("files") or [], missing


def _unmask_serial(facts, recorded):
    """The facts show the serial masked (QX7F******); the bundle shows the node's own serial's marker instead, which
    is what a lab host replaying the bundle reads (mask_serial leaves a marker as it is), so the facts stay equal."""
    mac = facts.get("mac")
    if not isinstance(mac, dict) or not mac.get("serial_number"):
        return
    for entry in recorded:
        for serial in _SERIAL_IN_PROFILER.findall(entry.get("stdout") or ""):
            if mask_serial(serial) == mac["serial_number"]:
                facts["mac"] = dict(mac, serial_number=serial)
                return


def _safe(text):
    """A name fit for a path inside the archive (a redacted name's marker has spaces and brackets)."""
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in text).strip("-") or "node"


def read_reports(reports):
    """({archive path: text} of each report directory's files, [{report, missing}])."""
    texts, listed = {}, []
    for directory in reports:
        for name in REPORT_FILES:
            try:
                with open(os.path.join(directory, name)) as handle:
                    text = handle.read()
            except (IOError, OSError) as exc:
                if name == "report.json":
                    listed.append({"report": directory, "missing": exc.strerror or str(exc)})
                continue
            texts["reports/%s/%s" % (_safe(os.path.basename(os.path.normpath(directory))), name)] = text
            if name == "report.json":
                listed.append({"report": directory, "missing": None})
    return texts, listed


def build(hosts, reads, tails, reports, names, redact_names):
    """{archive path: text} and the manifest."""
    redactor = Redactor(names if redact_names else [])
    parts = dict((host, node_parts((reads or {}).get(host), (tails or {}).get(host))) for host in sorted(set(hosts)))
    report_texts, listed = read_reports(reports)
    # Every secret of every text first (the reports' too), then the same marker everywhere.
    for recorded, facts, files, _missing in parts.values():
        for entry in recorded:
            redactor.learn(entry.get("stdout")).learn(entry.get("stderr"))
        for entry in files:
            redactor.learn(entry.get("text"))
        redactor.learn(_dump(facts))
    for text in report_texts.values():
        redactor.learn(text)
    texts = dict((path, redactor.apply(text)) for path, text in report_texts.items())
    manifest = {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "nodes": {}, "reports": listed,
                "names_redacted": bool(redact_names)}
    for host, (recorded, facts, files, missing) in sorted(parts.items()):
        where = _safe(redactor.apply(host))
        commands = [dict(entry, stdout=redactor.apply(entry.get("stdout")), stderr=redactor.apply(entry.get("stderr")),
                         argv=[redactor.apply(a) for a in entry.get("argv") or []]) for entry in recorded]
        texts["%s/commands.json" % where] = _dump(commands)
        texts["%s/facts.json" % where] = redactor.apply(_dump(facts))
        kept = []
        for entry in files:
            if entry.get("text") is None:
                continue
            path = "%s/files/%s" % (where, redactor.apply(entry["path"]).lstrip("/"))
            texts[path] = redactor.apply(entry["text"])
            kept.append({"path": redactor.apply(entry["path"]), "size": entry.get("size"),
                         "truncated": bool(entry.get("truncated"))})
        manifest["nodes"][where] = {"commands": len(commands), "files": kept,
                                    "missing": [dict(m, what=redactor.apply(str(m["what"])),
                                                     why=redactor.apply(str(m["why"]))) for m in missing]}
    manifest["redacted"] = redactor.summary()
    texts["MANIFEST.json"] = _dump(manifest)
    return texts, manifest


def summary(path, manifest):
    """Lines for people: where the bundle is, per node what it holds and lacks, what was redacted."""
    lines = ["support bundle: %s" % path]
    for host, node in sorted(manifest["nodes"].items()):
        lacks = "; missing: %s" % ", ".join("%s (%s)" % (m["what"], m["why"]) for m in node["missing"]) \
            if node["missing"] else ""
        lines.append("%s: %d commands, %d files%s" % (host, node["commands"], len(node["files"]), lacks))
    lines.append("reports: %s" % (", ".join(r["report"] for r in manifest["reports"] if not r["missing"]) or "none"))
    lines.append("redacted: %s" % (", ".join("%d %s value(s)" % (n, kind) for kind, n in sorted(
        manifest["redacted"].items())) or "nothing found to redact"))
    return lines


def write_archive(path, top, texts):
    """texts under `top/` in a tar.gz at `path`, readable by its owner only (written aside, then moved)."""
    partial = path + ".partial"
    with tarfile.open(partial, "w:gz") as archive:
        for name, text in sorted(texts.items()):
            data = text.encode("utf-8")
            info = tarfile.TarInfo("%s/%s" % (top, name))
            info.size, info.mtime, info.mode = len(data), int(time.time()), 0o600
            archive.addfile(info, io.BytesIO(data))
    os.chmod(partial, 0o600)
    os.rename(partial, path)


def main():
    module = AnsibleModule(argument_spec=dict(dest=dict(type="path", required=True), name=dict(type="str", required=True),
                                              hosts=dict(type="list", elements="str", required=True),
                                              reads=dict(type="dict", required=True),
                                              tails=dict(type="dict", required=True),
                                              reports=dict(type="list", elements="path", default=[]),
                                              redact_names=dict(type="bool", default=False),
                                              names=dict(type="list", elements="str", default=[])),
                           supports_check_mode=True)
    params = module.params
    texts, manifest = build(params["hosts"], params["reads"], params["tails"], params["reports"], params["names"],
                            params["redact_names"])
    path = os.path.join(params["dest"], params["name"] + ".tar.gz")
    if module.check_mode:
        module.exit_json(changed=True, path=path, manifest=manifest, summary=summary(path, manifest))
    try:
        os.makedirs(params["dest"], exist_ok=True)
        write_archive(path, params["name"], texts)
    except (IOError, OSError) as exc:
        module.fail_json(msg="could not write %s: %s" % (path, exc.strerror or exc), manifest=manifest)
    module.exit_json(changed=True, path=path, manifest=manifest, summary=summary(path, manifest))


if __name__ == "__main__":
    main()
