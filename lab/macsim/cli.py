"""`maclab`: bring the simulated Mac cluster up and down, look at it, break it."""
import argparse
import json
import os
import sys

from . import faults, lab as labmod, layout, net, profiles, testmodel, topology

FAULT_HELP = """\
cut A B              unplug the cable(s) between A and B
degrade A B          swap in a TB4 cable (40 Gb/s, lower rate)
slow A B RATE        the cable(s) carry only RATE (tc form, e.g. 40mbit) though they still negotiate TB5
rdma-off HOST        RDMA disabled (as after an NVRAM reset)
build HOST BUILD     macOS build differs (e.g. 25C57)
bridge-on HOST       Thunderbolt Bridge back on, over every TB port
ip-reset HOST        an exo-style LaunchDaemon keeps resetting TB services to DHCP
no-return HOST       the host's next reboot never comes back
down HOST            halt now
hang HOST            the host hangs: its processes stop, its cables stay lit (a power cycle or
                     `fault clear` ends it)
up HOST              power on
disk-full HOST SIZE  the boot volume is full (SIZE free bytes, e.g. 0 or 500M)
wired-reset HOST     iogpu.wired_limit_mb back to 0
filevault-on HOST    FileVault on: reboots wait at the unlock screen (`fault up` unlocks)
                     unless started with `fdesetup authrestart`
authrestart-unsupported HOST  fdesetup supportsauthrestart says false (authrestart refuses)
filevault-pending HOST  FileVault "will be enabled after the next restart": that restart
                     waits at the unlock screen (authrestart cannot skip it), then it is on
slow-boot HOST S     the host's next boots take S seconds
ssd HOST PORT        an external SSD (not a Mac) on the free Thunderbolt port PORT (a receptacle
                     number, e.g. 6), listed under that port as real Macs list it
sleep-on HOST        pmset sleep 10: the host sleeps when idle
autorestart-off HOST pmset autorestart 0: the host stays off after a power cut
auto-update-on HOST  Automatic Updates install macOS updates by themselves
                     (/Library/Preferences/com.apple.SoftwareUpdate.plist)
security-auto-on HOST  security responses install by themselves (CriticalUpdateInstall,
                     SplatEnabled), macOS updates do not: macOS's default
security-response HOST  HOST installed a security response by itself: macOS X (a), a response's
                     longer build (the others keep theirs: the cluster's builds split)
mdm-deferral HOST DAYS  HOST enrolled in an MDM that defers minor updates DAYS days: its macOS
                     updates are held back (profiles status, Managed Preferences)
mdm-enforced HOST VERSION  HOST enrolled in an MDM whose declarative management enforces macOS
                     VERSION three days from now (softwareupdated's DDM state)
update-pending HOST  the next macOS point release waits in `softwareupdate --list`
package-version HOST NAME VERSION  NAME (e.g. mlx) installed at VERSION in every environment
                     under /opt (the dist-info METADATA, as pip leaves it)
sudoers-broken HOST  a sudoers drop-in with a syntax error (sudo skips it and says so)
ssh-key-lost HOST    the peers' mesh keys gone from HOST's authorized_keys
pf-off HOST          pf disabled, as after `sudo pfctl -d` (the rules stay loaded)
homebrew-missing HOST  Homebrew not installed: no /opt/homebrew/bin/brew
exo-version HOST V   exo V on HOST (pip from the lab's index: the pinned version or the one
                     before), restarted: exo nodes on different versions never meet
exo-stale-id HOST    HOST's exo comes back with a new node id; its peers keep the old one
exo-removed HOST     exo gone from HOST while exo.app's io.exo.networksetup daemon stays
exo-port-blocked HOST  exo's API port (TCP 52415) dropped on HOST's Thunderbolt ports (nft in
                     its namespace, as a pf block would): peers cannot confirm it over the cables
exo-runner-fails HOST  every runner HOST's exo places fails once it loads (RunnerFailed)
update-hang HOST     HOST's next macOS install stops after "Downloaded:" and never restarts (a restart
                     boots the new build)
update-auth-fails HOST  HOST's next macOS install says "Failed to authenticate" after "Downloaded:"
                     though the password is right (macOS 14.5, 15.3, 15.4), a download too
update-install-auth-fails HOST  the same at HOST's install only: its download authenticates
update-slows HOST PERCENT  the build HOST's next macOS install boots is slower: every process of HOST
                     paused PERCENT % of each tenth of a second, until `fault clear`
serve-stopped HOST   serve-model.yml's job on HOST booted out: its rank does not run
serve-hung HOST      HOST's serving rank stopped (SIGSTOP): alive, but every collective waits on it
serve-client-blocked HOST PORT
                     the controller's packets to HOST's TCP PORT dropped (serving's firewall as a run from
                     another controller left it)
port-taken HOST PORT another program on HOST listens on TCP PORT (every address)
memory-used HOST GB  other programs on HOST hold GB of memory (vm_stat: active pages, not free)
clear                undo all faults
"""


