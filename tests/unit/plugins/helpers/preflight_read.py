"""A node's read as the preflight checks take it: the Mac's facts and node_facts' volumes, FileVault and sshd."""

GIB = 1073741824


def mac(version="26.2", build="25C56", memory_gb=512):
    return {"macos_version": version, "macos_build": build, "memory_bytes": memory_gb * GIB}


def node(free_gb=500.0, filevault=("off", False, "FileVault is Off."), sshd=True):
    state, on, status = filevault
    return {"volumes": {"/": {"free_gb": free_gb}}, "filevault": {"state": state, "on": on, "status": status},
            "launchd": {"com.openssh.sshd": sshd}}


def responded(version="26.3.1", build="25D771280a"):
    """A node carrying the security response (a) on top of its release."""
    return dict(mac(version, build), macos_version_extra="(a)")
