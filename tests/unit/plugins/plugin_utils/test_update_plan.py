"""update-macos.yml's plan (plugins/plugin_utils/_update_plan.py): one build for every node or a refusal naming
the nodes, a node offered nothing refused, disk, FileVault and the owner checked on each node that installs (a password
diskutil does not verify only warned of: the canary is the check), waves per strategy; nothing connects."""
import pytest

from ansible_collections.macops.cluster.plugins.plugin_utils._update_plan import update_plan, waves

from update_cluster import HOSTS, OWNER, RING, SETTINGS, cluster, node, offer, owners


def codes(plan):
    return [(p["code"], p["host"]) for p in plan["problems"]]


def test_every_node_offering_the_same_build_is_planned_canary_first():
    plan = update_plan(cluster(), owners(), SETTINGS)
    assert codes(plan) == [] and plan["target"]["label"] == "macOS Tahoe 26.3-25D60"
    assert plan["waves"] == [["mac1"], ["mac2", "mac3", "mac4"]]
    assert plan["nodes"]["mac2"] == {"from_version": "26.2", "from_build": "25C56", "install": True,
                                     "filevault": False, "says": "mac2: macOS 26.2 (25C56) -> 26.3 (25D60), wave 2 of 2.",
                                     "method": "softwareupdate", "label": "macOS Tahoe 26.3-25D60",
                                     "installer_version": None, "installer_app": None}


def test_nodes_already_on_the_build_install_nothing_and_a_second_run_plans_nothing():
    plan = update_plan(cluster(mac1=node(version="26.3", build="25D60")), owners(), SETTINGS)
    assert plan["waves"] == [["mac2"], ["mac3", "mac4"]] and not plan["nodes"]["mac1"]["install"]
    assert plan["nodes"]["mac1"]["says"] == "mac1: macOS 26.3 (25D60) already, the target: nothing to install."
    done = dict((host, node(version="26.3", build="25D60")) for host in HOSTS)
    assert update_plan(done, owners(), SETTINGS)["waves"] == []
    assert update_plan(done, owners(), dict(SETTINGS, version="26.3"))["problems"] == []


def test_a_node_offered_another_build_refuses_the_whole_plan():
    plan = update_plan(cluster(mac3=node([offer("26.3", "25D72")])), owners(), SETTINGS)
    [found] = plan["problems"]
    assert found["code"] == "macos_update_label_mismatch" and plan["waves"] == [] and plan["target"] is None
    assert "mac3: macOS Tahoe 26.3-25D72" in found["message"] and "mac1: macOS Tahoe 26.3-25D60" in found["message"]


def test_a_version_asked_for_must_be_offered_and_a_major_upgrade_needs_asking():
    major = offer("27", "26A428", title="macOS 27")
    nodes = cluster(mac2=node([major, offer("26.3", "25D60")]))
    plan = update_plan(nodes, owners(), SETTINGS)
    assert codes(plan) == [("macos_update_major_not_asked", "mac2")] and plan["target"]["version"] == "26.3"
    asked = update_plan(nodes, owners(), dict(SETTINGS, version="27"))
    assert [c for c, h in codes(asked)] == ["macos_update_not_offered"] * 3  # only mac2 offers 27


def test_disk_and_the_owner_are_checked_on_each_node_that_installs():
    plan = update_plan(cluster(mac2=node([offer("26.3", "25D60")], free_gb=10)),
                       owners(mac3=dict(OWNER, volume_owner=False), mac4=dict(OWNER, password_ok=False)), SETTINGS)
    assert codes(plan) == [("macos_update_disk_short", "mac2"), ("macos_update_owner_invalid", "mac3"),
                           ("macos_update_password_unverified", "mac4")]
    assert [p["severity"] for p in plan["problems"]] == ["error", "error", "warning"]
    assert "mac2 has 10.0 GB free; macOS Tahoe 26.3-25D60 needs about 19.0 GB" in plan["problems"][0]["message"]