def _parser():
    parser = argparse.ArgumentParser(prog="maclab", description=__doc__)
    parser.add_argument("--root", default=None, help="lab root (default $MACLAB_ROOT or %s)" % layout.DEFAULT_ROOT)
    sub = parser.add_subparsers(dest="verb", required=True)

    up = sub.add_parser("up", help="create the lab (idempotent)")
    up.add_argument("--nodes", type=int, default=4)
    up.add_argument("--spare", type=int, default=0,
                    help="the last N hosts are spare Macs: up, cables unplugged, not in the group macs")
    up.add_argument("--topology", default="mesh", help="mesh, ring, line or a JSON cable file")
    up.add_argument("--profiles", default=None,
                    help="comma list, one per node (known: %s)" % ", ".join(sorted(profiles.PROFILES)))
    up.add_argument("--link-rate", default=topology.DEFAULT_TB5_RATE, help="tbf rate of a TB5 cable")
    up.add_argument("--boot-seconds", type=float, default=5.0)
    up.add_argument("--macos", default="%s:%s" % (profiles.DEFAULT_OS["version"], profiles.DEFAULT_OS["build"]),
                    help="VERSION:BUILD of every host")
    up.add_argument("--rdma", choices=("on", "off"), default="on",
                    help="RDMA state at first boot: on, as in the reference cluster (enabled in Recovery "
                         "beforehand), or off, as on a Mac fresh from the box")
    up.add_argument("--name", default="lab", help="lab name; identities derive from it")
    up.add_argument("--ssh-timeout", type=float, default=30.0)
    up.add_argument("--skip-selfcheck", action="store_true", help="development only")
    up.add_argument("--from-bundle", metavar="BUNDLE",
                    help="a support bundle (support-bundle.yml): as many hosts as its nodes, each printing what its "
                         "node printed (maclab replay)")

    replaying = sub.add_parser("replay", help="the hosts print what a support bundle's nodes printed")
    replaying.add_argument("bundle", nargs="?", help="the support bundle (.tar.gz)")
    replaying.add_argument("--clear", action="store_true", help="the lab's own answers again")
    sub.add_parser("down", help="remove the lab, also after a crash (idempotent)")
    status = sub.add_parser("status")
    status.add_argument("--json", action="store_true")
    ssh = sub.add_parser("ssh", help="maclab ssh HOST -- CMD")
    ssh.add_argument("host")
    ssh.add_argument("command", nargs=argparse.REMAINDER)
    plug = sub.add_parser("plug", help="plug in the cables of HOST (a spare Mac joins the cabling)")
    plug.add_argument("host")
    unplug = sub.add_parser("unplug", help="unplug every cable of HOST (a Mac leaves the cabling)")
    unplug.add_argument("host")
    wait = sub.add_parser("wait", help="wait until every powered-on host answers SSH")
    wait.add_argument("--timeout", type=float, default=60.0)
    recovery = sub.add_parser("recovery", help="reboot HOST into recoveryOS")
    recovery.add_argument("host")
    sub.add_parser("wheels", help="fill .cache/wheelhouse with pip download")
    model = sub.add_parser("model", help="write the lab's tiny random-weight model (qwen2, mlx-lm loads and "
                                         "pipelines it) into a directory or onto hosts")
    where = model.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", help="a directory on the controller")
    where.add_argument("--host", action="append", help="a host to place it on (repeat; `all` for every host)")
    model.add_argument("--path", default="/Users/%s/models/tiny-qwen2" % layout.ADMIN_USER,
                       help="where on the hosts (under /Users)")
    for name, value in sorted(testmodel.DEFAULTS.items()):
        model.add_argument("--" + name.replace("_", "-"), type=int, default=value)
    offer = sub.add_parser("offer-update", help="softwareupdate offers macOS VERSION (BUILD) on HOSTs (default all)")
    offer.add_argument("version")
    offer.add_argument("build")
    offer.add_argument("hosts", nargs="*")
    offer.add_argument("--seconds", type=float, help="how long an install downloads and prepares (the update time U)")
    offer.add_argument("--jitter", type=float, help="each update phase's time drawn within +-JITTER (0.5: 50 %%) of it")
    installer = sub.add_parser("offer-installer", help="Apple's full installer of macOS VERSION (BUILD) is offered "
                               "on HOSTs (default all)")
    installer.add_argument("version")
    installer.add_argument("build")
    installer.add_argument("hosts", nargs="*")
    installer.add_argument("--deferred", action="store_true", help="listed with Deferred: YES")
    console = sub.add_parser("console", help="USER is logged in at the screen of HOSTs (default all); none: the "
                             "login window")
    console.add_argument("user")
    console.add_argument("hosts", nargs="*")
    running = sub.add_parser("macos", help="HOSTs (default all) run macOS VERSION (BUILD), no macOS update offered")
    running.add_argument("version")
    running.add_argument("build")
    running.add_argument("hosts", nargs="*")
    fault = sub.add_parser("fault", help="inject a fault", formatter_class=argparse.RawDescriptionHelpFormatter,
                           epilog=FAULT_HELP)
    fault.add_argument("kind", choices=sorted(faults.KINDS))
    fault.add_argument("args", nargs="*")
    return parser


