"""networksetup output and error texts.

Confirmed (MLX's `mlx.distributed_config` and exo's `info_gatherer` and
`tmp/set_rdma_network_config.sh`, which parse them, and a real M3 Ultra listing):
-listallhardwareports blocks and the VLAN trailer,
the asterisk header of -listallnetworkservices / -listnetworkserviceorder, `(*)` for disabled
services, Enabled/Disabled. The error wording "<name> is not a recognized network service."
followed by "** Error: The parameters were not valid." with exit 4 is the task's reference.
Unconfirmed: -getinfo layout, -getMTU wording, "found it!" of -switchtolocation, the
admin-privileges error text and exit code.
"""

DISABLED_HEADER = "An asterisk (*) denotes that a network service is disabled.\n"
BAD_PARAMETERS = "** Error: The parameters were not valid.\n"
EXIT_BAD_PARAMETERS = 4
# Text seen from networksetup run by a non-admin user; exit code unconfirmed.
NEEDS_ADMIN = "** Error: Command requires admin privileges.\n"
EXIT_NEEDS_ADMIN = 14


def hardware_ports(ports):
    """ports: [(hardware port name, device, mac)] in listing order."""
    out = [""]
    for name, device, mac in ports:
        out += ["Hardware Port: " + name, "Device: " + device, "Ethernet Address: " + mac, ""]
    out += ["VLAN Configurations", "==================="]
    return "\n".join(out) + "\n"


def service_names(services):
    """services: [(name, enabled)] in service order."""
    return DISABLED_HEADER + "".join(
        ("" if enabled else "*") + name + "\n" for name, enabled in services)


def service_order(services):
    """services: [(name, enabled, hardware port, device)] in service order."""
    out = DISABLED_HEADER
    for index, (name, enabled, port, device) in enumerate(services, 1):
        out += "({}) {}\n".format(index if enabled else "*", name)
        out += "(Hardware Port: {}, Device: {})\n\n".format(port, device)
    return out


def enabled_word(enabled):
    return "Enabled\n" if enabled else "Disabled\n"


def not_a_service(name):
    return "{} is not a recognized network service.\n".format(name) + BAD_PARAMETERS


def not_a_port(name):
    return "{} is not a recognized hardware port or device.\n".format(name) + BAD_PARAMETERS


def info(method, address, mask, router, mac):
    if method == "manual":
        out = ["Manual Configuration", "IP address: " + address, "Subnet mask: " + mask,
               "Router: " + (router or "(null)")]
    elif method == "dhcp":
        out = ["DHCP Configuration"]
        if address:
            out += ["IP address: " + address, "Subnet mask: " + mask]
        out += ["Client ID: "]
    else:
        out = []
    out += ["IPv6: Automatic", "IPv6 IP address: none", "IPv6 Router: none",
            "Ethernet Address: " + mac]
    return "\n".join(out) + "\n"


def mtu(active, configured):
    return "Active MTU: {} (Current Setting: {})\n".format(active, configured)


def locations(names):
    return "".join(n + "\n" for n in names)