@pytest.mark.parametrize("strategy, canary, expected", [
    ("canary_parallel", "mac3", [["mac3"], ["mac1", "mac2", "mac4"]]),
    ("rolling", "", [["mac1"], ["mac2"], ["mac3"], ["mac4"]]),
    ("parallel", "mac3", [HOSTS]),
])
def test_waves_per_strategy(strategy, canary, expected):
    assert waves(HOSTS, strategy, canary) == expected
    assert waves(["mac2"], strategy, canary) == [["mac2"]] and waves([], strategy, canary) == []


def test_a_node_offered_nothing_or_not_the_target_is_refused():
    plan = update_plan(cluster(mac4=node([])), owners(), SETTINGS)
    assert codes(plan) == [("macos_update_not_offered", "mac4")] and plan["target"]["build"] == "25D60"
    assert "mac4 runs macOS 26.2 (25C56) and does not offer macOS Tahoe 26.3-25D60 (it offers no macOS update)" in (
        plan["problems"][0]["message"])


def test_a_new_mac_on_a_newer_build_than_the_target_is_named_with_the_way_to_one_build():
    """Issue 48: a replaced Mac shipped with 26.4 while the cluster goes to 26.3: softwareupdate cannot go back, so the
    plan names it (with or without macos_update_version) and the fix names both ways (the others up, or the full
    installer of the cluster's version); it does not read as a node merely not offered the update."""
    ahead = node([], version="26.4", build="25E56")
    for settings in (SETTINGS, dict(SETTINGS, version="26.3")):
        plan = update_plan(cluster(mac4=ahead), owners(), settings)
        assert codes(plan) == [("macos_update_node_ahead", "mac4")], plan["problems"]
        assert "mac4 runs macOS 26.4 (25E56), newer than the target 26.3" in plan["problems"][0]["message"]
        assert "--fetch-full-installer" in plan["problems"][0]["fix"] and "macos_update_version" in (
            plan["problems"][0]["fix"])
    # Behind, offered only a newer build than the one asked for: not offered, and the full installer is the way.
    behind = update_plan(cluster(mac4=node([offer("26.4", "25E56")])), owners(), dict(SETTINGS, version="26.3"))
    assert codes(behind) == [("macos_update_not_offered", "mac4")] and "full installer" in (
        behind["problems"][0]["fix"])


def installers(*entries, console="admin"):
    """node_facts' installers: Apple's full installers listed, who is at the screen."""
    return {"offered": [{"title": "macOS Tahoe", "version": version, "build": build, "size_bytes": 18 * 10 ** 9,
                         "deferred": deferred, "beta": False} for version, build, deferred in entries],
            "console_user": console}


def behind_with(listed, free_gb=200):
    """mac4 on 26.2, offered only 26.4 by softwareupdate, listing `listed` full installers; 26.3 asked."""
    mac4 = dict(node([offer("26.4", "25E56")], free_gb=free_gb), installers=listed)
    return update_plan(cluster(mac4=mac4), owners(), dict(SETTINGS, version="26.3"))


def test_a_mac_not_offered_the_asked_build_is_brought_there_with_apple_s_full_installer():
    """Issue 48: a Mac that softwareupdate offers only a newer build installs the cluster's with the full installer
    Apple still signs (listed, not deferred, the cluster's build), fetched first and installed in place, in its wave."""
    plan = behind_with(installers(("26.4", "25E56", False), ("26.3", "25D60", False)))
    assert codes(plan) == [] and plan["waves"] == [["mac1"], ["mac2", "mac3", "mac4"]]
    mac4 = plan["nodes"]["mac4"]
    assert (mac4["method"], mac4["label"], mac4["installer_version"], mac4["installer_app"]) == (
        "installer", "Install macOS Tahoe 26.3-25D60", "26.3", "/Applications/Install macOS Tahoe.app")
    assert mac4["says"] == ("mac4: macOS 26.2 (25C56) -> 26.3 (25D60) with Apple's full installer (softwareupdate "
                            "does not offer it; fetched first, installed in place), wave 2 of 2.")
    assert plan["nodes"]["mac2"]["method"] == "softwareupdate" and plan["target"]["label"] == "macOS Tahoe 26.3-25D60"
    # The full installer's size, not the update's, is what its disk must hold.
    short = behind_with(installers(("26.3", "25D60", False)), free_gb=30)
    assert codes(short) == [("macos_update_disk_short", "mac4")] and "18.0 GB to download" in (
        short["problems"][0]["message"])


