"""Names, addresses and paths shared by every part of the lab (see lab/DESIGN.md)."""
import os

LAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(LAB_DIR)


def lab_number():
    """Which lab this is on the machine: $MACLAB_ID, 0 (the default) to 9. Labs with different
    numbers run side by side (the end-to-end suite runs its streams on labs 0 and 1): each has its
    own root, namespaces, bridge, management subnet 198.18.<n>.0/24 and inventory."""
    value = os.environ.get("MACLAB_ID", "0")
    if not (value.isdigit() and 0 <= int(value) <= 9):
        raise ValueError("MACLAB_ID is %r: a lab number from 0 to 9" % value)
    return int(value)


LAB_NUMBER = lab_number()
_SUFFIX = "" if LAB_NUMBER == 0 else str(LAB_NUMBER)

DEFAULT_ROOT = "/var/lib/maclab" + _SUFFIX
# Lab 0's names are the historic ones (maclab-mac1, maclab0, mlb-mac1); lab n's carry n.
NETNS_PREFIX = "maclab%s-" % _SUFFIX
MGMT_BRIDGE = "maclab%d" % LAB_NUMBER
ROOT_VETH_PREFIX = "mlb%s-" % _SUFFIX
CONTROLLER_IP = "198.18.%d.1" % LAB_NUMBER
MGMT_PREFIX_LEN = 24
PACKAGE_PORT = 8101
PACKAGE_INDEX_URL = "http://%s:%d/simple/" % (CONTROLLER_IP, PACKAGE_PORT)
TB_ADDRESS_POOL = "198.19.0.0/16"
# The generated inventory: inventories/lab for lab 0, inventories/lab<n> for lab n.
INVENTORY_DIR = os.path.join(REPO_ROOT, "inventories", "lab" + _SUFFIX)
# Machine-wide: which labs use the mount points `up` created (lab.py), so that the last lab down
# removes them and no lab removes one another lab's hosts still mount over.
MOUNTPOINT_REGISTRY = "/var/lib/maclab-mountpoints.json"
ADMIN_USER = "admin"
ADMIN_UID = 501
STAFF_GID = 20
ADMIN_GID = 80

# Paths as seen from inside a simulated host.
HOST_STATE_DIR = "/var/db/maclab"
HOST_WORLD_DIR = "/var/db/maclab-world"
HOST_LINUX_DIR = "/var/db/maclab-linux"
CLT_PYTHON = "/Library/Developer/CommandLineTools/usr/bin/python3"
LAUNCHD_SOCKET = HOST_STATE_DIR + "/run/launchd.sock"

# Directories a host mounts over; created on the machine's root file system by `up` when
# missing (empty mount points) and removed by `down`.
HOST_MOUNTPOINTS = (
    "/Users", "/Library", "/opt", "/var/db/maclab", "/var/db/maclab-world", "/var/db/softwareupdate",
    "/var/db/maclab-linux/bin", "/var/db/maclab-linux/sbin",
)


def lab_root():
    return os.environ.get("MACLAB_ROOT", DEFAULT_ROOT)


def netns(host):
    return NETNS_PREFIX + host


def host_index(host):
    return int(host[3:])


def host_name(index):
    return "mac%d" % index


def mgmt_ip(index):
    return "198.18.%d.%d" % (LAB_NUMBER, 10 + index)


def mgmt_mac(index):
    return "02:00:c6:12:%02x:%02x" % (2 * LAB_NUMBER, index)


def root_veth(host):
    return ROOT_VETH_PREFIX + host


def root_veth_mac(index):
    return "02:00:c6:12:%02x:%02x" % (2 * LAB_NUMBER + 1, index)


class Paths(object):
    """Where things live under $MACLAB_ROOT on the controller."""

    def __init__(self, root=None):
        self.root = os.path.abspath(root or lab_root())
        self.lab_json = os.path.join(self.root, "lab.json")
        self.code = os.path.join(self.root, "code")
        self.macroot = os.path.join(self.root, "macroot")
        self.controller = os.path.join(self.root, "controller")
        self.wheelhouse = os.path.join(self.root, "wheelhouse")
        self.http_pid = os.path.join(self.root, "http.pid")
        self.key = os.path.join(self.controller, "id_ed25519")
        self.ssh_config = os.path.join(self.controller, "ssh_config")
        self.known_hosts = os.path.join(self.controller, "known_hosts")
        self.become_password = os.path.join(self.controller, "become_password")
        self.saved_mounts = os.path.join(self.root, "mnt")

    def host(self, host):
        return os.path.join(self.root, "hosts", host)

    def host_file(self, host, *parts):
        return os.path.join(self.root, "hosts", host, *parts)

    def supervisor_pid(self, host):
        return os.path.join(self.root, "supervisor-%s.pid" % host)
