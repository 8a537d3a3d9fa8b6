# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: reads `sudo -n -l` and finds the passwordless rules that give a
# root shell or run arbitrary code. Stdlib only, Python 3.9: node modules and controller plugins
# both import it.
"""Audit of the rules ``sudo -n -l`` lists (the short format of sudo 1.9, macOS 26's 1.9.13p2).

The listing, as sudo's ``display_priv_short`` prints it::

    Matching Defaults entries for admin on mac1:
        env_reset, env_keep+="BLOCKSIZE ..."

    User admin may run the following commands on mac1:
        (ALL) ALL
        (root) NOPASSWD: /bin/ls "", /sbin/ifconfig bridge0 down, /usr/sbin/sysctl ^-w x$

One line per run-as change, commands separated by ``, ``; a tag (``NOPASSWD:``, ``SETENV:``) is
printed where it changes and holds for the rest of the line. Outside a regular expression sudo
escapes ``: , = #`` with a backslash; a regular expression (``^`` to the first ``$``) is printed
as written. Written to a terminal, sudo wraps lines longer than its width with a 4-space indent
(none without a terminal, as over a non-interactive SSH session): a wrapped line is joined back
when its continuation does not look like a run-as line.

``audit()`` matches every passwordless rule the way sudo does (arguments: ``""`` = none, ``^...$``
= POSIX extended regular expression on the arguments joined by spaces, otherwise fnmatch(3)
without flags, so ``*`` also matches spaces, ``/`` and further options) against command lines
known to run code as root, and against its own wildcards filled with such payloads. It knows the
usual programs (shells, interpreters, editors, program runners, file writers) and the two the
cluster's rules name with arguments: launchctl (load, bootstrap, submit, asuser, bsexec, setenv,
config) and sysctl (writes of any key but ``iogpu.wired_limit_mb``). Known, not exhaustive: a
rule it passes can still be too broad; see docs/sudo.md.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.macops.cluster.plugins.module_utils._problems import problem

_DEFAULTS_HEADER = re.compile(r"^Matching Defaults entries for \S+ on .+:$")
_RULES_HEADER = re.compile(r"^User (?P<user>\S+) may run the following commands on .+:$")
# "(root) ", "(ALL : ALL) ", "(root, operator) ": names without spaces, parentheses or commas.
_RUNAS_LINE = re.compile(r"^    \((?P<runas>[^\s(),]+(?:(?:, | : )[^\s(),]+)*)\) (?P<rest>.*)$")
_TAG = re.compile(r"^(?P<tag>NOPASSWD|PASSWD|SETENV|NOSETENV|NOEXEC|EXEC|INTERCEPT|NOINTERCEPT|LOG_INPUT|NOLOG_INPUT|"
                  r"LOG_OUTPUT|NOLOG_OUTPUT|MAIL|NOMAIL|FOLLOW|NOFOLLOW): ")
_OPTION = re.compile(r'^(?:ROLE|TYPE|CHROOT|CWD|TIMEOUT|NOTBEFORE|NOTAFTER|PRIVS|LIMITPRIVS|APPARMOR_PROFILE)='
                     r'(?:"[^"]*"|\S+) ')
# The tags that decide what a rule gives; the others (NOEXEC, LOG_INPUT, ...) are read past.
_TAG_VALUES = {"NOPASSWD": ("nopasswd", True), "PASSWD": ("nopasswd", False),
               "SETENV": ("setenv", True), "NOSETENV": ("setenv", False)}
_DIGEST = re.compile(r"^(?:sha224|sha256|sha384|sha512):[A-Za-z0-9+/=]+,? ")
_SUDOERS_ESCAPED = re.compile(r"\\([:,=# \t])")

# Programs that run whatever their arguments say, whatever the rule's arguments are: basename ->
# what it gives. Known, not exhaustive (GTFOBins lists many more).
_SHELLS = ("sh", "bash", "zsh", "csh", "tcsh", "ksh", "dash", "fish", "su", "login", "sudo", "doas")
_INTERPRETERS = ("python", "python2", "python3", "perl", "ruby", "irb", "node", "php", "lua", "osascript",
                 "tclsh", "wish", "expect", "awk", "gawk", "nawk", "swift", "jsc", "pwsh", "Rscript")
_EDITORS = ("vi", "vim", "nvim", "view", "ex", "ed", "nano", "pico", "emacs", "less", "more", "man", "most",
            "sudoedit", "visudo")
_RUNNERS = ("env", "xargs", "find", "nohup", "nice", "time", "timeout", "script", "chroot", "open", "caffeinate",
            "dtrace", "lldb", "gdb", "screen", "tmux", "watch", "crontab", "at", "sandbox-exec", "arch")
_FILE_WRITERS = ("tee", "dd", "cp", "mv", "install", "ln", "chmod", "chown", "rsync", "tar", "unzip", "ditto",
                 "defaults", "plutil", "PlistBuddy", "sed", "curl", "scp", "sftp")
_KIND = dict((name, what) for names, what in (
    (_SHELLS, "a shell"), (_INTERPRETERS, "an interpreter"), (_EDITORS, "an editor or pager with a shell escape"),
    (_RUNNERS, "a program that runs other programs"), (_FILE_WRITERS, "a program that writes any file as root"))
    for name in names)
_VERSIONED = re.compile(r"^(python|perl|ruby|php|lua|pwsh)[0-9.]*$")

# launchd jobs a person cannot write: plists there are root's. Anything else loads arbitrary code.
_ROOT_DAEMON_DIRS = ("/Library/LaunchDaemons/", "/System/Library/LaunchDaemons/")
_LAUNCHCTL_ALWAYS = {"submit": "submits a job that runs any program", "asuser": "runs any program",
                     "bsexec": "runs any program", "setenv": "sets the environment of every job it starts",
                     "putenv": "sets the environment of every job it starts",
                     "config": "changes launchd's configuration for every job"}
# The one kernel value the cluster's tools write (MLX docs, exo's configure_mlx.sh).
SAFE_SYSCTL_WRITES = ("iogpu.wired_limit_mb",)

# Command lines that run code as root, per program: each is tried against every rule for it.
_ESCAPE = "../../../../../../../../tmp/x.plist"
PROBES = {
    "launchctl": (
        "bootstrap system /tmp/x.plist", "load /tmp/x.plist", "load -w /tmp/x.plist", "load -wF /tmp/x.plist",
        "submit -l x -- /tmp/x", "asuser 0 /tmp/x", "bsexec 1 /tmp/x",
        "setenv DYLD_INSERT_LIBRARIES /tmp/x.dylib", "config system path /tmp",
        "bootstrap system /Library/LaunchDaemons/" + _ESCAPE, "load /Library/LaunchDaemons/" + _ESCAPE,
        "load -w /Library/LaunchDaemons/" + _ESCAPE,
    ),
    "sysctl": (
        "-w kern.maxproc=1", "kern.maxproc=1", "iogpu.wired_limit_mb=1 kern.maxproc=1",
        "-w iogpu.wired_limit_mb=1 kern.maxproc=1", "-w iogpu.wired_limit_mb=1 -w kern.maxproc=1",
        "-n iogpu.wired_limit_mb=1 kern.maxproc=1", "iogpu.wired_limit_mb=1 -w kern.maxproc=1", "-f /tmp/x",
    ),
}
# What a rule's own wildcards are filled with: another path, a second option or assignment.
_PAYLOADS = ("x", "/tmp/x.plist", _ESCAPE, "1 kern.maxproc=1", "x kern.maxproc=1", "x -w kern.maxproc=1",
             "x /tmp/x.plist", "x load /tmp/x.plist")
_POSIX_CLASSES = {"digit": "0-9", "alpha": "A-Za-z", "alnum": "A-Za-z0-9", "upper": "A-Z", "lower": "a-z",
                  "space": r"\s", "blank": r" \t", "xdigit": "0-9A-Fa-f", "punct": r"!-/:-@\[-`{-~",
                  "print": r" -~", "graph": r"!-~", "cntrl": r"\x00-\x1f"}


# ---- the listing -----------------------------------------------------------------------------

def _unescape(text):
    return _SUDOERS_ESCAPED.sub(r"\1", text)


def _until_unescaped(text, stops):
    """Index of the first character of `stops` in `text` not preceded by a backslash, or len."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] in stops:
            return i
        i += 1
    return len(text)


