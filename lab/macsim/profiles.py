"""Hardware profiles: the machines the lab can impersonate.

Add a profile by adding an entry to PROFILES (see lab/README.md, "Adding a hardware profile").
`tb_ports` lists the Thunderbolt receptacles in receptacle order with the BSD device macOS gives
each; `rdma_avoid` lists receptacles the port assignment uses only when nothing else is free.
"""

GIB = 1024 ** 3


def _studio(memory_gb, disk_tb, model_number):
    return {
        "model_id": "Mac15,14",
        "model_name": "Mac Studio",
        "chip": "Apple M3 Ultra",
        "model_number": model_number,
        "cores_perf": 24,
        "cores_eff": 8,
        "memory_bytes": memory_gb * GIB,
        "disk_bytes": disk_tb * 1000 ** 4,
        "boot_rom": "13822.61.10",
        "management_port": {"name": "Ethernet", "device": "en0"},
        "other_ports": [{"name": "Wi-Fi", "device": "en1"}],
        # Confirmed by a real M3 Ultra capture: bus_0..5 = receptacle 1..6 = en2..en7.
        "tb_ports": [{"receptacle": r, "device": "en%d" % (r + 1), "tb5": True} for r in range(1, 7)],
        # Receptacle 1 (en2) sits next to Ethernet and cannot do RDMA (exo README, dashboard).
        "rdma_avoid": [1],
    }


PROFILES = {
    "studio512": _studio(512, 2, "Z1CF000ABLL/A"),
    "studio256": _studio(256, 1, "Z1CE000ABLL/A"),
    "mini64": {
        "model_id": "Mac16,11",
        "model_name": "Mac mini",
        "chip": "Apple M4 Pro",
        "model_number": "Z1JV000ABLL/A",
        "cores_perf": 10,
        "cores_eff": 4,
        "memory_bytes": 64 * GIB,
        "disk_bytes": 1000 ** 4,
        "boot_rom": "13822.61.10",
        "management_port": {"name": "Ethernet", "device": "en0"},
        "other_ports": [{"name": "Wi-Fi", "device": "en1"}],
        # Unconfirmed: three TB5 ports as en2..en4 follows TN3205's rdma_en2..4 listing; the
        # receptacle-to-physical-port layout of the mini is not documented.
        "tb_ports": [{"receptacle": r, "device": "en%d" % (r + 1), "tb5": True} for r in range(1, 4)],
        "rdma_avoid": [],
    },
    "mbp128": {
        # Unconfirmed: Mac16,6 is our best reading for the 14-inch MacBook Pro M4 Max (the 16-inch
        # is Mac16,5); core split is the 16-core M4 Max (12P+4E) that 128 GB requires.
        "model_id": "Mac16,6",
        "model_name": "MacBook Pro",
        "chip": "Apple M4 Max",
        "model_number": "Z1FE000ABLL/A",
        "cores_perf": 12,
        "cores_eff": 4,
        "memory_bytes": 128 * GIB,
        "disk_bytes": 2 * 1000 ** 4,
        "boot_rom": "13822.61.10",
        # Unconfirmed laptop map: Wi-Fi is en0 (the lab manages it over en0 as well) and the
        # Thunderbolt ports start at en1.
        "management_port": {"name": "Wi-Fi", "device": "en0"},
        "other_ports": [],
        "tb_ports": [{"receptacle": r, "device": "en%d" % r, "tb5": True} for r in range(1, 4)],
        "rdma_avoid": [],
    },
}

DEFAULT_PROFILES = ("studio512", "studio512", "studio256", "studio256")
DEFAULT_OS = {"version": "26.2", "build": "25C56", "darwin": "25.2.0"}


def os_info(version, build):
    """A host's state.json "os" for macOS VERSION (BUILD): Darwin's major is macOS's minus one (26.2 is 25.2.0).
    A VERSION with a security response's letter (``26.3.1 (a)``, as softwareupdate's Version: names a Background
    Security Improvement) keeps the release as ``version`` and the letter as ``extra`` (sw_vers'
    ProductVersionExtra); BUILD is then the response's own (25D771280a)."""
    release, _, extra = version.partition(" ")
    major, minor = (release.split(".") + ["0"])[:2]
    found = {"version": release, "build": build, "darwin": "%d.%s.0" % (int(major) - 1, minor)}
    if extra:
        found["extra"] = extra
    return found


def default_profiles(count):
    """The default cluster: the two 512 GB and two 256 GB Studios, repeated for larger labs."""
    return [DEFAULT_PROFILES[i % len(DEFAULT_PROFILES)] for i in range(count)]


def get(name):
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError("unknown profile %r (known: %s)" % (name, ", ".join(sorted(PROFILES))))


def port_preference(profile):
    """Receptacles in the order cables are assigned: RDMA-capable ones first."""
    receptacles = [p["receptacle"] for p in profile["tb_ports"]]
    avoid = set(profile.get("rdma_avoid", ()))
    return [r for r in receptacles if r not in avoid] + [r for r in receptacles if r in avoid]


def device_for(profile, receptacle):
    for port in profile["tb_ports"]:
        if port["receptacle"] == receptacle:
            return port["device"]
    raise ValueError("%s has no receptacle %d" % (profile["model_name"], receptacle))
