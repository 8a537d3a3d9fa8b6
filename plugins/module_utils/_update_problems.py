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
        "softwareupdate offers a Mac only its latest builds. Ask for a version every node offers (the message lists "
        "what each offers), or wait until Apple offers it. Where Apple still signs the version, update-macos.yml "
        "brings the node there with Apple's full installer on its own (macos_update_full_installer, on by default): "
        "the message lists the full installers the node found; none of that version, or one of another build than "
        "the cluster's, leaves no way but a version every node is offered."),
    "macos_update_installer_needs_login": registry_entry(
        ERROR, "update",
        "A node that softwareupdate does not offer the asked version is brought there with Apple's full installer, "
        "and its startosinstall needs a user logged in at the Mac's screen (erase-install#33); nobody is (the login "
        "window). Nothing was changed.",
        "Log the owner in at that Mac's screen (at the Mac, or by Screen Sharing; automatic login also does), then "
        "run again; or set macos_update_full_installer to false and ask for a version every node is offered."),
    "macos_update_node_ahead": registry_entry(
        ERROR, "update",
        "A node runs a newer macOS than the cluster's target (a new or replaced Mac shipped with a newer build): "
        "softwareupdate installs no older macOS, and RDMA, JACCL and exo need one build on every node. Nothing was "
        "changed.",
        "Bring the others up to it (macos_update_version set to that node's version, once they are offered it), or "
        "erase that node and install the cluster's version with Apple's full installer while Apple still signs it "
        "(`softwareupdate --list-full-installers`; `softwareupdate --fetch-full-installer --full-installer-version "
        "VERSION`; the installer's startosinstall --eraseinstall at the Mac, then site.yml)."),
    "macos_update_major_not_asked": registry_entry(
        WARNING, "update",
        "A node offers a major macOS upgrade; update-macos.yml installs one only when macos_update_version names it.",
        "Set macos_update_version to the major version (such as 27) once the cluster's software supports it."),
    "macos_update_mdm_deferred": registry_entry(
        WARNING, "update",
        "An MDM defers updates on the node: softwareupdate offers an update only days after its release, so nodes "
        "managed otherwise are offered different builds, or none.",
        "Give every cluster node the same deferral (one group in the MDM), or wait until it has passed on every node; "
        "update-macos.yml installs only an update every node offers."),
    "macos_update_mdm_enforced": registry_entry(
        WARNING, "update",
        "Declarative device management enforces a macOS install on the node: macOS installs it and restarts the "
        "node at the declared time on its own, one node apart from the others.",
        "Enforce the same build on every cluster node at one time in the MDM (or leave the nodes out of that "
        "declaration), or install it on every node first with update-macos.yml (macos_update_version)."),
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
    "macos_update_password_unverified": registry_entry(
        WARNING, "update",
        "diskutil apfs unlockVolume -verify did not accept macos_update_owner_password on a node. The check's form "
        "is not confirmed on every macOS version, so the run goes on: a wrong password makes the canary's install "
        "fail to authenticate, and no other node installs.",
        "Put the owner's current password in the vault (or the AWX credential); if it is right, nothing to do."),
    "macos_update_filevault_unlock": registry_entry(
        ERROR, "update",
        "FileVault on a node would stop its update's restart at the unlock screen, with no SSH: FileVault is on "
        "and fdesetup supportsauthrestart says false, or FileVault turns on at the next restart. Nothing was "
        "changed.",
        "Turn FileVault off on that node (System Settings > Privacy & Security > FileVault), or finish turning it "
        "on (restart it once with someone at the Mac), then run again."),
    "macos_update_failed": registry_entry(
        ERROR, "update",
        "A node's install failed (softwareupdate's error line, or not on the target build after its restart). The "
        "nodes not yet updated were left untouched; what was served runs again where the builds still match.",
        "Read the message (softwareupdate's own error line), fix it on that node (a password, disk space, a "
        "restart) and run update-macos.yml again: nodes already on the target build are left alone."),
    "macos_update_stalled": registry_entry(
        ERROR, "update",
        "A node's download or install showed no progress for macos_update_stall_timeout seconds before its download "
        "finished (or never started), so update-macos.yml stopped it; the node still runs its old build.",
        "Check the node's network and softwareupdate (`softwareupdate --list` on it); restart it if softwareupdated "
        "hangs (from macOS 14.4 only a restart cures it), then run again."),
    "macos_update_settings_failed": registry_entry(
        ERROR, "update",
        "After the update, setting again what a macOS update can reset (power, the wired limit, the Thunderbolt "
        "network services, the pf anchor: site.yml's roles) failed on a node. Every node runs the new build.",
        "Read the message, fix what it names and run site.yml: it sets them all again."),
    "macos_update_restarted_by_deadline": registry_entry(
        WARNING, "update",
        "A node still answered on its old boot session macos_update_deadline seconds after its install printed "
        "Downloaded (an install at the login window can sit at a progress bar), so update-macos.yml restarted it; "
        "it booted the new build.",
        "Nothing to do if the node is on the target build; a longer macos_update_deadline waits more before "
        "restarting."),
    "macos_update_regression": registry_entry(
        ERROR, "update",
        "The served model answered the same timed completion (same prompt and tokens, the best of a few) more than "
        "macos_update_max_regression_percent slower after the update than before it: with only the canary on the "
        "new build the rollout stopped there and the other nodes were left untouched (a macOS update cannot be "
        "rolled back); compared after the last wave (over RDMA, where serving cannot run across two builds) there "
        "was nothing left to stop. Updates do regress clusters (exo #2166: 70 to 12 tokens/s; omlx #3670: 40 to 10).",
        "Compare the canary with the others (benchmark.yml's generate and links suites) and look for a fix upstream "
        "(MLX, exo) or Apple's next build. To go on regardless, run update-macos.yml again: with the nodes on two "
        "builds there is no old figure left to compare, so it updates the others (mlx-lm over the ring keeps serving "
        "across the two builds meanwhile; over RDMA serving stays stopped until every node runs one build)."),
}