def _split_commands(rest):
    """The cmndspecs of one run-as line: [(tags dict, command text)], tags carried along the line."""
    specs = []
    tags = {}
    while rest:
        while True:
            tag = _TAG.match(rest)
            option = _OPTION.match(rest) or _DIGEST.match(rest)
            if tag:
                name = tag.group("tag")
                if name in _TAG_VALUES:
                    key, value = _TAG_VALUES[name]
                    tags[key] = value
                rest = rest[tag.end():]
            elif option:
                rest = rest[option.end():]
            else:
                break
        end_path = _until_unescaped(rest, " \t,")
        command = rest[:end_path]
        rest = rest[end_path:]
        if rest.startswith(" ^"):
            # A regular expression runs to its first unescaped `$` (sudoers' lexer, GOTREGEX).
            dollar = _until_unescaped(rest[2:], "$")
            command += rest[:dollar + 3]
            rest = rest[dollar + 3:]
        elif rest.startswith(" "):
            comma = _until_unescaped(rest, ",")
            command += rest[:comma]
            rest = rest[comma:]
        specs.append((dict(tags), command.strip()))
        if rest.startswith(","):
            rest = rest[1:].lstrip(" ")
    return specs


def _rule(runas, tags, text, passwordless_default):
    negated = text.startswith("!")
    body = text[1:] if negated else text
    command, _space, args = body.partition(" ")
    args = args.strip() if _space else None
    regex_args = args is not None and args.startswith("^")
    return {
        "runas": runas,
        "nopasswd": bool(tags.get("nopasswd", passwordless_default)),
        "setenv": bool(tags.get("setenv", False)) or command == "ALL",
        "negated": negated,
        "command": _unescape(command),
        "args": args if regex_args or args is None else _unescape(args),
        "regex_args": regex_args,
        "text": text,
    }


