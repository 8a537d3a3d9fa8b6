"""Homebrew: brew, linking the Linux tools lab.json names as formulae."""
import json
import os
import subprocess

from ..formats import admin
from .registry import command
from .state import Fail, err, is_root, out


HOMEBREW = "/opt/homebrew"


def _formula_source(host, formula):
    """(executable name, Linux target) of what `brew install FORMULA` links, from lab.json:
    `pythons` {"3.12": interpreter} for python@X.Y, `tools` {"uv": binary} for the rest."""
    if formula.startswith("python@"):
        version = formula.split("@", 1)[1]
        target = host.world.get("pythons", {}).get(version)
        if target and os.path.isdir(target):
            target = os.path.join(target, "bin", "python" + version)
        return ("python" + version, target) if target else None
    target = host.world.get("tools", {}).get(formula)
    return (formula, target) if target else None


def _formula_version(executable, target):
    proc = subprocess.run([target, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    words = proc.stdout.split()
    return words[1] if len(words) > 1 else "0"


@command("/opt/homebrew/bin/brew")
def cmd_brew(host, args):
    if is_root():
        raise Fail(1, admin.BREW_AS_ROOT)
    prefix = HOMEBREW
    cellar = host.fs(prefix + "/Cellar")
    if not args:
        raise Fail(1, "Example usage:\n  brew install FORMULA...\n")
    verb, rest = args[0], args[1:]
    if verb == "--prefix":
        out(prefix + ("/opt/" + rest[0] if rest else "") + "\n")
        return 0
    if verb == "--version":
        out("Homebrew 4.6.0\n")
        return 0
    if verb in ("list", "ls"):
        names = sorted(os.listdir(cellar)) if os.path.isdir(cellar) else []
        wanted = [r for r in rest if not r.startswith("-")]
        if wanted:
            missing = [w for w in wanted if w not in names]
            if missing:
                raise Fail(1, "Error: No such keg: {}/Cellar/{}\n".format(prefix, missing[0]))
            names = wanted
        if "--versions" in rest:
            out("".join("{} {}\n".format(n, " ".join(sorted(os.listdir(os.path.join(cellar, n)))))
                        for n in names))
        else:
            out("".join(n + "\n" for n in names))
        return 0
    if verb == "info" and "--json=v2" in rest:
        # The shape community.general.homebrew reads (name, full_name, tap, aliases, oldnames,
        # installed, outdated); a subset of Homebrew's real `brew info --json=v2` document.
        formulae = []
        for formula in [r for r in rest if not r.startswith("-")]:
            source = _formula_source(host, formula)
            if source is None:
                raise Fail(1, 'Error: No available formula with the name "{}".\n'.format(formula))
            kegs = os.path.join(cellar, formula)
            installed = sorted(os.listdir(kegs)) if os.path.isdir(kegs) else []
            version = _formula_version(*source)
            formulae.append({
                "name": formula, "full_name": formula, "tap": "homebrew/core", "aliases": [],
                "oldnames": [], "versions": {"stable": version, "head": None, "bottle": True},
                "installed": [{"version": v, "installed_as_dependency": False, "installed_on_request": True}
                              for v in installed],
                "linked_keg": installed[-1] if installed else None, "outdated": False,
                "pinned": False, "keg_only": False,
            })
        out(json.dumps({"formulae": formulae, "casks": []}, indent=2) + "\n")
        return 0
    if verb in ("install", "reinstall"):
        rc = 0
        for formula in [r for r in rest if not r.startswith("-")]:
            source = _formula_source(host, formula)
            if source is None:
                err(admin.brew_not_in_lab(formula) if formula in admin.LAB_TOOL_FORMULAE
                    else admin.brew_no_formula(formula))
                rc = 1
                continue
            executable, target = source
            version = _formula_version(executable, target)
            keg = os.path.join(cellar, formula, version)
            if os.path.isdir(keg) and verb == "install":
                err(admin.brew_already(formula, version))
                continue
            os.makedirs(os.path.join(keg, "bin"), exist_ok=True)
            _symlink(target, os.path.join(keg, "bin", executable))
            _symlink("../Cellar/{}/{}".format(formula, version),
                     host.fs(prefix + "/opt/" + formula))
            os.makedirs(host.fs(prefix + "/bin"), exist_ok=True)
            _symlink("../Cellar/{}/{}/bin/{}".format(formula, version, executable),
                     host.fs(prefix + "/bin/" + executable))
            out(admin.brew_poured(prefix, formula, version))
        return rc
    if verb == "uninstall":
        import shutil
        for formula in rest:
            kegs = os.path.join(cellar, formula)
            if not os.path.isdir(kegs):
                raise Fail(1, "Error: No such keg: {}/Cellar/{}\n".format(prefix, formula))
            for version in os.listdir(kegs):
                for executable in os.listdir(os.path.join(kegs, version, "bin")):
                    link = host.fs(prefix + "/bin/" + executable)
                    if os.path.islink(link):
                        os.unlink(link)
            shutil.rmtree(kegs)
            if os.path.islink(host.fs(prefix + "/opt/" + formula)):
                os.unlink(host.fs(prefix + "/opt/" + formula))
            out("Uninstalling {}/Cellar/{}...\n".format(prefix, formula))
        return 0
    raise Fail(1, "Error: Unknown command: brew {}\n".format(verb))


def _symlink(target, link):
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.islink(link) or os.path.exists(link):
        os.unlink(link)
    os.symlink(target, link)
