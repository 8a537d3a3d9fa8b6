"""The cable check (plugins/module_utils/_tb_link_probe.py) tb_network's verification runs, as node_facts' links group
runs it over the applied plan: each peer pinged over its own cable, the route's interface and the default route
judged, a missing or unreadable plan said."""
import json

from ansible_collections.macops.cluster.plugins.modules import node_facts

from fake_links import LINK, PING, PORTS, ROUTE, link_mac, ok
from module_harness import FakeMac, run_module

# The cable check tb_network's verification runs (_tb_link_probe), as node_facts' links group runs it over
# the applied plan: the plan file names the cables, the module pings each peer over its own cable.
PLAN_TEXT = json.dumps({"hosts": {
    "mac1": {"en4": {"ip": "198.19.0.5", "peer_ip": "198.19.0.6", "peer_host": "mac3"},
             "en3": {"ip": "198.19.0.1", "peer_ip": "198.19.0.2", "peer_host": "mac2"}},
    "mac2": {"en3": {"ip": "198.19.0.2", "peer_ip": "198.19.0.1", "peer_host": "mac1"}}}})


def plan_check(monkeypatch, capsys, mac, tmp_path, text=PLAN_TEXT, **options):
    """node_facts' links group over a plan file holding `text` (none when None); (result, calls)."""
    path = tmp_path / "thunderbolt-plan.json"
    if text is not None:
        path.write_text(text)
    links = dict({"plan_file": str(path), "host": "mac1"}, **options)
    return run_module(monkeypatch, capsys, node_facts.main, {"gather": ["links"], "links": links}, mac)


def check(monkeypatch, capsys, mac, tmp_path, **options):
    """The links group's result for mac1's cable to mac2 (mac3, the other end of en4, is down)."""
    result, _calls = plan_check(monkeypatch, capsys, mac, tmp_path, peers=["mac2"], **options)
    assert result.get("failed") is None and result["changed"] is False, result.get("msg")
    return result["links"]


def test_healthy_link(monkeypatch, capsys, tmp_path):
    result = check(monkeypatch, capsys, link_mac(), tmp_path)
    assert result["links"] == [dict(LINK, route_interface="en3", transmitted=2, received=2, ok=True)]
    assert result["default_route"] == {"interface": "en0", "gateway": "10.0.1.1"}
    assert result["problems"] == []


def test_interval_reaches_ping(monkeypatch, capsys, tmp_path):
    mac = FakeMac([(argv, result) for argv, result in link_mac().outputs.items() if argv[0] != PING]
                  + [([PING, "-c", "2", "-i", "0.2", "-t", "3", "198.19.0.2"], ok("ping/macos_two_replies.txt"))])
    result, calls = plan_check(monkeypatch, capsys, mac, tmp_path, peers=["mac2"], interval=0.2)
    assert result["links"]["links"][0]["ok"] is True
    assert [PING, "-c", "2", "-i", "0.2", "-t", "3", "198.19.0.2"] in calls


def test_silent_peer_names_port_and_peer(monkeypatch, capsys, tmp_path):
    result = check(monkeypatch, capsys, link_mac(ping=("ping/macos_no_reply.txt", 2)), tmp_path)
    assert [(p["code"], p["port"], p["peer"]) for p in result["problems"]] == [("tb_link_no_reply", "en3", "mac2")]
    assert "mac2 (198.19.0.2)" in result["problems"][0]["message"]


def test_peer_reached_over_another_port(monkeypatch, capsys, tmp_path):
    result = check(monkeypatch, capsys, link_mac(), tmp_path, plan_interface="en4")
    assert result["links"][0]["ok"] is False
    assert [p["code"] for p in result["problems"]] == ["tb_link_wrong_interface"]


def test_no_route_and_no_default_route(monkeypatch, capsys, tmp_path):
    mac = link_mac(peer_route=None, ping=("ping/macos_no_reply.txt", 2), default=(1, None))
    result = check(monkeypatch, capsys, mac, tmp_path)
    assert PORTS not in mac.calls  # the ports only matter for judging a default route
    assert result["default_route"] is None
    assert result["links"][0]["route_interface"] is None
    assert [p["code"] for p in result["problems"]] == ["tb_link_no_reply"]


def test_default_route_over_the_bridge(monkeypatch, capsys, tmp_path):
    result = check(monkeypatch, capsys, link_mac(default=(0, "route/default_bridge0.txt")), tmp_path)
    assert [(p["code"], p["port"]) for p in result["problems"]] == [("tb_default_route_over_thunderbolt", "bridge0")]


def test_plan_links_of_this_host_up_peers_only(monkeypatch, capsys, tmp_path):
    # mac3 is down: its cable is counted in planned_links, not pinged.
    result, calls = plan_check(monkeypatch, capsys, link_mac(), tmp_path, peers=["mac2"])
    assert result["links"]["plan_found"] is True and result["links"]["planned_links"] == 2
    assert result["links"]["links"] == [dict(LINK, route_interface="en3", transmitted=2, received=2, ok=True)]
    assert result["links"]["problems"] == []
    assert [PING, "-c", "2", "-t", "3", "198.19.0.6"] not in calls


def test_plan_links_through_the_kept_bridge(monkeypatch, capsys, tmp_path):
    result = check(monkeypatch, capsys, link_mac(), tmp_path, plan_interface="bridge0")
    assert result["links"][0]["interface"] == "bridge0"
    assert [p["code"] for p in result["problems"]] == ["tb_link_wrong_interface"]


NO_DEFAULT_ROUTE = ([ROUTE, "-n", "get", "default"], (1, "", "route: writing to routing socket: not in table\n"))


def test_missing_plan_pings_nothing(monkeypatch, capsys, tmp_path):
    result, calls = plan_check(monkeypatch, capsys, FakeMac([NO_DEFAULT_ROUTE]), tmp_path, text=None)
    links = result["links"]
    assert (links["plan_found"], links["planned_links"], links["links"], links["problems"]) == (False, 0, [], [])
    assert links["default_route"] is None and calls == [NO_DEFAULT_ROUTE[0]]


def test_host_without_cables_in_the_plan_pings_nothing(monkeypatch, capsys, tmp_path):
    result, calls = plan_check(monkeypatch, capsys, FakeMac([NO_DEFAULT_ROUTE]), tmp_path, host="mac9")
    assert (result["links"]["plan_found"], result["links"]["planned_links"], result["links"]["links"]) == (True, 0, [])
    assert calls == [NO_DEFAULT_ROUTE[0]]


def test_plan_that_is_not_a_plan_fails(monkeypatch, capsys, tmp_path):
    result, _calls = plan_check(monkeypatch, capsys, FakeMac([]), tmp_path, text="{not json")
    assert result["failed"] is True and "is not a Thunderbolt address plan" in result["msg"]


def test_unreadable_plan_fails(monkeypatch, capsys, tmp_path):
    result, _calls = run_module(monkeypatch, capsys, node_facts.main,
                                {"gather": ["links"], "links": {"plan_file": str(tmp_path), "host": "mac1"}}, FakeMac([]))
    assert result["failed"] is True and "Cannot read the Thunderbolt plan" in result["msg"]
