#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: macops.cluster contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: job_progress
short_description: Wait for an async task and show the progress it writes on the host
version_added: 0.1.0
description:
  - Takes the registered result of a task started with C(async) and C(poll=0), asks
    M(ansible.builtin.async_status) every O(interval) seconds whether the job has finished, and meanwhile shows
    one line per change of the job's progress file on the host (read with a plain C(cat), no module run), the
    host's name and then such as C(412.0 MB of 980.3 MB (42%), 19.8 MB/s, about 29 s left).
  - Returns the job's own result (its C(changed), C(failed), C(msg) and return values), so the task that registers
    it publishes the same result a task without async would have, and cleans the job's status file up.
  - A result without C(ansible_job_id) (the task ran to its end, as in check mode with C(async) 0) is returned as
    it is, with C(changed) false (that task counted its change).
  - A task started with C(async) reports a change on starting; give it C(changed_when) false when it started a
    job, so the change is counted once, here, from the job's own result.
  - The progress file is JSON with C(bytes_done), C(bytes_total), C(bytes_per_second) and C(file), as
    M(macops.cluster.model_shard) writes it.
author: macops.cluster team (@macops)
extends_documentation_fragment:
  - ansible.builtin.action_common_attributes
  - macops.cluster.attributes.action
attributes:
  check_mode:
    support: full
    details: In check mode the task it follows runs without async, so its result is returned at once.
  diff_mode:
    support: none
  platform:
    support: full
    platforms: posix
options:
  job:
    description: The registered result of the task started with C(async) and C(poll=0) (or of a task that ran to its end).
    type: dict
    required: true
  progress_file:
    description: The JSON progress file the job writes on the host; without it only the end is awaited.
    type: str
  interval:
    description: Seconds between two looks.
    type: float
    default: 5.0
  timeout:
    description: Seconds to wait before failing; set it at least to the task's C(async).
    type: int
    default: 14400
seealso:
  - module: ansible.builtin.async_status
  - module: macops.cluster.model_shard
"""

EXAMPLES = r"""
- name: Give each node exactly its files
  macops.cluster.model_shard:
    state: present
    dest: /Users/admin/models/DeepSeek-V3.1-4bit
    files: "{{ my_files }}"
    run_id: "{{ run_id }}"
  async: 14400
  poll: 0
  changed_when: false  # counted by job_progress, from the job's own result
  register: transfer_job

- name: Show each node's transfer while it runs
  macops.cluster.job_progress:
    job: "{{ transfer_job }}"
    progress_file: /Users/admin/models/DeepSeek-V3.1-4bit/.macops-progress.json
  register: transfer
"""

RETURN = r"""
changed:
  description: The job's own C(changed); false for a result without a job (its task counted it).
  returned: always
  type: bool
"""
