"""Files of the lab: the shared macOS command layer (macroot), controller credentials and each
host's own file system tree (/Users, /Library, /opt/homebrew, /etc files, sshd)."""
import glob
import os
import re
import secrets
import shutil
import stat
import subprocess

from . import layout, pf

# Debian tools a Mac does not have; hidden with overlay whiteouts.
DEBIAN_ONLY = (
    "apt", "apt-get", "apt-cache", "apt-config", "apt-mark", "dpkg", "dpkg-query", "dpkg-deb",
    "lsb_release", "systemctl", "journalctl", "hostnamectl", "loginctl", "service", "invoke-rc.d",
    "update-rc.d", "poweroff", "ip", "tc", "bridge", "ss", "ifup", "ifdown",
)
# Tools a Mac has only from Homebrew: hidden in the hosts' /usr/bin and /usr/sbin, and offered to
# `brew install` as a copy of this machine's binary (lab.json `tools`).
BREW_TOOLS = ("uv", "iperf3")
SHIM_ENTRY = layout.HOST_WORLD_DIR + "/code/bin/macsim-shim"
DARWIN_SITE = layout.HOST_WORLD_DIR + "/code/darwin_site"


def _macroot_dir(directory):
    """macOS directory of a command -> directory relative to / on the merged-usr Linux hosts."""
    directory = directory.strip("/")
    return {"bin": "usr/bin", "sbin": "usr/sbin"}.get(directory, directory)


def shim_commands():
    """{command: directory relative to /} of every command in the shim's registry (the one
    table of macOS path -> handler the dispatcher also reads)."""
    from .shims import registry
    return {name: _macroot_dir(os.path.dirname(path))
            for name, path in registry.macos_paths().items()}


def overlay_dirs(paths):
    """System directories the hosts overlay with macroot (usr/bin, usr/sbin, usr/libexec...)."""
    usr = os.path.join(paths.macroot, "usr")
    return sorted("usr/" + d for d in os.listdir(usr) if os.path.isdir("/usr/" + d))


def tools_python():
    """Interpreter for the lab's own processes (launchd, supervisor, shim): one that does not
    live under /root, which hosts hide behind a tmpfs."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        real = os.path.realpath(candidate)
        if os.path.exists(real) and not real.startswith("/root/"):
            return real
    raise RuntimeError("no system python3 outside /root")


def find_pythons():
    """{"3.12": "/root/.pyenv/versions/3.12.1", ...}: Python >= 3.9 interpreters hosts can use."""
    found = {}
    for prefix in sorted(glob.glob("/root/.pyenv/versions/*")):
        match = re.match(r"^(3)\.(\d+)\.(\d+)$", os.path.basename(prefix))
        if not match or int(match.group(2)) < 9:
            continue
        short = "3.%s" % match.group(2)
        if os.access(os.path.join(prefix, "bin", "python" + short), os.X_OK):
            found[short] = prefix
    if not found:
        debian = os.path.realpath("/usr/bin/python3")
        match = re.search(r"python(3\.\d+)$", debian)
        if match:
            found[match.group(1)] = "/usr"
    return found


def clt_python(pythons):
    """The oldest interpreter plays macOS's Command Line Tools python3 (3.9 on a real Mac)."""
    oldest = sorted(pythons, key=lambda v: tuple(int(x) for x in v.split(".")))[0]
    return os.path.join(pythons[oldest], "bin", "python" + oldest)


def _symlink(target, path):
    if os.path.lexists(path):
        os.unlink(path)
    os.symlink(target, path)


def _whiteout(path):
    if os.path.lexists(path):
        os.unlink(path)
    os.mknod(path, stat.S_IFCHR | 0o000, os.makedev(0, 0))


def _write(path, text, mode=0o644, uid=None, gid=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)
    os.chmod(path, mode)
    if uid is not None:
        os.chown(path, uid, gid)


