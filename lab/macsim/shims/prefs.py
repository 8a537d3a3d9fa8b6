"""Preferences and property lists: defaults, plutil."""
import json
import os
import plistlib
import sys

from ..formats import plist as plistfmt
from .registry import command
from .state import Fail, out


def _defaults_path(host, domain, current_host):
    if domain in ("-g", "NSGlobalDomain", "-globalDomain"):
        domain = ".GlobalPreferences"
    if domain.startswith("/"):
        return host.fs(domain if domain.endswith(".plist") else domain + ".plist")
    home = os.environ.get("HOME") or "/var/root"
    if current_host:
        return host.fs("{}/Library/Preferences/ByHost/{}.{}.plist".format(
            home, domain, host.state["hardware"]["platform_uuid"]))
    return host.fs("{}/Library/Preferences/{}.plist".format(home, domain))


def _load_plist(path):
    with open(path, "rb") as fh:
        return plistlib.load(fh)


def _save_plist(path, data, fmt=plistlib.FMT_BINARY):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "wb") as fh:
        plistlib.dump(data, fh, fmt=fmt)
    os.replace(tmp, path)


def _typed(kind, text):
    kind = kind.lstrip("-")
    if kind in ("int", "integer"):
        return int(text)
    if kind == "float":
        return float(text)
    if kind in ("bool", "boolean"):
        return text.lower() in ("true", "yes", "1")
    if kind == "date":
        import datetime
        return datetime.datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S")
    if kind == "data":
        return bytes.fromhex(text)
    return text


def _typed_list(tokens):
    """`-type value` pairs (or bare strings) as defaults -array / -dict take them."""
    values, i = [], 0
    while i < len(tokens):
        if tokens[i].startswith("-") and i + 1 < len(tokens):
            values.append(_typed(tokens[i], tokens[i + 1]))
            i += 2
        else:
            values.append(tokens[i])
            i += 1
    return values


@command("/usr/bin/defaults")
def cmd_defaults(host, args):
    current_host = False
    while args and args[0] in ("-currentHost", "-host"):
        current_host = args[0] == "-currentHost"
        args = args[2:] if args[0] == "-host" else args[1:]
    if len(args) < 2:
        raise Fail(1, "Command line interface to a user's defaults.\nSyntax:\n\n"
                      "'defaults' [-currentHost | -host <hostname>] followed by one of the following:\n")
    verb, domain, rest = args[0], args[1], args[2:]
    path = _defaults_path(host, domain, current_host)
    exists = os.path.exists(path)
    data = _load_plist(path) if exists else {}
    if verb in ("read", "read-type"):
        if not exists:
            raise Fail(1, "\nDomain {} does not exist\n".format(domain))
        if not rest:
            out(plistfmt.old_style(data) + "\n")
            return 0
        if rest[0] not in data:
            raise Fail(1, "\nThe domain/default pair of ({}, {}) does not exist\n".format(domain, rest[0]))
        value = data[rest[0]]
        out("Type is {}\n".format(plistfmt.type_name(value)) if verb == "read-type"
            else plistfmt.old_style(value) + "\n")
        return 0
    if verb == "export":
        if not exists:
            raise Fail(1, "\nDomain {} does not exist\n".format(domain))
        target = rest[0] if rest else "-"
        if target == "-":
            sys.stdout.flush()
            plistlib.dump(data, sys.stdout.buffer, fmt=plistlib.FMT_XML)
        else:
            _save_plist(host.fs(target), data, plistlib.FMT_XML)
        return 0
    if verb == "write":
        if not rest:
            raise Fail(1, "Command line interface to a user's defaults.\n")
        key, tokens = rest[0], rest[1:]
        if not tokens:
            raise Fail(1, "Command line interface to a user's defaults.\n")
        kind = tokens[0] if tokens[0].startswith("-") else "-string"
        values = tokens[1:] if tokens[0].startswith("-") else tokens
        try:
            if kind in ("-array", "-array-add"):
                value = (list(data.get(key, [])) if kind == "-array-add" else []) + _typed_list(values)
            elif kind in ("-dict", "-dict-add"):
                value = dict(data.get(key, {})) if kind == "-dict-add" else {}
                i = 0
                while i < len(values):
                    if i + 2 < len(values) + 1 and values[i + 1].startswith("-") and i + 2 < len(values):
                        value[values[i]] = _typed(values[i + 1], values[i + 2])
                        i += 3
                    else:
                        value[values[i]] = values[i + 1]
                        i += 2
            else:
                value = _typed(kind, values[0])
        except (ValueError, IndexError):
            raise Fail(1, "Command line interface to a user's defaults.\n")
        data[key] = value
        try:
            _save_plist(path, data)
        except OSError:
            raise Fail(1, "Could not write domain {}; exiting\n".format(domain))
        return 0
    if verb == "delete":
        if not exists:
            raise Fail(1, "\nDomain ({}) not found.\nDefaults have not been changed.\n".format(domain))
        if rest:
            if rest[0] not in data:
                raise Fail(1, "\nDomain ({}) not found.\nDefaults have not been changed.\n".format(domain))
            del data[rest[0]]
            _save_plist(path, data)
        else:
            os.unlink(path)
        return 0
    raise Fail(1, "Command line interface to a user's defaults.\n")


