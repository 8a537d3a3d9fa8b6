"""system_profiler: SPHardwareDataType, SPSoftwareDataType, SPThunderboltDataType,
SPNetworkDataType, SPMemoryDataType, as text and as `-json`.

The JSON side is the reference: every text form here is rendered from the same dicts, so the
two cannot disagree. Confirmed shapes (MLX's `mlx/_distributed_utils/config.py` and exo's
`shared/types/thunderbolt.py` and `info_gatherer/system_info.py`, which read them, and published
captures from real Macs such as oMLX's `tests/test_cluster_topology.py`): the Thunderbolt and Hardware JSON keys, and a
non-Mac device (an external SSD) as a bus item without `domain_uuid_key`. Unconfirmed: the
Software, Network and Memory JSON keys and every text form except the Hardware lines exo and
ansible read (`Model Name:`, `Chip:`, ...).
"""
import json

IDLE_SPEED = "Up to 120 Gb/s"
RDMA_PROTOCOL_ID = 64087


def to_json(types):
    """system_profiler -json: `"key" : value`, two-space indent, keys sorted."""
    return json.dumps(types, indent=2, sort_keys=True, separators=(",", " : ")) + "\n"


# --- Hardware -------------------------------------------------------------------------------

def hardware_items(hw):
    memory_gb = hw["memory_bytes"] // (1024 ** 3)
    return [{
        "_name": "hardware_overview",
        "activation_lock_status": "activation_lock_disabled",
        "boot_rom_version": hw["boot_rom"],
        "chip_type": hw["chip"],
        "machine_model": hw["model_id"],
        "machine_name": hw["model_name"],
        "model_number": hw["model_number"],
        "number_processors": "proc {}:{}:{}".format(hw["cores_total"], hw["cores_perf"],
                                                    hw["cores_eff"]),
        "os_loader_version": hw["boot_rom"],
        "physical_memory": "{} GB".format(memory_gb),
        "platform_UUID": hw["platform_uuid"],
        "provisioning_UDID": hw["provisioning_udid"],
        "serial_number": hw["serial"],
    }]


def _cores_text(number_processors):
    """`Total Number of Cores:` from number_processors: `proc T:P:E` gives the split (macOS 26
    wording, capitalised); an integer (Intel, virtual Macs) or another layout is printed as the
    bare total (what a real Mac prints then is unconfirmed)."""
    if isinstance(number_processors, int):
        return str(number_processors)
    numbers = [int(n) for n in number_processors.split()[1].split(":")]
    if len(numbers) == 3:
        return "{} ({} Performance and {} Efficiency)".format(*numbers)
    return str(numbers[0])


def hardware_text(items):
    it = items[0]
    lines = [
        "Model Name: " + it["machine_name"],
        "Model Identifier: " + it["machine_model"],
        "Model Number: " + it["model_number"],
        "Chip: " + it["chip_type"],
        "Total Number of Cores: " + _cores_text(it["number_processors"]),
        "Memory: " + it["physical_memory"],
        "System Firmware Version: " + it["boot_rom_version"],
        "OS Loader Version: " + it["os_loader_version"],
        "Serial Number (system): " + it["serial_number"],
        "Hardware UUID: " + it["platform_UUID"],
        "Provisioning UDID: " + it["provisioning_UDID"],
        "Activation Lock Status: Disabled",
    ]
    return _section("Hardware", [("Hardware Overview", lines)])


# --- Software (format unconfirmed) ----------------------------------------------------------