def install_code(paths):
    """Copy lab/macsim into the lab root, plus the two entry scripts hosts execute."""
    src = os.path.dirname(os.path.abspath(__file__))
    dest = os.path.join(paths.code, "macsim")
    if os.path.exists(paths.code):
        shutil.rmtree(paths.code)
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(os.path.join(src, "darwin_site"), os.path.join(paths.code, "darwin_site"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    from .shims import registry
    python = tools_python()
    registry.write_index(os.path.join(dest, "shims"))
    # Bytecode now, as root: hosts run the shim as their users, who cannot write __pycache__ here,
    # so without it every macOS command would compile the lab's code again before it runs.
    subprocess.run([python, "-m", "compileall", "-q", paths.code], check=True, stdout=subprocess.DEVNULL)
    # Hosts reach the code at /var/db/maclab-world/code; launchd starts before that bind exists.
    _write(os.path.join(paths.code, "bin", "macsim-shim"),
           "#!%s -SE\n# Multi-call macOS command shim: argv[0] picks the command.\nimport sys\n"
           "sys.path.insert(0, %r)\nfrom macsim.shims import dispatch\nsys.exit(dispatch.main(sys.argv))\n"
           % (python, layout.HOST_WORLD_DIR + "/code"), 0o755)
    # Named `launchd` so that /proc/1/comm reads launchd (Ansible's service_mgr fact).
    _write(os.path.join(paths.code, "launchd"),
           "#!%s -sE\nimport sys\nsys.path.insert(0, %r)\nfrom macsim import launchd\n"
           "sys.exit(launchd.main(sys.argv[1:]))\n" % (python, paths.code), 0o755)


def build_recv_wait(paths):
    """recv_wait.c compiled into the lab's code (every simulated Mac preloads it: the file says why), or None where
    no C compiler is found: the lab then runs without it, its MLX ranks spinning on the shared cores."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        return None
    library = os.path.join(paths.code, "lib", "recv_wait.so")
    os.makedirs(os.path.dirname(library), exist_ok=True)
    built = subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", library,
                            os.path.join(os.path.dirname(os.path.abspath(__file__)), "recv_wait.c"), "-ldl"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    return library if built.returncode == 0 else None


def build_macroot(paths):
    commands = shim_commands()
    for sub in ("usr/bin", "usr/sbin"):
        os.makedirs(os.path.join(paths.macroot, sub), exist_ok=True)
    for name, sub in commands.items():
        if not sub.startswith("usr/"):
            continue  # e.g. opt/homebrew/bin: lives in each host's own tree (build_host_fs)
        os.makedirs(os.path.join(paths.macroot, sub), exist_ok=True)
        # Absolute targets: relative symlinks break inside the overlay.
        _symlink(SHIM_ENTRY, os.path.join(paths.macroot, sub, name))
        # The Linux command of the same name in the other directory must not stay reachable.
        for other in ("usr/bin", "usr/sbin"):
            if other != sub and os.path.lexists(os.path.join("/", other, name)):
                _whiteout(os.path.join(paths.macroot, other, name))
    for name in DEBIAN_ONLY + BREW_TOOLS:
        for sub in ("usr/bin", "usr/sbin"):
            if os.path.lexists(os.path.join("/", sub, name)) and name not in commands:
                _whiteout(os.path.join(paths.macroot, sub, name))
    _write(os.path.join(paths.macroot, "usr/bin/python3"),
           "#!/bin/sh\n"
           "# macOS's /usr/bin/python3 runs the Command Line Tools python; sitecustomize makes it\n"
           "# report Darwin and removes itself from PYTHONPATH so child pythons stay plain Linux.\n"
           'PYTHONPATH="%s${PYTHONPATH:+:$PYTHONPATH}" exec %s "$@"\n' % (DARWIN_SITE, layout.CLT_PYTHON),
           0o755)


def make_controller_credentials(paths):
    os.makedirs(paths.controller, mode=0o700, exist_ok=True)
    if not os.path.exists(paths.key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "maclab-controller", "-f", paths.key],
                       check=True)
    if not os.path.exists(paths.become_password):
        _write(paths.become_password, secrets.token_urlsafe(18) + "\n", 0o600)
    with open(paths.become_password) as handle:
        return handle.read().strip()


def _hash_password(password):
    proc = subprocess.run(["openssl", "passwd", "-6", "-stdin"], input=password, stdout=subprocess.PIPE,
                          universal_newlines=True, check=True)
    return proc.stdout.strip()


def _passwd_files(password_hash):
    """Per-host /etc/passwd, group, shadow: the machine's system accounts plus a Mac's admin."""
    def read(path):
        with open(path) as handle:
            return [line.rstrip("\n") for line in handle if line.strip()]
    passwd = [l for l in read("/etc/passwd")
              if l.split(":")[0] != layout.ADMIN_USER and l.split(":")[2] != str(layout.ADMIN_UID)]
    shell = "/bin/zsh" if os.path.exists("/bin/zsh") else "/bin/bash"
    passwd.append("%s:x:%d:%d:Admin:/Users/%s:%s" % (layout.ADMIN_USER, layout.ADMIN_UID, layout.STAFF_GID,
                                                     layout.ADMIN_USER, shell))
    taken = {str(layout.STAFF_GID), str(layout.ADMIN_GID)}
    group = [l for l in read("/etc/group") if l.split(":")[2] not in taken and l.split(":")[0] not in ("staff", "admin", "wheel")]
    # gid 0 is `wheel` on macOS (files owned root:wheel); listed first, so `ls` shows that name.
    group.insert(0, "wheel:x:0:root")
    group.append("staff:x:%d:%s" % (layout.STAFF_GID, layout.ADMIN_USER))
    group.append("admin:x:%d:root,%s" % (layout.ADMIN_GID, layout.ADMIN_USER))
    shadow = [l for l in read("/etc/shadow") if l.split(":")[0] != layout.ADMIN_USER]
    shadow.append("%s:%s:20000:0:99999:7:::" % (layout.ADMIN_USER, password_hash))
    return "\n".join(passwd) + "\n", "\n".join(group) + "\n", "\n".join(shadow) + "\n"


SUDOERS = """\
# Per-host sudoers of the simulated Mac, shaped like macOS's /private/etc/sudoers.
Defaults	env_reset
Defaults	env_keep += "BLOCKSIZE COLORFGBG COLORTERM __CF_USER_TEXT_ENCODING CHARSET LANG LANGUAGE LC_ALL"
root	ALL = (ALL) ALL
%admin	ALL = (ALL) ALL
#includedir /etc/sudoers.d
"""


def build_host_fs(paths, lab, host, password):
    index = host["index"]
    name = host["name"]
    hdir = paths.host(name)
    fs = os.path.join(hdir, "fs")
    for sub in ("log", "run", "etc-work", "fs/etc/sudoers.d", "fs/ssh/ssh_config.d", "fs/Library/LaunchDaemons", "fs/Library/Logs",
                "fs/Library/Preferences/SystemConfiguration", "fs/Library/Developer/CommandLineTools/usr/bin",
                "fs/opt/homebrew/bin", "fs/var/log", "fs/var/db/softwareupdate", "fs/Users/Shared"):
        os.makedirs(os.path.join(hdir, sub), exist_ok=True)
    os.makedirs(os.path.join(paths.saved_mounts, name, "root"), exist_ok=True)
    for log in ("shim.log", "exec.log", "read.log", "launchd.log", "sshd.log"):
        # Modules run as the admin user append to these too.
        _write(os.path.join(hdir, "log", log), "", 0o666)
    _write(os.path.join(hdir, "state.lock"), "", 0o666)
    # The node python's compiled-code cache (darwin_site/sitecustomize.py): a directory per user.
    os.makedirs(os.path.join(hdir, "pycache"), exist_ok=True)
    os.chmod(os.path.join(hdir, "pycache"), 0o1777)

    home = os.path.join(fs, "Users", layout.ADMIN_USER)
    os.makedirs(os.path.join(home, ".ssh"), exist_ok=True)
    with open(paths.key + ".pub") as handle:
        _write(os.path.join(home, ".ssh", "authorized_keys"), handle.read(), 0o600, layout.ADMIN_UID, layout.STAFF_GID)
    for path in (home, os.path.join(home, ".ssh")):
        os.chown(path, layout.ADMIN_UID, layout.STAFF_GID)
    os.chmod(home, 0o755)
    os.chmod(os.path.join(home, ".ssh"), 0o700)

    passwd, group, shadow = _passwd_files(_hash_password(password))
    _write(os.path.join(fs, "etc/passwd"), passwd, 0o644)
    _write(os.path.join(fs, "etc/group"), group, 0o644)
    shadow_gid = os.stat("/etc/shadow").st_gid
    _write(os.path.join(fs, "etc/shadow"), shadow, 0o640, 0, shadow_gid)
    _write(os.path.join(fs, "etc/sudoers"), SUDOERS, 0o440, 0, 0)
    os.chmod(os.path.join(fs, "etc/sudoers.d"), 0o755)
    peers = "".join("%s\t%s %s.local\n" % (layout.mgmt_ip(h["index"]), h["name"], h["name"]) for h in lab["hosts"])
    _write(os.path.join(fs, "etc/hosts"), "127.0.0.1\tlocalhost\n::1\tlocalhost\n" + peers, 0o644)
    if lab.get("recv_wait"):  # every process of the host loads it once /etc is the host's (launchd's mounts)
        _write(os.path.join(fs, "etc/ld.so.preload"), lab["recv_wait"] + "\n", 0o644)
    # No resolver: a lookup of a public name fails at once on the host's own loopback instead of
    # reaching for the machine's nameserver (lab traffic stays in 198.18.0.0/15 and loopback).
    _write(os.path.join(fs, "etc/resolv.conf"), "# The lab has no DNS: names resolve through /etc/hosts only.\n"
           "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n", 0o644)

    write_pf_files(fs)
    # fs/ssh is the host's /etc/ssh (a bind inside the host): its host keys, sshd_config and the
    # client's ssh_config, where macOS keeps them.
    key = os.path.join(fs, "ssh", "ssh_host_ed25519_key")
    if not os.path.exists(key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key], check=True)
    if os.path.exists("/etc/ssh/moduli"):
        shutil.copy("/etc/ssh/moduli", os.path.join(fs, "ssh", "moduli"))
    _write(os.path.join(fs, "ssh", "ssh_config"), SSH_CLIENT_CONFIG, 0o644)
    # No ListenAddress: Remote Login listens on every address of the Mac, which inside the
    # host's network namespace means only its own (management and Thunderbolt) addresses.
    _write(os.path.join(fs, "ssh", "sshd_config"), """\
# sshd of simulated Mac %(name)s (Remote Login), started by its launchd.
HostKey %(state)s/fs/ssh/ssh_host_ed25519_key
PidFile none
PermitRootLogin no
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
MaxStartups 200:30:400
MaxSessions 50
Subsystem sftp internal-sftp
# The PATH a non-interactive ssh command gets on macOS.
SetEnv PATH=/usr/bin:/bin:/usr/sbin:/sbin
""" % {"name": name, "state": layout.HOST_STATE_DIR}, 0o644)

    _symlink(lab["clt_python"], os.path.join(fs, "Library/Developer/CommandLineTools/usr/bin/python3"))
    for name, sub in shim_commands().items():
        if sub.startswith("opt/homebrew/"):
            target = os.path.join(fs, sub, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            _symlink(SHIM_ENTRY, target)
    # Homebrew's installer gives its prefix to the user who ran it (group admin); brew refuses
    # to run as root, so the admin user must be able to write the Cellar and links.
    for directory in ("opt/homebrew", "opt/homebrew/bin"):
        os.chown(os.path.join(fs, directory), layout.ADMIN_UID, layout.ADMIN_GID)
    # /Users/Shared is world-writable with the sticky bit on macOS.
    os.chmod(os.path.join(fs, "Users", "Shared"), 0o1777)


# The client part of macOS's /etc/ssh/ssh_config (its comment block left out).
SSH_CLIENT_CONFIG = """\
# ssh client configuration of the simulated Mac (macOS ships the same settings).
Include /etc/ssh/ssh_config.d/*
Host *
    SendEnv LANG LC_*
"""


def write_pf_files(fs):
    """macOS's stock /etc/pf.conf and /etc/pf.anchors/com.apple, in the host's own /etc (the
    upper layer of its /etc overlay)."""
    _write(os.path.join(fs, "etc", "pf.conf"), pf.MACOS_PF_CONF, 0o644, 0, 0)
    _write(os.path.join(fs, "etc", "pf.anchors", "com.apple"), pf.MACOS_COM_APPLE_ANCHOR, 0o644, 0, 0)
    os.chmod(os.path.join(fs, "etc", "pf.anchors"), 0o755)


def lab_tools(paths):
    """lab.json `tools`: controller binaries `brew install` links, copied under the lab root
    (hosts see /root only as a tmpfs, and /usr/bin without them). A working uv or iperf3 cannot
    come from an offline package source, so only one already on this machine is offered; without
    it `brew install` of that formula fails and says why."""
    tools = {}
    for name in BREW_TOOLS:
        found = shutil.which(name)
        if not found:
            continue
        dest = os.path.join(paths.root, "tools", name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(os.path.realpath(found), dest)
        os.chmod(dest, 0o755)
        tools[name] = layout.HOST_WORLD_DIR + "/tools/" + name
    return tools


def host_public_key(paths, name):
    with open(paths.host_file(name, "fs", "ssh", "ssh_host_ed25519_key.pub")) as handle:
        return " ".join(handle.read().split()[:2])
