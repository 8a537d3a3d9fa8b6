# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the problem codes of serving (serve-model.yml, roles/serve), part of the one
# registry (_problems.py REGISTRY). Stdlib only, Python 3.9.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problem_codes import ERROR, registry_entry

SERVE_CODES = {
    "serve_model_unknown": registry_entry(
        ERROR, "serve",
        "serve_model_name names no model deploy-model.yml deployed on the cluster, or nothing is deployed yet.",
        "Deploy it first (deploy-model.yml), or set serve_model_name to a deployed name (the message lists them)."),
    "serve_model_incomplete": registry_entry(
        ERROR, "serve",
        "A rank's node lacks its part of the model: no copy, files missing or cut short (its deployment record, "
        ".macops-model.json, lists what it should hold). Nothing was stopped or started.",
        "Run deploy-model.yml again with the same source and name: it sends only what is missing."),
    "serve_split_mismatch": registry_entry(
        ERROR, "serve",
        "The nodes' deployment records do not make one model in the backend's rank order: parts of two "
        "deployments, layers missing or held twice, or the cabling (the hostfile's rank order) changed since the "
        "deployment. Nothing was stopped or started.",
        "Run deploy-model.yml again for the model on the cluster as it is cabled now, then serve-model.yml."),
    "serve_backend_unavailable": registry_entry(
        ERROR, "serve",
        "The MLX backend asked (serve_backend) has no hostfile on every node: site.yml writes a backend's hostfile "
        "only where the cabling and RDMA allow it (jaccl: a full mesh with RDMA ready on every cable).",
        "Run doctor.yml to see why the backend is not available, fix that and run site.yml; or serve over another "
        "backend (serve_backend: ring, or auto)."),
    "serve_runtime_mismatch": registry_entry(
        ERROR, "serve",
        "serve_runtime names another runtime than the one the model was deployed for: mlx-lm's pipeline ranks hold "
        "only their own files, exo needs a complete copy on every node. Nothing was stopped or started.",
        "Leave serve_runtime empty (the deployment's runtime), or deploy the model again for that runtime "
        "(deploy-model.yml with deploy_model_runtime)."),
    "serve_port_in_use": registry_entry(
        ERROR, "serve",
        "Another program listens on a TCP port serving needs on a node (the endpoint, the supervisors' control port, "
        "rank 0's own server or MLX's ports between the ranks), so a rank or the endpoint could not start. Nothing was "
        "stopped or started.",
        "Stop that program (the message names it and its pid; sudo lsof -nP -iTCP:PORT -sTCP:LISTEN shows it), or "
        "move serving to free ports (serve_port, serve_control_port, serve_internal_port, serve_mlx_port)."),
    "serve_memory_short": registry_entry(
        ERROR, "serve",
        "A rank that would start does not fit on its node: its weights plus serve_memory_headroom_percent are more "
        "than the memory free beside what already runs there (an exo instance, another model, other programs), or "
        "more than the GPU may wire (iogpu.wired_limit_mb). Nothing was stopped or started.",
        "Free memory on that node (delete exo's instance through its API or stop exo, stop the other program), "
        "raise the wired limit with the gpu_memory role, or deploy the model over more nodes (deploy-model.yml) so "
        "each rank holds less."),
    "serve_rank_stopped": registry_entry(
        ERROR, "serve",
        "A node that serve-model.yml gave a rank has no serving job loaded (booted out, or launchd gave up on it): its "
        "rank does not run, so the model cannot answer.",
        "Run serve-model.yml (serve_state=restarted starts every rank together), or on that node sudo launchctl "
        "bootstrap system /Library/LaunchDaemons/org.macops.serve.plist."),
    "serve_hung": registry_entry(
        ERROR, "serve",
        "The endpoint took a request but gave no one-token completion in time: a rank is hung, every process alive "
        "and a collective waiting forever (mlx #4475, mlx-lm #1493), which process checks and mlx-lm's /health "
        "miss.",
        "The supervisor restarts every rank once nothing has moved for serve_stall_timeout (no generation step, no "
        "byte of any answer); if it persists, run serve-model.yml with serve_state=restarted and read each rank's "
        "serve_log_dir/rank.log; on JACCL, reboot (reboot-cluster.yml)."),
    "serve_unreachable": registry_entry(
        ERROR, "serve",
        "The controller could not connect to the served endpoint at all (refused, no route, or a connect that timed "
        "out): no server saw the request, so this is not a hung or busy model. The serving firewall admits "
        "serve_allowed_networks (empty: firewall_management_networks) and the address of the controller that last "
        "ran serve-model.yml; a controller elsewhere (AWX, CI, a laptop on another subnet) is blocked.",
        "Add the controller's network to serve_allowed_networks (or firewall_management_networks) and run "
        "serve-model.yml from it; if the address is allowed, check that rank 0's node is up (doctor.yml) and that "
        "the endpoint's address is the node's management address."),
    "serve_not_ready": registry_entry(
        ERROR, "serve",
        "The endpoint gave no one-token completion within serve_ready_timeout, or the supervisor stopped every rank "
        "after serve_restart_limit failed generations in a row (its status says the last failure), or the model "
        "answered its first completion and then failed the timed one right after it (it did not stay up).",
        "Read the supervisor's log on rank 0 (serve_log_dir/serve.log) and each rank's log (serve_log_dir/rank.log); "
        "after fixing the cause, run serve-model.yml with serve_state=restarted (on JACCL, reboot first: each "
        "failed start leaks an RDMA protection domain)."),
}
