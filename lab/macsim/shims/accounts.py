"""Directory services: dscl over the host's passwd and group."""
import grp
import pwd

from ..formats import admin
from .registry import command
from .state import Fail, out


def _user_attributes(entry):
    groups = [g.gr_name for g in grp.getgrall() if entry.pw_name in g.gr_mem]
    attrs = {"NFSHomeDirectory": [entry.pw_dir], "PrimaryGroupID": [str(entry.pw_gid)],
             "RealName": [entry.pw_gecos.split(",")[0] or entry.pw_name],
             "RecordName": [entry.pw_name], "UniqueID": [str(entry.pw_uid)],
             "UserShell": [entry.pw_shell], "RecordType": ["dsRecTypeStandard:Users"]}
    if groups:
        attrs["dsAttrTypeNative:groups"] = groups
    return attrs


@command("/usr/bin/dscl")
def cmd_dscl(host, args):
    if len(args) < 3 or args[0] not in (".", "/Local/Default"):
        raise Fail(1, "Usage: dscl . -read|-list <path> [attributes]\n")
    verb, path, attrs = args[1], args[2], args[3:]
    if verb == "-list" and path == "/Users":
        out("".join(p.pw_name + "\n" for p in sorted(pwd.getpwall(), key=lambda p: p.pw_name)))
        return 0
    if verb == "-list" and path == "/Groups":
        out("".join(g.gr_name + "\n" for g in sorted(grp.getgrall(), key=lambda g: g.gr_name)))
        return 0
    if verb == "-read" and path.startswith("/Users/"):
        try:
            entry = pwd.getpwnam(path.split("/", 2)[2])
        except KeyError:
            raise Fail(admin.EXIT_DSCL_NOT_FOUND, admin.DSCL_NOT_FOUND)
        from .updates import user_guid
        out(admin.dscl_record(dict(_user_attributes(entry), GeneratedUID=[user_guid(host, entry.pw_name)]),
                              attrs or None))
        return 0
    if verb == "-read" and path.startswith("/Groups/"):
        try:
            group = grp.getgrnam(path.split("/", 2)[2])
        except KeyError:
            raise Fail(admin.EXIT_DSCL_NOT_FOUND, admin.DSCL_NOT_FOUND)
        record = {"GroupMembership": list(group.gr_mem), "PrimaryGroupID": [str(group.gr_gid)],
                  "RecordName": [group.gr_name]}
        out(admin.dscl_record(record, attrs or None))
        return 0
    raise Fail(1, "dscl: the lab simulates -read/-list of /Users and /Groups\n")
