"""How MLX and exo read the Thunderbolt topology, shared by the unit and e2e tests of the shims.

MLX (`mlx._distributed_utils.config.extract_connectivity`): per bus with a domain_uuid_key,
iface = hardware port "Thunderbolt <receptacle_id_key>", connected_to = first
`_items[].domain_uuid_key`; a link exists when connected_to equals another host's bus UUID.
"""
import re


def parse_hardware_ports(text):
    """`networksetup -listallhardwareports` -> {hardware port name: device}."""
    ports, name = {}, None
    for line in text.splitlines():
        if line.startswith("Hardware Port: "):
            name = line.split(": ", 1)[1]
        elif line.startswith("Device: ") and name:
            ports[name] = line.split(": ", 1)[1]
    return ports


def links_by_mlx_rule(buses_by_host, ports_by_host):
    """buses_by_host: {host: SPThunderboltDataType list}; ports_by_host: {host: {port: device}}.
    Returns {((host, device), (host, device), speed)} with the two ends sorted; asserts that
    every link is seen from both ends with the same speed."""
    owner, connected_to, speed = {}, {}, {}
    for host, buses in buses_by_host.items():
        for bus in buses:
            if "domain_uuid_key" not in bus:
                continue
            port = "Thunderbolt " + bus["receptacle_1_tag"]["receptacle_id_key"]
            owner[bus["domain_uuid_key"]] = (host, ports_by_host[host][port])
            if bus.get("_items"):
                connected_to[bus["domain_uuid_key"]] = bus["_items"][0]["domain_uuid_key"]
                speed[bus["domain_uuid_key"]] = bus["receptacle_1_tag"]["current_speed_key"]
    links = set()
    for mine, theirs in connected_to.items():
        assert theirs in owner, "peer UUID %s is no host's bus" % theirs
        assert connected_to.get(theirs) == mine, "link %s seen from one end only" % (owner[mine],)
        assert speed[theirs] == speed[mine], "ends of %s disagree on speed" % (owner[mine],)
        links.add(tuple(sorted([owner[mine], owner[theirs]])) + (speed[mine],))
    return links


def expected_links(cables):
    """The same shape from lab.json's cables (cut ones carry no link)."""
    return {tuple(sorted([(c["a"], c["a_device"]), (c["b"], c["b_device"])])) + (c["speed"],)
            for c in cables if c.get("state") != "cut"}


def json_rows(buses):
    """Per bus, what the text form must also show: (bus number, domain UUID, speed, receptacle,
    peer domain UUID or None, RDMA service advertised)."""
    return [(int(b["_name"].rsplit("_", 1)[1]), b["domain_uuid_key"],
             b["receptacle_1_tag"]["current_speed_key"], b["receptacle_1_tag"]["receptacle_id_key"],
             b["_items"][0]["domain_uuid_key"] if b.get("_items") else None,
             any(s["protocol_id_key"] == 64087 for i in b.get("_items", []) for s in i["services_title"]))
            for b in buses]


def text_rows(text):
    """The same rows from `system_profiler SPThunderboltDataType` text."""
    rows = []
    for block in re.split(r"\n    Thunderbolt/USB4 Bus ", text)[1:]:
        number = int(block.split(":", 1)[0])
        uuids = re.findall(r"Domain UUID: (\S+)", block)
        rows.append((number, uuids[0], re.search(r"Speed: (.+)", block).group(1),
                     re.search(r"Receptacle: (\d+)", block).group(1),
                     uuids[1] if len(uuids) > 1 else None, "Service Key: rdma" in block))
    return rows