def _keypath_get(data, keypath):
    for part in keypath.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def _keypath_parent(data, keypath):
    parts = keypath.split(".")
    parent = _keypath_get(data, ".".join(parts[:-1])) if len(parts) > 1 else data
    return parent, parts[-1]


@command("/usr/bin/plutil")
def cmd_plutil(host, args):
    if not args:
        raise Fail(1, "No files specified.\n")
    verb = args[0]
    output = None
    if "-o" in args:
        index = args.index("-o")
        output = args[index + 1] if args[index + 1] == "-" else host.fs(args[index + 1])
        args = args[:index] + args[index + 2:]
    path = host.fs(args[-1])
    try:
        data = _load_plist(path)
    except FileNotFoundError:
        raise Fail(1, "{}: file does not exist or is not readable or is not a regular file\n".format(args[-1]))
    except (ValueError, plistlib.InvalidFileException) as exc:
        if verb == "-lint":
            raise Fail(1, stdout="{}: {}\n".format(args[-1], exc))
        raise Fail(1, "{}: Property List error: {}\n".format(args[-1], exc))
    if verb == "-lint":
        out("{}: OK\n".format(args[-1]))
        return 0
    if verb == "-p":
        out(plistfmt.plutil_p(data) + "\n")
        return 0
    if verb == "-convert":
        fmt = args[1]
        target = output or path
        if fmt == "json":
            _write_out(target, (json.dumps(data) + "\n").encode())
        elif fmt in ("xml1", "binary1"):
            blob = plistlib.dumps(data, fmt=plistlib.FMT_XML if fmt == "xml1" else plistlib.FMT_BINARY)
            _write_out(target, blob)
        else:
            raise Fail(1, "Unknown format specifier: {}\n".format(fmt))
        return 0
    if verb == "-extract":
        keypath, fmt = args[1], args[2]
        try:
            value = _keypath_get(data, keypath)
        except (KeyError, IndexError, ValueError, TypeError):
            raise Fail(1, "{}: Could not extract value, error: No value at that key path or invalid key path: {}\n"
                       .format(args[-1], keypath))
        if fmt == "json":
            blob = json.dumps(value).encode()
        elif fmt == "raw":
            blob = (plistfmt.plutil_p(value).strip('"') + "\n").encode()
        else:
            blob = plistlib.dumps(value, fmt=plistlib.FMT_XML if fmt == "xml1" else plistlib.FMT_BINARY)
        _write_out(output or "-", blob)
        return 0
    if verb in ("-replace", "-insert", "-remove"):
        keypath = args[1]
        parent, last = _keypath_parent(data, keypath)
        if verb == "-remove":
            if last not in parent:
                raise Fail(1, "Could not modify plist, error: No value to remove at key path {}\n".format(keypath))
            del parent[last]
        else:
            kind, text = args[2], args[3]
            value = json.loads(text) if kind == "-json" else _typed(kind, text)
            if verb == "-insert" and last in parent:
                raise Fail(1, "Could not modify plist, error: Value already exists at key path {}\n".format(keypath))
            parent[last] = value
        _write_out(output or path, plistlib.dumps(data, fmt=plistlib.FMT_BINARY))
        return 0
    raise Fail(1, "unrecognized option: {}\n".format(verb))


def _write_out(target, blob):
    if target == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(blob)
        sys.stdout.buffer.flush()
        return
    with open(target, "wb") as fh:
        fh.write(blob)


@command("/usr/bin/profiles")
def cmd_profiles(host, args):
    """`profiles status -type enrollment`: the MDM enrollment, as the update tool super and Fleet's agent read it
    (state.json's "mdm": {"enrolled", "dep", "server"}; a Mac no MDM manages has none). Other verbs: not simulated."""
    if args[:3] != ["status", "-type", "enrollment"]:
        raise Fail(1, "profiles: the lab simulates only `profiles status -type enrollment` (lab wording)\n")
    mdm = host.state.get("mdm") or {}
    if not mdm.get("enrolled"):
        out("Enrolled via DEP: No\nMDM enrollment: No\n")
        return 0
    # The server's line only where the state names one (the faults' LAB_MDM does): no URL made up here.
    out("Enrolled via DEP: %s\nMDM enrollment: Yes (User Approved)\n%s" % (
        "Yes" if mdm.get("dep") else "No", "MDM server: %s\n" % mdm["server"] if mdm.get("server") else ""))
    return 0
