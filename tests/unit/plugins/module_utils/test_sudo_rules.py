"""The sudo -n -l audit: parsing sudo 1.9's short listing, matching arguments the way sudoers does
(fnmatch without flags, ERE from ^ to $, "" = none), and finding the passwordless rules that give
a shell or run arbitrary code, with the wildcard pitfalls (`*` also matches spaces and options)."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _sudo_rules as rules
from ansible_collections.macops.cluster.plugins.module_utils._problems import is_problem
from fixture_files import read_fixture

# Captured on the lab (sudo 1.9.13p3, the listing code of macOS 26's 1.9.13p2) after the sudoers
# role installed its defaults on a 6-port Mac Studio.
LAB = read_fixture("sudo/list_default_rules_lab.txt")
HEADER = ("Matching Defaults entries for admin on mac1:\n    env_reset\n\n"
          "User admin may run the following commands on mac1:\n")
TB = "(en2|en3|en4|en5|en6|en7)"
DEFAULTS = [
    '/bin/ls ""',
    "/sbin/ifconfig bridge0 down",
    "/sbin/ifconfig ^%s inet [0-9]+[.][0-9]+[.][0-9]+[.][0-9]+ netmask 255[.]255[.]255[.]252$" % TB,
    "/sbin/route ^change [0-9]+[.][0-9]+[.][0-9]+[.][0-9]+ -interface %s$" % TB,
    "/usr/sbin/sysctl ^(-n |-w )?iogpu[.]wired_limit_mb(.[0-9]+)?$",
    "/sbin/shutdown -r now",
] + ["/bin/launchctl %s system/%s" % (verb, label) for verb in ("kickstart -k", "print")
     for label in ("org.macops.exo", "org.macops.gpu-memory", "org.macops.pf")] + [
    "/usr/bin/pmset -a autorestart 1", "/usr/bin/pmset -a disksleep 0", "/usr/bin/pmset -a displaysleep 10",
    "/usr/bin/pmset -a sleep 0", "/usr/bin/pmset -a womp 1",
]


def listing(*lines):
    return HEADER + "".join("    %s\n" % line for line in lines)


def one_rule(text, runas="root"):
    parsed = rules.parse_listing(listing("(%s) NOPASSWD: %s" % (runas, text)))
    assert len(parsed["rules"]) == 1, parsed
    return parsed["rules"][0]


def wrapped(text, cols=80, indent=4):
    """The listing as sudo prints it to a terminal `cols` wide (lib/util/lbuf.c: break at the last
    space that fits, continuation lines indented, blanks after the break dropped)."""
    out = []
    for line in text.split("\n"):
        have = cols
        first = True
        while line:
            if len(line) > have and line.rfind(" ", 0, have) > 0:
                cut = line.rfind(" ", 0, have)
            else:
                cut = len(line)
            out.append(("" if first else " " * indent) + line[:cut])
            line = line[cut:].lstrip(" ")
            have = cols - indent
            first = False
        if not text:
            out.append("")
    return "\n".join(out)


# ---- parsing ---------------------------------------------------------------------------------

def test_lab_listing_parses_into_every_installed_rule():
    parsed = rules.parse_listing(LAB)
    assert parsed["user"] == "admin" and parsed["passwordless_default"] is False
    admin, installed = parsed["rules"][0], parsed["rules"][1:]
    assert (admin["runas"], admin["command"], admin["args"], admin["nopasswd"]) == ("ALL", "ALL", None, False)
    assert [r["text"] for r in installed] == DEFAULTS
    assert all(r["nopasswd"] and r["runas"] == "root" and not r["negated"] for r in installed)
    ls, ifconfig_down, ifconfig_inet = installed[:3]
    assert (ls["command"], ls["args"]) == ("/bin/ls", '""')
    assert (ifconfig_down["args"], ifconfig_down["regex_args"]) == ("bridge0 down", False)
    assert ifconfig_inet["regex_args"] and ifconfig_inet["args"].startswith("^" + TB) and ifconfig_inet["args"].endswith("$")


def test_a_line_wrapped_at_a_terminal_reads_the_same():
    assert max(len(line) for line in wrapped(LAB).splitlines()) <= 80
    assert rules.parse_listing(wrapped(LAB))["rules"] == rules.parse_listing(LAB)["rules"]


def test_tags_hold_along_the_line_until_changed_and_runas_starts_a_line():
    parsed = rules.parse_listing(listing(
        "(root) NOPASSWD: /sbin/ifconfig bridge0 down, PASSWD: /bin/sh, /bin/zsh, NOPASSWD: SETENV: /bin/ls \"\"",
        "(ALL : ALL) /usr/bin/true",
        "(root, operator) NOPASSWD: !/bin/cat"))
    seen = [(r["runas"], r["command"], r["nopasswd"], r["setenv"], r["negated"]) for r in parsed["rules"]]
    assert seen == [("root", "/sbin/ifconfig", True, False, False), ("root", "/bin/sh", False, False, False),
                    ("root", "/bin/zsh", False, False, False), ("root", "/bin/ls", True, True, False),
                    ("ALL : ALL", "/usr/bin/true", False, False, False),
                    ("root, operator", "/bin/cat", True, False, True)]


def test_escaped_characters_and_commas_inside_a_regex():
    fixed = one_rule(r"/usr/sbin/sysctl -w iogpu.wired_limit_mb\=4096")
    assert fixed["args"] == "-w iogpu.wired_limit_mb=4096" and fixed["text"] == r"/usr/sbin/sysctl -w iogpu.wired_limit_mb\=4096"
    parsed = rules.parse_listing(listing(r"(root) NOPASSWD: /usr/bin/pmset ^-a (sleep|womp), [01]$, /sbin/a\,b x\:y"))
    assert [(r["command"], r["args"]) for r in parsed["rules"]] == [
        ("/usr/bin/pmset", "^-a (sleep|womp), [01]$"), ("/sbin/a,b", "x:y")]


def test_always_passwordless_defaults_make_every_rule_passwordless():
    text = LAB.replace("    env_reset,", "    env_reset, !authenticate,")
    parsed = rules.parse_listing(text)
    assert parsed["passwordless_default"] and parsed["rules"][0]["nopasswd"]
    assert [p["code"] for p in rules.audit(text, expected=DEFAULTS)] == ["sudo_rule_unsafe"]


# ---- sudo's matching -------------------------------------------------------------------------

@pytest.mark.parametrize("args, line, allowed", [
    (None, "anything at all", True),
    ('""', "", True),
    ('""', "-la", False),
    ("bridge0 down", "bridge0 down", True),
    ("bridge0 down", "bridge0 down destroy", False),
    # fnmatch without flags: `*` spans spaces, slashes and further options.
    ("-w iogpu.wired_limit_mb=*", "-w iogpu.wired_limit_mb=1 kern.maxproc=1", True),
    ("bootstrap system /Library/LaunchDaemons/*", "bootstrap system /Library/LaunchDaemons/../../tmp/x.plist", True),
    ("en[0-9]", "en2", True),
    ("en[!0-9]", "en2", False),
    (r"a\*b", "a*b", True),
    (r"a\*b", "axb", False),
    ("x?", "x ", True),
    # ERE over the arguments joined by spaces, anchored by ^ and $.
    ("^-w iogpu[.]wired_limit_mb=[0-9]+$", "-w iogpu.wired_limit_mb=1 kern.maxproc=1", False),
    ("^-w iogpu[.]wired_limit_mb=[0-9]+$", "-w iogpu.wired_limit_mb=519168", True),
    ("^[[:digit:]]+$", "42", True),
    ("(?i)^SLEEP$", "sleep", True),
])
def test_arguments_match_as_sudoers_matches_them(args, line, allowed):
    rule = {"args": args, "regex_args": bool(args and args.startswith(("^", "(?i)^")))}
    assert rules.args_matcher(rule)(line) is allowed


# The default rules' regular expressions against the command lines mlx.distributed_config
# --auto-setup sends (IPConfigurator.setup: 192.168.a.b, /30), the lab's 198.19.0.0/16 ones, and
# options smuggled after an allowed prefix.
@pytest.mark.parametrize("rule_index, line, allowed", [
    (2, "en2 inet 192.168.0.1 netmask 255.255.255.252", True),
    (2, "en7 inet 198.19.251.1 netmask 255.255.255.252", True),
    (2, "en0 inet 192.168.0.1 netmask 255.255.255.252", False),
    (2, "en2 inet 192.168.0.1 netmask 255.255.255.252 mtu 1280", False),
    (2, "en2 inet 192.168.0.1 alias netmask 255.255.255.252", False),
    (2, "en2 inet 192.168.0.1 netmask 255.255.255.0", False),
    (2, "en2 down inet 192.168.0.1 netmask 255.255.255.252", False),
    (3, "change 192.168.0.2 -interface en2", True),
    (3, "change 198.19.251.2 -interface en3", True),
    (3, "change 192.168.0.2 -interface en0", False),
    (3, "change default -interface en2", False),
    (3, "change 192.168.0.2 -interface en2 -ifscope en0", False),
    (3, "add 192.168.0.2 -interface en2", False),
    (4, "iogpu.wired_limit_mb=519168", True),
    (4, "-w iogpu.wired_limit_mb=519168", True),
    (4, "-n iogpu.wired_limit_mb", True),
    (4, "iogpu.wired_limit_mb=1 kern.maxproc=1", False),
    (4, "-w iogpu.wired_limit_mb=1 -w kern.maxproc=1", False),
    (4, "-w kern.maxproc=1", False),
    (4, "iogpu.wired_limit_mb=-1", False),
])
def test_default_rules_take_the_tools_lines_and_refuse_smuggled_options(rule_index, line, allowed):
    rule = rules.parse_listing(LAB)["rules"][1 + rule_index]
    assert rules.args_matcher(rule)(line) is allowed


# ---- what a rule gives -----------------------------------------------------------------------

def test_the_default_rules_give_no_shell_and_no_arbitrary_code():
    assert rules.audit(LAB, expected=DEFAULTS, host="mac1") == []


@pytest.mark.parametrize("text, gives", [
    ("ALL", "runs any command"),
    ("/bin/launchctl", "loads a job from a plist anywhere (/tmp/x.plist)"),
    ("/bin/launchctl bootstrap system *", "loads a job from a plist anywhere"),
    ("/bin/launchctl bootstrap system /Library/LaunchDaemons/*", "loads a job from a plist anywhere"),
    ("/bin/launchctl load -w /opt/jobs/*.plist", "loads a job from a plist anywhere"),
    ("/bin/launchctl submit *", "submits a job that runs any program"),
    ("/bin/launchctl ^(kickstart|asuser) .*$", "runs any program"),
    ("/usr/sbin/sysctl", "writes any kernel value"),
    ("/usr/sbin/sysctl -w *", "writes any kernel value"),
    (r"/usr/sbin/sysctl -w iogpu.wired_limit_mb\=*", "writes any kernel value (kern.maxproc)"),
    ("/usr/sbin/sysctl ^-w iogpu[.]wired_limit_mb=.*$", "writes any kernel value (kern.maxproc)"),
    ("/bin/sh -c /opt/macops/bin/fix", "runs a shell"),
    ("/usr/bin/python3.12 /opt/x.py", "runs an interpreter"),
    ("/usr/bin/osascript", "runs an interpreter"),
    ("/usr/bin/vim /etc/hosts", "runs an editor or pager with a shell escape"),
    ("/usr/bin/env", "runs a program that runs other programs"),
    ("/usr/bin/tee /etc/hosts", "runs a program that writes any file as root"),
    ("/usr/sbin/*", "names programs by a pattern"),
    ("/usr/local/bin/", "names programs by a pattern"),
])
def test_rules_that_run_code_as_root_are_found(text, gives):
    what, _example = rules.rule_danger(one_rule(text))
    assert what.startswith(gives)


@pytest.mark.parametrize("text", [
    "/bin/launchctl kickstart -k system/*",  # restarts any loaded job: disruption, no new code
    "/bin/launchctl load -w /Library/LaunchDaemons/org.macops.exo.plist",
    "/bin/launchctl ^(load|unload) /Library/LaunchDaemons/org[.]macops[.][a-z-]+[.]plist$",
    "/usr/sbin/sysctl ^iogpu[.]wired_limit_mb=[0-9]+$",
    "/usr/sbin/sysctl -n hw.memsize",
    "/sbin/ifconfig",  # any interface change: the Thunderbolt fabric, not root code
    "/usr/bin/fdesetup authrestart",
])
def test_rules_that_run_no_new_code_pass(text):
    assert rules.rule_danger(one_rule(text)) is None


def test_setenv_lets_the_caller_choose_the_environment():
    rule = rules.parse_listing(listing("(root) NOPASSWD: SETENV: /sbin/shutdown -r now"))["rules"][0]
    assert rules.rule_danger(rule)[0].startswith("lets the caller set the command's environment")


# ---- the check -------------------------------------------------------------------------------

BROAD = LAB.rstrip("\n") + ", /bin/launchctl\n"


def test_a_broad_rule_is_an_error_naming_the_rule_and_an_example():
    found = rules.audit(BROAD, expected=DEFAULTS + ["/bin/launchctl"], host="mac1")
    assert [(p["code"], p["severity"], p["host"]) for p in found] == [("sudo_rule_unsafe", "error", "mac1")]
    assert "'(root) NOPASSWD: /bin/launchctl'" in found[0]["message"]
    assert "`sudo /bin/launchctl bootstrap system /tmp/x.plist`" in found[0]["message"]
    assert found[0]["details"] == {"rule": "/bin/launchctl", "runas": "root", "accepted": False,
                                   "gives": "loads a job from a plist anywhere (/tmp/x.plist)",
                                   "example": "bootstrap system /tmp/x.plist"}


def test_an_accepted_broad_rule_is_info_that_says_so():
    found = rules.audit(BROAD, expected=DEFAULTS, accepted=["/bin/launchctl"], host="mac1")
    assert [(p["code"], p["severity"]) for p in found] == [("sudo_rule_unsafe_accepted", "info")]
    assert found[0]["details"]["accepted"] is True and "sudoers_accepted_unsafe_rules" in found[0]["message"]
    # Accepting one rule accepts no other.
    other = BROAD.rstrip("\n") + ", /usr/sbin/sysctl\n"
    codes = [p["code"] for p in rules.audit(other, accepted=["/bin/launchctl"])]
    assert codes == ["sudo_rule_unsafe_accepted", "sudo_rule_unsafe"]


def test_a_rule_from_another_file_counts_too():
    # What a hand-made /etc/sudoers.d/90-admin-nopasswd (`admin ALL = (ALL) NOPASSWD: ALL`) adds.
    text = LAB.rstrip("\n") + "\n    (ALL) NOPASSWD: ALL\n"
    found = rules.audit(text, expected=DEFAULTS)
    assert [p["details"]["rule"] for p in found] == ["ALL"] and "runs any command" in found[0]["message"]


def test_a_failed_listing_or_a_missing_rule_is_inactive():
    failed = rules.audit("", rc=1, stderr="sudo: a password is required\n", host="mac2")
    assert [(p["code"], p["details"]) for p in failed] == [("sudo_rules_inactive", {"rc": 1})]
    assert "a password is required" in failed[0]["message"]
    missing = rules.audit(LAB, expected=DEFAULTS + [r"/usr/sbin/sysctl -w iogpu.wired_limit_mb\=1"])
    assert [p["details"] for p in missing] == [{"missing": [r"/usr/sbin/sysctl -w iogpu.wired_limit_mb\=1"]}]


def test_the_audit_returns_problems_in_the_one_shape():
    found = rules.audit(BROAD, expected=DEFAULTS, host="mac1")
    assert found and all(is_problem(p) for p in found)
    assert rules.audit(LAB, expected=DEFAULTS) == []


def test_entries_are_checked_before_they_are_written():
    entries = DEFAULTS + ["/bin/launchctl", r"/usr/sbin/sysctl -w iogpu.wired_limit_mb\=*", "/bin/bash"]
    found = rules.unsafe_entries(entries, accepted=["/bin/bash"])
    assert [(f["entry"], f["example"]) for f in found] == [
        ("/bin/launchctl", "bootstrap system /tmp/x.plist"),
        (r"/usr/sbin/sysctl -w iogpu.wired_limit_mb\=*", "-w iogpu.wired_limit_mb=1 kern.maxproc=1")]


def test_a_sudoers_file_sudo_cannot_parse_is_found_from_its_complaint():
    # sudo 1.9.13+ (error_recovery) skips the broken line, lists the rest and names the file on stderr.
    stderr = ("sudo: /etc/sudoers.d/zz-broken:1:35: syntax error\n"
              "admin ALL=(ALL) NOPASSWD /usr/bin/true\n                                  ^\n")
    found = rules.audit(LAB, stderr=stderr, expected=DEFAULTS, host="mac1")
    assert [(p["code"], p["host"]) for p in found] == [("sudoers_syntax_error", "mac1")]
    assert "zz-broken:1:35" in found[0]["message"] and found[0]["details"]["errors"] == [stderr.splitlines()[0]]
    # A clean stderr (or none) is no finding.
    assert rules.audit(LAB, stderr="", expected=DEFAULTS, host="mac1") == []