@pytest.mark.parametrize("listed, code, words", [
    # Nobody at the screen: startosinstall would refuse; refused before anything changes.
    (installers(("26.3", "25D60", False), console=None), "macos_update_installer_needs_login",
     "startosinstall needs a user logged in"),
    # Apple lists it deferred (erase-install leaves those out), or not at all: no way there.
    (installers(("26.3", "25D60", True)), "macos_update_not_offered", "full installers it lists: 26.3 (25D60), deferred"),
    (installers(), "macos_update_not_offered", "full installers it lists: none"),
    # The listing failed (no network to Apple): said in the refusal, the read itself did not fail.
    (dict(installers(), error="softwareupdate --list-full-installers failed with exit status 1: Can't connect"),
     "macos_update_not_offered", "full installers it lists: softwareupdate --list-full-installers failed"),
    # Another build of the version than the one the others are offered: it would split the cluster's build.
    (installers(("26.3", "25D61", False)), "macos_update_not_offered", "is build 25D61, not the cluster's 25D60"),
])
def test_a_full_installer_that_cannot_bring_the_mac_there_is_refused_naming_why(listed, code, words):
    plan = behind_with(listed)
    assert codes(plan) == [(code, "mac4")] and words in plan["problems"][0]["message"], plan["problems"]


def test_with_nobody_offered_the_version_the_installer_brings_the_mac_to_the_build_the_others_run():
    """The others run 26.3 already (softwareupdate offers them nothing older): the target is their build."""
    done = dict((host, node(version="26.3", build="25D60")) for host in HOSTS[:3])
    done["mac4"] = dict(node([offer("26.4", "25E56")]), installers=installers(("26.3", "25D60", False)))
    plan = update_plan(done, owners(), dict(SETTINGS, version="26.3"))
    assert codes(plan) == [] and plan["waves"] == [["mac4"]] and plan["target"]["build"] == "25D60"
    assert plan["nodes"]["mac4"]["method"] == "installer" and not plan["nodes"]["mac1"]["install"]


@pytest.mark.parametrize("filevault, refused", [
    ({"on": True, "state": "on", "status": "FileVault is On.", "supports_authrestart": True}, False),
    ({"on": True, "state": "on", "status": "FileVault is On.", "supports_authrestart": False}, True),
    ({"on": True, "state": "pending", "supports_authrestart": False,
      "status": "FileVault is Off, but will be enabled after the next restart."}, True),
    ({"on": False, "state": "off", "status": "FileVault is Off.", "supports_authrestart": None}, False),
])
def test_fileVault_needs_an_authenticated_restart_the_node_supports(filevault, refused):
    mac2 = dict(node([offer("26.3", "25D60")]), filevault=filevault)
    plan = update_plan(cluster(mac2=mac2), owners(), SETTINGS)
    assert codes(plan) == ([("macos_update_filevault_unlock", "mac2")] if refused else [])
    assert plan["nodes"]["mac2"]["filevault"] is filevault["on"]


def bsi(release="26.3.1", letter="(a)", build="25D771280a"):
    """softwareupdate's listing of a Background Security Improvement, as parse_list reads it."""
    title = "macOS Background Security Improvement %s" % letter
    return {"label": "%s-%s" % (title, build), "title": title, "version": release, "version_extra": letter,
            "build": build, "size_bytes": 208896 * 1024, "recommended": True, "restart": True}


