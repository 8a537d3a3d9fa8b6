# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the problem codes of macOS updates (update-macos.yml, roles/macos_update), part of the
# one registry (_problems.py REGISTRY). Stdlib only, Python 3.9.
from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.macops.cluster.plugins.module_utils._problem_codes import ERROR, WARNING, registry_entry

UPDATE_CODES = {
    "macos_update_label_mismatch": registry_entry(
        ERROR, "update",
        "The nodes do not offer the same macOS update (the label names the build): a staged rollout reached some "
        "nodes first, or a newer build came out meanwhile. Updating them would split the cluster's build, which "
        "RDMA, JACCL and exo need identical. Nothing was changed.",
        "Run update-macos.yml again later, when every node offers the same build; or name the version every node "
        "offers (macos_update_version)."),
    "macos_update_not_offered": registry_entry(
        ERROR, "update",
        "A node does not offer the macOS version asked for (macos_update_version), and does not run it yet. "
        "Nothing was changed.",
        "Ask for a version every node offers (the message lists what each offers), or wait until Apple offers it."),
    "macos_update_major_not_asked": registry_entry(
        WARNING, "update",
        "A node offers a major macOS upgrade; update-macos.yml installs one only when macos_update_version names it.",
        "Set macos_update_version to the major version (such as 27) once the cluster's software supports it."),
    "macos_update_disk_short": registry_entry(
        ERROR, "update",
        "A node has less free disk than the update needs (its size plus macos_update_free_margin_gb to prepare "
        "it). Nothing was changed.",
        "Free disk on that node (models under macops_models_dir are the big files: undeploy one), then run again."),
    "macos_update_owner_invalid": registry_entry(
        ERROR, "update",
        "The account given as macos_update_owner is not a volume owner on a node (its GeneratedUID is not among "
        "`diskutil apfs listUsers /`'s owners), or has no account there: on Apple silicon only a volume owner's "
        "password lets softwareupdate install. Nothing was changed.",
        "Name an administrator that owns the volume on every node (the first account made on a Mac does), or "
        "give that account a secure token and volume ownership."),
    "macos_update_password_wrong": registry_entry(
        ERROR, "update",
        "macos_update_owner_password is not the owner's password on a node (diskutil apfs unlockVolume -verify "
        "refused it). Nothing was changed.",
        "Put the owner's current password in the vault (or the AWX credential) and run again."),
    "macos_update_failed": registry_entry(
        ERROR, "update",
        "A node's install failed (softwareupdate's error line, or not on the target build after its restart). The "
        "nodes not yet updated were left untouched; what was served runs again where the builds still match.",
        "Read the message (softwareupdate's own error line), fix it on that node (a password, disk space, a "
        "restart) and run update-macos.yml again: nodes already on the target build are left alone."),
    "macos_update_restarted_by_deadline": registry_entry(
        WARNING, "update",
        "A node's install did not restart within macos_update_deadline (an install at the login window can sit at "
        "a progress bar), so update-macos.yml restarted it; it booted the new build.",
        "Nothing to do if the node is on the target build; a longer macos_update_deadline waits more before "
        "restarting."),
}