def software_items(os_info, computer_name, local_host_name, user, uptime_seconds, boot_mode):
    days, rest = divmod(int(uptime_seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    return [{
        "_name": "os_overview",
        "boot_mode": "normal_boot" if boot_mode == "normal" else "recovery_boot",
        "boot_volume": "Macintosh HD",
        "kernel_version": "Darwin " + os_info["darwin"],
        "local_host_name": local_host_name,
        "computer_name": computer_name,
        # With a security response: "macOS 26.3.1 (a) (25D771280a)" (a real capture's System Version: line).
        "os_version": "macOS {} ({})".format(" ".join(p for p in (os_info["version"], os_info.get("extra")) if p),
                                             os_info["build"]),
        "secure_vm": "secure_vm_enabled",
        "system_integrity": "integrity_enabled",
        "uptime": "up {}:{}:{:02d}:{:02d}".format(days, hours, minutes, seconds),
        "user_name": user,
    }]


def software_text(items):
    it = items[0]
    days, hours, minutes, _ = it["uptime"].split()[1].split(":")
    since = []
    if int(days):
        since.append("{} day{}".format(int(days), "" if int(days) == 1 else "s"))
    if int(hours):
        since.append("{} hour{}".format(int(hours), "" if int(hours) == 1 else "s"))
    since.append("{} minute{}".format(int(minutes), "" if int(minutes) == 1 else "s"))
    lines = [
        "System Version: " + it["os_version"],
        "Kernel Version: " + it["kernel_version"],
        "Boot Volume: " + it["boot_volume"],
        "Boot Mode: " + ("Normal" if it["boot_mode"] == "normal_boot" else "Recovery"),
        "Computer Name: " + it["computer_name"],
        "User Name: " + it["user_name"],
        "Secure Virtual Memory: Enabled",
        "System Integrity Protection: Enabled",
        "Time since boot: " + ", ".join(since),
    ]
    return _section("Software", [("System Software Overview", lines)])


# --- Memory (format unconfirmed) ------------------------------------------------------------

def memory_items(hw):
    return [{"_name": "SPMemoryDataType",
             "SPMemoryDataType": "{} GB".format(hw["memory_bytes"] // (1024 ** 3)),
             "dimm_manufacturer": hw.get("memory_vendor", "Micron"),
             "dimm_type": hw.get("memory_type", "LPDDR5")}]


def memory_text(items):
    it = items[0]
    return ("Memory:\n\n      Memory: {}\n      Type: {}\n      Manufacturer: {}\n\n"
            .format(it["SPMemoryDataType"], it["dimm_type"], it["dimm_manufacturer"]))


# --- Network (format unconfirmed) -----------------------------------------------------------

def network_items(services):
    """services: dicts with name, device, hardware_port, enabled, method, addresses, masks,
    router, mac, order (the shim computes live addresses)."""
    items = []
    for svc in services:
        ipv4 = {"ConfigMethod": {"manual": "Manual", "dhcp": "DHCP"}.get(svc["method"], "Off"),
                "InterfaceName": svc["device"]}
        if svc["addresses"]:
            ipv4["Addresses"] = list(svc["addresses"])
            ipv4["SubnetMasks"] = list(svc["masks"])
        if svc.get("router"):
            ipv4["Router"] = svc["router"]
        item = {"_name": svc["name"], "hardware": svc["hardware_port"],
                "interface": svc["device"], "IPv4": ipv4,
                "spnetwork_service_order": svc["order"],
                "type": _network_type(svc), "Ethernet": {"MAC Address": svc["mac"]}}
        if svc["addresses"]:
            item["ip_address"] = list(svc["addresses"])
        items.append(item)
    return items


def _network_type(svc):
    if svc["device"] == "bridge0":
        return "Bridge"
    return "Ethernet"


def network_text(items):
    blocks = []
    for it in items:
        lines = ["Type: " + it["type"], "Hardware: " + it["hardware"],
                 "BSD Device Name: " + it["interface"]]
        if it.get("ip_address"):
            lines.append("IPv4 Addresses: " + ", ".join(it["ip_address"]))
        ipv4 = it["IPv4"]
        lines.append("IPv4:")
        if ipv4.get("Addresses"):
            lines.append("    Addresses: " + ", ".join(ipv4["Addresses"]))
        lines.append("    Configuration Method: " + ipv4["ConfigMethod"])
        lines.append("    Interface Name: " + ipv4["InterfaceName"])
        if ipv4.get("Router"):
            lines.append("    Router: " + ipv4["Router"])
        if ipv4.get("SubnetMasks"):
            lines.append("    Subnet Masks: " + ", ".join(ipv4["SubnetMasks"]))
        lines.append("Ethernet:")
        lines.append("    MAC Address: " + it["Ethernet"]["MAC Address"])
        blocks.append((it["_name"], lines))
    return _section("Network", blocks)


# --- Thunderbolt ----------------------------------------------------------------------------

# What owners plug in besides Macs: a Thunderbolt 5 external SSD. Keys and values as the real
# capture published in oMLX's tests/test_cluster_topology.py shows them (an OWC Envoy Ultra on a Mac Studio):
# `mode_key`, `receptacle_upstream_ambiguous_tag`, no `domain_uuid_key`; the UID is the lab's.
DEVICES = {
    "ssd": {"_name": "Envoy Ultra", "device_id_key": "0xDE7B", "device_name_key": "Envoy Ultra",
            "device_revision_key": "0x6", "mode_key": "usb_four_v2", "speed": "80 Gb/s",
            "switch_version_key": "56.56", "vendor_id_key": "0x1E91", "vendor_name_key": "Other World Computing"},
}
# The text labels of `mode_key` (unconfirmed).
_MODE_TEXT = {"usb_four_v2": "USB4 v2", "usb_four": "USB4", "thunderbolt_three": "Thunderbolt 3"}


def device_item(device):
    """The bus item of a non-Mac device: device is DEVICES[kind] plus `switch_uid`."""
    item = dict((k, v) for k, v in device.items() if k not in ("speed", "switch_uid"))
    item.update({"receptacle_upstream_ambiguous_tag": {
        "current_speed_key": device["speed"], "link_status_key": "0x2", "micro_version_key": "1.3.0",
        "receptacle_status_key": "receptacle_connected"},
        "route_string_key": "1", "switch_uid_key": device["switch_uid"]})
    return item


def thunderbolt_items(machine_name, buses):
    """buses: dicts with bus, receptacle, domain_uuid, switch_uid, `link` None (idle port)
    or {speed ("80 Gb/s"), peer_model_name, peer_model_id, peer_domain_uuid, ip_service_uuid,
    rdma_service_uuid (None unless this host has RDMA enabled)}, and `device` None or a
    DEVICES entry plus switch_uid (a drive on a port without a Mac).

    Confirmed (MLX's and exo's readers, published captures): keys, idle vs connected values, one
    bus per port, highest bus first, `_items[].domain_uuid_key` = the peer port's domain UUID; a
    drive is an item without one, its port connected at the drive's speed.
    """
    items = []
    for bus in sorted(buses, key=lambda b: b["bus"], reverse=True):
        link = bus["link"]
        tag = {"current_speed_key": IDLE_SPEED, "link_status_key": "0x100",
               "micro_version_key": "0.0.0", "receptacle_id_key": str(bus["receptacle"]),
               "receptacle_status_key": "receptacle_no_devices_connected"}
        item = {"_name": "thunderboltusb4_bus_{}".format(bus["bus"]),
                "device_name_key": machine_name, "domain_uuid_key": bus["domain_uuid"],
                "receptacle_1_tag": tag, "route_string_key": "0",
                "switch_uid_key": bus["switch_uid"], "vendor_name_key": "Apple Inc."}
        if link is not None:
            tag.update({"current_speed_key": link["speed"],
                        "link_status_key": "0x2",
                        "receptacle_status_key": "receptacle_connected"})
            services = [{"_name": "service_ip", "protocol_id_key": 1,
                         "service_uuid_key": link["ip_service_uuid"]}]
            if link.get("rdma_service_uuid"):
                services.append({"_name": "unknown_xd_service",
                                 "protocol_id_key": RDMA_PROTOCOL_ID,
                                 "service_uuid_key": link["rdma_service_uuid"]})
            item["_items"] = [{"_name": link["peer_model_name"], "device_id_key": "0xA",
                               "device_name_key": link["peer_model_id"],
                               "domain_uuid_key": link["peer_domain_uuid"],
                               "services_title": services, "vendor_id_key": "0x0A27",
                               "vendor_name_key": "Apple Inc."}]
        elif bus.get("device"):
            tag.update({"current_speed_key": bus["device"]["speed"], "link_status_key": "0x2",
                        "receptacle_status_key": "receptacle_connected"})
            item["_items"] = [device_item(bus["device"])]
        items.append(item)
    return items


def _device_text(item):
    """A non-Mac device's text block (labels unconfirmed, as for the Mac peers')."""
    upstream = item["receptacle_upstream_ambiguous_tag"]
    return [item["_name"] + ":",
            "  Vendor Name: " + item["vendor_name_key"],
            "  Device Name: " + item["device_name_key"],
            "  Mode: " + _MODE_TEXT.get(item["mode_key"], item["mode_key"]),
            "  Vendor ID: " + item["vendor_id_key"],
            "  Device ID: " + item["device_id_key"],
            "  Device Revision: " + item["device_revision_key"],
            "  UID: " + item["switch_uid_key"],
            "  Route String: " + item["route_string_key"],
            "  Firmware Version: " + item["switch_version_key"],
            "  Port (Upstream):",
            "    Status: Device connected",
            "    Link Status: " + upstream["link_status_key"],
            "    Speed: " + upstream["current_speed_key"],
            "    Link Controller Firmware Version: " + upstream["micro_version_key"]]


def thunderbolt_text(items):
    """Format partly confirmed (exo #1390: bus title, Domain UUID, Port block with Status,
    Speed and Receptacle, nested peer block); the remaining labels are unconfirmed."""
    blocks = []
    for it in items:
        tag = it["receptacle_1_tag"]
        connected = tag["receptacle_status_key"] == "receptacle_connected"
        lines = ["Vendor Name: " + it["vendor_name_key"],
                 "Device Name: " + it["device_name_key"],
                 "UID: " + it["switch_uid_key"],
                 "Route String: " + it["route_string_key"],
                 "Domain UUID: " + it["domain_uuid_key"],
                 "Port:",
                 "  Status: " + ("Device connected" if connected else "No device connected"),
                 "  Link Status: " + tag["link_status_key"],
                 "  Speed: " + tag["current_speed_key"],
                 "  Receptacle: " + tag["receptacle_id_key"]]
        for peer in it.get("_items", []):
            if "domain_uuid_key" not in peer:
                lines.extend(_device_text(peer))
                continue
            lines.append(peer["_name"] + ":")
            lines.append("  Vendor Name: " + peer["vendor_name_key"])
            lines.append("  Device Name: " + peer["device_name_key"])
            lines.append("  Vendor ID: " + peer["vendor_id_key"])
            lines.append("  Device ID: " + peer["device_id_key"])
            lines.append("  Domain UUID: " + peer["domain_uuid_key"])
            lines.append("  Services:")
            for svc in peer["services_title"]:
                if svc["protocol_id_key"] == RDMA_PROTOCOL_ID:
                    lines.append("    Service Key: rdma")
                else:
                    lines.append("    Service Key: " + svc["_name"])
                lines.append("      Protocol ID: {}".format(svc["protocol_id_key"]))
                lines.append("      Service UUID: " + svc["service_uuid_key"])
        bus_number = it["_name"].rsplit("_", 1)[1]
        blocks.append(("Thunderbolt/USB4 Bus " + bus_number, lines))
    return _section("Thunderbolt/USB4", blocks)


def _section(title, blocks):
    """system_profiler text layout: `Title:`, blank, 4-space block titles, 6-space fields."""
    out = [title + ":", ""]
    for block_title, lines in blocks:
        out.append("    {}:".format(block_title))
        out.append("")
        out.extend("      " + line for line in lines)
        out.append("")
    return "\n".join(out) + "\n"