def test_a_security_response_is_the_newest_minor_update_and_is_planned_by_its_release_and_build():
    """Issue 48: a node on 26.3.1 offered the Background Security Improvement (a) installs it like any minor update;
    the plan names its release 26.3.1 (a) and its own build, and it can be asked for by that release."""
    nodes = dict((host, node([bsi()], version="26.3.1", build="25D2128")) for host in HOSTS)
    plan = update_plan(nodes, owners(), SETTINGS)
    assert codes(plan) == [] and plan["target"]["version"] == "26.3.1 (a)" and plan["target"]["build"] == "25D771280a"
    assert plan["nodes"]["mac2"]["says"] == "mac2: macOS 26.3.1 (25D2128) -> 26.3.1 (a) (25D771280a), wave 2 of 2."
    asked = update_plan(nodes, owners(), dict(SETTINGS, version="26.3.1 (a)"))
    assert codes(asked) == [] and asked["target"]["label"] == "macOS Background Security Improvement (a)-25D771280a"
    # A node carrying it already is on the target and says so by its release; a minor release sorts after it.
    done = dict(nodes, mac1={"macos": {"version": "26.3.1", "extra": "(a)", "build": "25D771280a"}, "updates": [],
                             "volumes": nodes["mac1"]["volumes"]})
    plan = update_plan(done, owners(), SETTINGS)
    assert not plan["nodes"]["mac1"]["install"] and plan["nodes"]["mac1"]["from_version"] == "26.3.1 (a)"
    newer = dict((host, node([bsi(), offer("26.4", "25E50")], version="26.3.1", build="25D2128")) for host in HOSTS)
    assert update_plan(newer, owners(), SETTINGS)["target"]["version"] == "26.4"
    refused = update_plan(nodes, owners(), dict(SETTINGS, version="26.3.1 (b)"))
    assert ("macos_update_not_offered", "mac1") in codes(refused)


def managed(deferred=None, enforced=()):
    return {"enrolled": True, "dep": True, "user_approved": True, "server": "https://mdm.example.com/mdm",
            "deferred_days": dict({"minor": None, "major": None, "other": None}, **(deferred or {})),
            "enforced": list(enforced)}


def test_an_mdm_deferral_is_named_with_its_days_where_it_holds_offers_back():
    """mac4's MDM defers minor updates 14 days: it offers nothing yet. The plan says why beside the refusal."""
    held = dict(node(), managed=managed(deferred={"minor": 14}))
    plan = update_plan(cluster(mac4=held), owners(), dict(SETTINGS, version="26.3"))
    assert codes(plan) == [("macos_update_not_offered", "mac4"), ("macos_update_mdm_deferred", "mac4")]
    deferred = plan["problems"][1]
    assert deferred["severity"] == "warning" and deferred["details"] == {"deferred_days": {"minor": 14}}
    assert deferred["message"].startswith("mac4: https://mdm.example.com/mdm defers minor updates by 14 days")
    # Not enrolled, or enrolled without a deferral: nothing to say.
    quiet = dict(node([offer("26.3", "25D60")]), managed=dict(managed(), enrolled=False))
    assert codes(update_plan(cluster(mac2=quiet), owners(), SETTINGS)) == []


