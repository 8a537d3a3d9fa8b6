"""Names, addresses and paths shared by every part of the lab (see lab/DESIGN.md)."""
import os

LAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(LAB_DIR)

DEFAULT_ROOT = "/var/lib/maclab"
NETNS_PREFIX = "maclab-"
MGMT_BRIDGE = "maclab0"
CONTROLLER_IP = "198.18.0.1"
MGMT_PREFIX_LEN = 24
PACKAGE_PORT = 8101
PACKAGE_INDEX_URL = "http://%s:%d/simple/" % (CONTROLLER_IP, PACKAGE_PORT)
TB_ADDRESS_POOL = "198.19.0.0/16"
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
    "/Users", "/Library", "/opt", "/var/db/maclab", "/var/db/maclab-world",
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
    return "198.18.0.%d" % (10 + index)


def mgmt_mac(index):
    return "02:00:c6:12:00:%02x" % index


def root_veth(host):
    return "mlb-" + host


def root_veth_mac(index):
    return "02:00:c6:12:01:%02x" % index


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