def _os_info(value):
    version, _, build = value.partition(":")
    return profiles.os_info(version, build or profiles.DEFAULT_OS["build"])


def _print_status(data):
    print("lab %s at %s (package index %s)" % (data["name"], data["root"], "up" if data["http"] else "DOWN"))
    print("%-6s %-13s %-10s %-10s %-9s %-5s %-4s %-14s %s" % ("host", "address", "profile", "power", "mode",
                                                             "boots", "ssh", "macOS", "rdma"))
    for h in data["hosts"]:
        print("%-6s %-13s %-10s %-10s %-9s %-5d %-4s %-14s %s" % (
            h["name"], h["ip"], h["profile"], h["power"] if h["supervisor"] else "NO-SUPERVISOR", h["mode"],
            h["boot_count"], "yes" if h["ssh"] else "no", h["os"], "on" if h["rdma"] else "off"))
    for c in data["cables"]:
        print("cable %d: %s %s <-> %s %s  %s %s %s" % (c["id"], c["a"], c["a_device"], c["b"], c["b_device"],
                                                    c["kind"], c["speed"], c.get("state", "connected")))


def main(argv=None):
    args = _parser().parse_args(argv)
    paths = layout.Paths(args.root)
    try:
        if args.verb == "up":
            from . import replay
            nodes = replay.bundle_size(args.from_bundle) if args.from_bundle else args.nodes
            plan = labmod.plan(args.name, nodes, args.topology,
                               args.profiles.split(",") if args.profiles else None,
                               args.link_rate, args.boot_seconds, _os_info(args.macos),
                               rdma=args.rdma == "on", spare=args.spare)
            labmod.up(paths, plan, ssh_timeout=args.ssh_timeout, selfcheck_enabled=not args.skip_selfcheck)
            if args.from_bundle:
                print(replay.replay(paths, args.from_bundle, [h["name"] for h in labmod.load(paths)["hosts"]]))
        elif args.verb == "replay":
            from . import replay
            hosts = [h["name"] for h in labmod.load(paths)["hosts"]]
            if not args.clear and not args.bundle:
                raise ValueError("replay: give a support bundle, or --clear")
            print(replay.clear(paths, hosts) if args.clear else replay.replay(paths, args.bundle, hosts))
        elif args.verb == "down":
            labmod.down(paths)
        elif args.verb == "status":
            data = labmod.status(paths)
            if args.json:
                json.dump(data, sys.stdout, indent=2)
                print()
            else:
                _print_status(data)
        elif args.verb == "ssh":
            command = args.command[1:] if args.command[:1] == ["--"] else args.command
            argv = faults.host_shell_argv(paths, args.host, command)
            os.execvp(argv[0], argv)
        elif args.verb in ("plug", "unplug"):
            print((faults.plug if args.verb == "plug" else faults.unplug)(paths, args.host))
        elif args.verb == "wait":
            labmod.wait(paths, labmod.load(paths), timeout=args.timeout)
        elif args.verb == "recovery":
            faults.reboot(paths, args.host, next_mode="recovery")
        elif args.verb == "wheels":
            from . import wheelhouse
            wheelhouse.download()
        elif args.verb == "model":
            settings = dict((name, getattr(args, name)) for name in testmodel.DEFAULTS)
            if args.out:
                written = testmodel.write(args.out, **settings)
            else:
                hosts = [h["name"] for h in labmod.load(paths)["hosts"]] if args.host == ["all"] else args.host
                written = testmodel.place(paths, hosts, args.path, **settings)
            print("model: %d layers, %d parameters, %d files" % (written["layers"], written["parameters"],
                                                                 len(written["files"])))
        elif args.verb == "offer-update":
            from .faults_settings import offer_update
            hosts = args.hosts or [h["name"] for h in labmod.load(paths)["hosts"]]
            print(offer_update(paths, hosts, args.version, args.build, args.seconds, args.jitter))
        elif args.verb == "offer-installer":
            from .faults_settings import offer_installer
            hosts = args.hosts or [h["name"] for h in labmod.load(paths)["hosts"]]
            print(offer_installer(paths, hosts, args.version, args.build, args.deferred))
        elif args.verb == "console":
            from .faults_settings import log_in_at_console
            hosts = args.hosts or [h["name"] for h in labmod.load(paths)["hosts"]]
            print(log_in_at_console(paths, hosts, args.user))
        elif args.verb == "macos":
            from .faults_settings import run_macos
            hosts = args.hosts or [h["name"] for h in labmod.load(paths)["hosts"]]
            print(run_macos(paths, hosts, args.version, args.build))
        elif args.verb == "fault":
            print(faults.apply(paths, args.kind, args.args))
        return 0
    except (labmod.LabError, faults.FaultError, net.NetError, ValueError) as exc:
        print("maclab: %s" % exc, file=sys.stderr)
        return 1