def test_an_install_ddm_enforces_apart_from_the_run_s_target_is_named_and_the_same_one_is_not():
    enforced = {"version": "26.4", "build": None, "at": "2026-12-10T02:00:00", "details_url": None}
    forced = dict(node([offer("26.3", "25D60")]), managed=managed(enforced=[enforced]))
    plan = update_plan(cluster(mac2=forced), owners(), SETTINGS)
    assert codes(plan) == [("macos_update_mdm_enforced", "mac2")]
    assert "enforces macOS 26.4 by 2026-12-10T02:00:00" in plan["problems"][0]["message"]
    assert plan["waves"] == [["mac1"], ["mac2", "mac3", "mac4"]]  # a warning: the run goes on
    same = dict(node([offer("26.3", "25D60")]), managed=managed(enforced=[dict(enforced, version="26.3")]))
    assert codes(update_plan(cluster(mac2=same), owners(), SETTINGS)) == []
    # Nothing offered anywhere: an enforced install is still named.
    idle = dict((h, node()) for h in HOSTS)
    idle["mac3"] = dict(node(), managed=managed(enforced=[enforced]))
    assert codes(update_plan(idle, owners(), SETTINGS)) == [("macos_update_mdm_enforced", "mac3")]


SERVED = {"backend": "ring", "runtime": "mlx-lm"}


def says(plan):
    return dict((host, node["says"].split(". ", 1)[1] if ". " in node["says"] else "") for host, node in plan["nodes"].items())


def test_check_mode_says_when_serving_stops_and_is_back_and_what_the_canary_s_figure_decides():
    """Each node's line (what --check prints) says what the served model does around its wave."""
    served = dict(SETTINGS, serving=SERVED, max_regression_percent=10)
    ring = says(update_plan(cluster(), owners(), served))
    assert ring["mac1"] == ("Serving stops for this wave's restart and is back after it. Its served figure is compared "
                            "with the one before: more than 10 % slower stops the rollout here.")
    assert ring["mac3"] == "Serving stops for this wave's restart and is back after it."
    rdma = says(update_plan(cluster(), owners(), dict(served, serving=dict(SERVED, backend="jaccl"))))
    assert rdma["mac1"] == ("Serving stops for this wave's restart and is back after wave 2 (jaccl is RDMA, which "
                            "needs one macOS build on every node).")
    assert rdma["mac2"] == "Serving stays stopped from wave 1 until wave 2 is back."
    whole = says(update_plan(cluster(), owners(), dict(served, prepare_first=False, strategy="parallel")))
    assert set(whole.values()) == {"Serving stops for this wave's download, preparation and restart and is back after it."}
    assert set(says(update_plan(cluster(), owners(), SETTINGS)).values()) == {""}  # nothing served: nothing said


def test_the_plan_names_the_canary_and_when_its_figure_is_compared():
    plan = update_plan(cluster(), owners(), dict(SETTINGS, serving=RING, max_regression_percent=10))
    assert plan["canary"] == {"host": "mac1", "between_waves": True, "compare": "canary", "max_regression_percent": 10.0,
                              "why": plan["canary"]["why"], "reason": "mlx-lm over ring runs over TCP across two builds"}
    rdma = update_plan(cluster(), owners(), dict(SETTINGS, serving=dict(RING, backend="jaccl"), max_regression_percent=10))
    assert (rdma["canary"]["host"], rdma["canary"]["compare"], rdma["canary"]["between_waves"]) == ("mac1", "after",
                                                                                                   False)
    assert update_plan(cluster(), owners(), dict(SETTINGS, serving=RING, max_regression_percent=0))["canary"][
        "compare"] is None
    assert update_plan(cluster(), owners(), dict(SETTINGS, serving=None))["canary"]["compare"] is None
    # Nodes already on different builds (a run after a regression stopped the rollout): no figure is the old
    # build's, so nothing is compared (macos_update_max_regression_percent 0 says the same, on purpose).
    split = update_plan(cluster(mac1=node(version="26.2.1", build="25C60")), owners(),
                        dict(SETTINGS, serving=RING, max_regression_percent=10))
    assert split["canary"]["compare"] is None
    together = update_plan(cluster(), owners(), dict(SETTINGS, strategy="parallel", serving=RING,
                                                     max_regression_percent=10))["canary"]
    assert (together["host"], together["compare"]) == (None, "after")
