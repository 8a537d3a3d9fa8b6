"""launchctl: a client of the host launchd's run/launchd.sock (see DESIGN.md "Boot")."""
import os
import plistlib
import socket

from ..lineproto import recv_line, send_line
from .registry import command
from .state import Fail, err, out


def launchd_request(host, request):
    path = os.path.join(host.dir, "run", "launchd.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(30)
        sock.connect(path)
        send_line(sock, request)
        sock.shutdown(socket.SHUT_WR)
        reply = recv_line(sock, default={})
    except OSError as exc:
        raise Fail(1, "launchctl: cannot reach launchd ({}): {}\n".format(path, exc))
    finally:
        sock.close()
    return int(reply.get("rc", 1)), reply.get("out", ""), reply.get("err", "")


def _label_of_target(target):
    if not target.startswith("system/"):
        raise Fail(1, "launchctl: the lab simulates only the system domain, not {}\n".format(target))
    return target.split("/", 1)[1]


def _label_of_plist(host, path):
    try:
        with open(host.fs(path), "rb") as fh:
            return plistlib.load(fh)["Label"]
    except (OSError, KeyError, ValueError, plistlib.InvalidFileException):
        raise Fail(1, "{}: No such file or directory\n".format(path))


def _relay(reply):
    rc, stdout, stderr = reply
    out(stdout)
    err(stderr)
    return rc


@command("/bin/launchctl")
def cmd_launchctl(host, args):
    if not args:
        raise Fail(1, "Usage: launchctl <subcommand> ... | help [subcommand]\n")
    verb, rest = args[0], args[1:]
    # launchd checks the caller's uid itself (SO_PEERCRED), so no root test here.
    if verb == "list":
        request = {"op": "list"}
        if rest:
            request["label"] = rest[0]
        return _relay(launchd_request(host, request))
    if verb == "bootstrap":
        if len(rest) < 2 or rest[0] != "system":
            raise Fail(1, "Usage: launchctl bootstrap system <service-path>\n")
        return max(_relay(launchd_request(host, {"op": "bootstrap", "plist": p})) for p in rest[1:])
    if verb == "bootout":
        if not rest:
            raise Fail(1, "Usage: launchctl bootout <service-target> | system <service-path>\n")
        if rest[0] == "system" and len(rest) > 1:
            label = _label_of_plist(host, rest[1])
        else:
            label = _label_of_target(rest[0])
        return _relay(launchd_request(host, {"op": "bootout", "label": label}))
    if verb == "print-disabled":
        return _print_disabled(host, rest)
    if verb == "asuser":
        return _asuser(rest)
    if verb in ("print", "enable", "disable"):
        if not rest:
            raise Fail(1, "Usage: launchctl {} <service-target>\n".format(verb))
        return _relay(launchd_request(host, {"op": verb, "label": _label_of_target(rest[-1])}))
    if verb == "kickstart":
        targets = [r for r in rest if not r.startswith("-")]
        if not targets:
            raise Fail(1, "Usage: launchctl kickstart [-kp] <service-target>\n")
        return _relay(launchd_request(host, {"op": "kickstart", "kill": "-k" in rest,
                                             "label": _label_of_target(targets[0])}))
    if verb in ("load", "unload"):
        return _legacy_load(host, verb, rest)
    if verb in ("start", "stop"):
        if not rest:
            raise Fail(1, "Usage: launchctl {} <label>\n".format(verb))
        request = ({"op": "kickstart", "kill": False, "label": rest[0]} if verb == "start"
                   else {"op": "stop", "label": rest[0]})
        return _relay(launchd_request(host, request))
    raise Fail(1, 'Unrecognized subcommand: {}\nUsage: launchctl <subcommand> ...\n'.format(verb))


def _print_disabled(host, rest):
    """launchctl print-disabled system, in macOS 11's form: the overrides `disable` wrote (the lab lists the disabled
    ones only; a Mac also keeps "=> enabled" for a label enabled again)."""
    if rest != ["system"]:
        raise Fail(1, "Usage: launchctl print-disabled <domain-target> (the lab simulates the system domain)\n")
    lines = ['\t"%s" => disabled\n' % label for label in sorted(host.state.get("launchd_disabled", []))]
    out("disabled services = {\n%s}\nlogin item associations = {\n}\n" % "".join(lines))
    return 0


def _asuser(rest):
    """launchctl asuser UID COMMAND...: runs COMMAND in that user's bootstrap context, still as the caller (root).
    The lab has no per-user contexts: it runs the command, stdin and stdout passed through."""
    if len(rest) < 2 or not rest[0].isdigit():
        raise Fail(1, "Usage: launchctl asuser <UID> <command> [arguments...]\n")
    os.execvp(rest[1], rest[1:])


def _legacy_load(host, verb, rest):
    """load/unload [-w] [-F] PATH...: what community.general.launchd drives. Legacy
    subcommands report problems on stderr but exit 0 for an already-(un)loaded job
    (unconfirmed on macOS 26)."""
    write = "-w" in rest
    paths = [r for r in rest if not r.startswith("-")]
    if not paths:
        raise Fail(1, "Usage: launchctl {} [-wF] <paths>\n".format(verb))
    rc = 0
    for path in paths:
        label = _label_of_plist(host, path)
        if verb == "load":
            if write:
                launchd_request(host, {"op": "enable", "label": label})
            code, stdout, stderr = launchd_request(host, {"op": "bootstrap", "plist": path})
            out(stdout)
            if code != 0:
                err(stderr or "Load failed: {}: {}\n".format(code, path))
                rc = code
        else:
            code, stdout, stderr = launchd_request(host, {"op": "bootout", "label": label})
            out(stdout)
            if code != 0:
                err("Could not find specified service\n")
            if write:
                launchd_request(host, {"op": "disable", "label": label})
    return rc