def parse_listing(text):
    """`sudo -n -l` (short format) -> {"user", "passwordless_default", "rules": [rule dicts]}.

    A rule dict: runas, nopasswd, setenv, negated, command (path, ``ALL`` or a pattern), args (None
    = any arguments, ``""`` = none, ``^...$`` = a regular expression, else fnmatch), regex_args,
    text (as listed). ``passwordless_default`` is true when the matching Defaults hold
    ``!authenticate`` (every rule of the user is then passwordless).
    """
    result = {"user": None, "passwordless_default": False, "rules": []}
    section = None
    lines = []
    for raw in (text or "").splitlines():
        line = raw.rstrip()
        if _DEFAULTS_HEADER.match(line):
            section = "defaults"
            continue
        header = _RULES_HEADER.match(line)
        if header:
            section = "rules"
            result["user"] = header.group("user")
            continue
        if not line.strip():
            continue
        if not line.startswith("    "):
            section = None
            continue
        if section == "defaults":
            entries = [entry.strip() for entry in line.split(",")]
            if "!authenticate" in entries:
                result["passwordless_default"] = True
        elif section == "rules":
            if _RUNAS_LINE.match(line) or not lines:
                lines.append(line)
            else:
                # sudo wrapped a long line at a space: the continuation has the same indent.
                lines[-1] += " " + line.strip()
    for line in lines:
        match = _RUNAS_LINE.match(line)
        if not match:
            continue
        for tags, command in _split_commands(match.group("rest")):
            result["rules"].append(_rule(match.group("runas"), tags, command, result["passwordless_default"]))
    return result


# ---- sudo's matching -----------------------------------------------------------------------

def _glob_to_regex(pattern):
    """fnmatch(3) without flags (what sudoers uses for arguments): `*` and `?` match anything,
    `/` and spaces included; `\\x` is a literal x; `[...]` and `[!...]` are classes."""
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1:end]
                negate = body.startswith("!")
                body = body[1:] if negate else body
                out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "^" + "".join(out) + r"\Z"


def _ere_to_python(pattern):
    """A sudoers regular expression (POSIX ERE, `(?i)` extension) as a Python pattern."""
    flags = 0
    if pattern.startswith("(?i)"):
        flags = re.IGNORECASE
        pattern = pattern[4:]
    pattern = re.sub(r"\[:([a-z]+):\]", lambda m: _POSIX_CLASSES.get(m.group(1), m.group(0)), pattern)
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern, flags | re.DOTALL)


def args_matcher(rule):
    """A function: argument string (argv[1:] joined by spaces) -> whether `rule` allows it."""
    args = rule["args"]
    if args is None:
        return lambda line: True
    if args == '""':
        return lambda line: line == ""
    if rule["regex_args"]:
        compiled = _ere_to_python(args)
    else:
        compiled = re.compile(_glob_to_regex(args), re.DOTALL)
    return lambda line: compiled.search(line) is not None


# ---- what a rule gives -------------------------------------------------------------------------

def _program(command):
    return os.path.basename(command.rstrip("/"))


def _is_pattern(command):
    return command == "ALL" or command.endswith("/") or command.startswith("^") or any(c in command for c in "*?[")


def _launchctl_danger(argv):
    if not argv:
        return None
    verb = argv[0]
    if verb in _LAUNCHCTL_ALWAYS:
        return _LAUNCHCTL_ALWAYS[verb]
    if verb in ("load", "bootstrap"):
        paths = [a for a in argv[1:] if not a.startswith("-")]
        if verb == "bootstrap":
            paths = paths[1:]
        for path in paths:
            safe = os.path.normpath(path) == path and path.endswith(".plist") \
                and path.startswith(_ROOT_DAEMON_DIRS) and not any(c in path for c in "*?[")
            if not safe:
                return "loads a job from a plist anywhere (%s)" % path
    return None


def _sysctl_danger(argv):
    if "-f" in argv:
        return "reads assignments from any file"
    for word in argv:
        if "=" in word and not word.startswith("-"):
            key = word.split("=", 1)[0]
            if key not in SAFE_SYSCTL_WRITES:
                return "writes any kernel value (%s)" % key
    return None


_JUDGES = {"launchctl": _launchctl_danger, "sysctl": _sysctl_danger}


def _class_member(match):
    """A character the fnmatch class of `match` accepts (for filling a pattern), else x."""
    compiled = re.compile(_glob_to_regex(match.group(0)))
    return next((c for c in "x1a-./ " if compiled.match(c)), "x")


def _fillings(rule):
    """Argument strings made from the rule's own pattern, its wildcards filled with payloads."""
    args = rule["args"]
    if args in (None, '""'):
        return []
    if rule["regex_args"]:
        body = args[4:] if args.startswith("(?i)") else args
        template = re.sub(r"\.[*+]", "\0", body[1:-1] if body.endswith("$") else body[1:])
    else:
        template = re.sub(r"\[!?[^\]]*\]", _class_member, re.sub(r"(?<!\\)\?", "x", args)).replace("*", "\0")
    template = re.sub(r"\\(.)", r"\1", template)
    return [template.replace("\0", payload) for payload in _PAYLOADS] if "\0" in template else []


def rule_danger(rule):
    """(what it gives, an example argument string or None) for a rule that runs code as root, else None."""
    command = rule["command"]
    if command == "ALL":
        return "runs any command", None
    if _is_pattern(command):
        return "names programs by a pattern or a directory, so it runs any program there", None
    program = _program(command)
    kind = _KIND.get(program) or ("an interpreter" if _VERSIONED.match(program) else None)
    if kind:
        return "runs %s" % kind, None
    if rule["setenv"]:
        return "lets the caller set the command's environment (SETENV: DYLD_*, PATH)", None
    judge = _JUDGES.get(program)
    if judge is None:
        return None
    allows = args_matcher(rule)
    for line in PROBES.get(program, ()) + tuple(_fillings(rule)):
        if allows(line):
            danger = judge(line.split())
            if danger:
                return danger, line
    return None


# ---- the check ---------------------------------------------------------------------------------

def _canonical(text):
    return " ".join(_unescape(text).split())


def _accepted(rule, accepted):
    wanted = set(_canonical(entry) for entry in accepted or ())
    return _canonical(rule["text"]) in wanted or _canonical(rule["command"] + (
        " " + rule["args"] if rule["args"] is not None else "")) in wanted


def unsafe_entries(entries, accepted=()):
    """The entries of a rule list in sudoers syntax (sudoers_commands, sudoers_extra_commands)
    that would give a shell or run arbitrary code once installed as passwordless, and are not in
    `accepted`: [{"entry", "gives", "example"}]. For checking a rule before it is written."""
    found = []
    for entry in entries or ():
        rule = _rule("root", {"nopasswd": True}, " ".join(entry.split()), True)
        danger = rule_danger(rule)
        if danger is not None and not _accepted(rule, accepted):
            found.append({"entry": entry, "gives": danger[0], "example": danger[1]})
    return found


_SYNTAX_ERROR = re.compile(r"\b(syntax|parse) error\b", re.I)


def audit(listing, rc=0, stderr="", expected=(), accepted=(), host=None):
    """Problems for one node's `sudo -n -l`: every passwordless rule that gives a shell or runs
    arbitrary code (``sudo_rule_unsafe``; ``sudo_rule_unsafe_accepted``, info, when the owner
    listed it in `accepted`), when the listing failed or lacks one of `expected` (the commands this
    collection installed) ``sudo_rules_inactive``, and a sudoers file sudo could not parse
    (``sudoers_syntax_error``)."""
    found = []
    if rc != 0:
        reason = " ".join((stderr or listing or "").split()) or "exit status %s" % rc
        return [problem("sudo_rules_inactive", "sudo -n -l failed (%s): the passwordless rules are not active." % reason,
                        host=host, details={"rc": rc})]
    # sudo 1.9.13 and later recover from a syntax error by skipping the broken lines (error_recovery):
    # the listing works, and stderr names the file and line.
    broken = [line.strip() for line in (stderr or "").splitlines() if _SYNTAX_ERROR.search(line)]
    if broken:
        found.append(problem(
            "sudoers_syntax_error", "sudo cannot parse a sudoers file and skips what it cannot read: %s."
            % "; ".join(broken[:3]), host=host, details={"errors": broken}))
    parsed = parse_listing(listing)
    user = parsed["user"] or "the account"
    passwordless = [r for r in parsed["rules"] if r["nopasswd"] and not r["negated"]]
    listed = set(_canonical(r["text"]) for r in passwordless)
    missing = [entry for entry in expected or () if _canonical(entry) not in listed]
    if missing:
        found.append(problem(
            "sudo_rules_inactive",
            "sudo -n -l does not list %s as passwordless: sudo does not read those rules." % ", ".join(missing),
            host=host, details={"missing": missing}))
    for rule in passwordless:
        danger = rule_danger(rule)
        if danger is None:
            continue
        what, example = danger
        shown = "(%s) NOPASSWD: %s" % (rule["runas"], rule["text"])
        message = "sudo rule '%s' lets %s run code as root without a password: it %s" % (shown, user, what)
        if example is not None:
            message += ", e.g. `sudo %s %s`" % (rule["command"], example)
        details = {"rule": rule["text"], "runas": rule["runas"], "gives": what, "example": example}
        if _accepted(rule, accepted):
            found.append(problem(
                "sudo_rule_unsafe_accepted", message + "; accepted in sudoers_accepted_unsafe_rules.",
                host=host, details=dict(details, accepted=True)))
        else:
            found.append(problem("sudo_rule_unsafe", message + ".", host=host, details=dict(details, accepted=False)))
    return found
