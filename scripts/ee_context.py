#!/usr/bin/env python3
"""Check the execution environment of docs/awx/execution-environment.yml without a container engine.

Builds the collection tarball, runs `ansible-builder create` on the example file and checks
what the image would get:

- the context: the Containerfile installs the pinned ansible-core and ansible-runner of
  requirements/controller.txt and introspects the installed collections; the galaxy
  requirements install the tarball and every collection galaxy.yml depends on;
- the collection's own dependencies: ansible-builder resolves them only inside the build (its
  builder stage runs `introspect` on the installed collections), so the same introspection runs
  here on the tarball in the context, unpacked. Its Python requirements must cover every
  third-party module a plugin imports (found in the code, not in meta/), each at a range that
  admits the release the tests run; its system requirements must hold an RPM package for the
  OpenSSH client and for every program a controller plugin looks up on PATH.

Leaves the definition, the tarball, the context and the introspection in EE_DIR (default
artifacts/ee/), ready for `ansible-builder build`. Exits 1 with every problem found.
"""

import ast
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, ".venv", "bin")
DEFINITION = os.path.join(ROOT, "docs", "awx", "execution-environment.yml")
TARBALL = "macops-cluster.tar.gz"  # the name the definition's additional_build_files expects
# The controller connects to every Mac with OpenSSH (ansible.cfg); no plugin names `ssh`.
ALWAYS_SYSTEM = {"openssh-clients": "the OpenSSH client every connection to a Mac uses"}
# Programs a controller plugin looks up with shutil.which(), and the RPM package that has each.
# A new lookup fails the check until it is added here and to meta/ee-bindep.txt.
PROGRAM_PACKAGES = {"dot": "graphviz"}

problems = []


def fail(message):
    problems.append(message)
    print("ee: MISSING: %s" % message)


def run(*argv, cwd=None):
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    if proc.returncode != 0:
        sys.exit("ee: FAILED: %s (rc %d)\n%s" % (" ".join(argv), proc.returncode, proc.stdout))
    return proc.stdout


def plugin_sources():
    for base, _dirs, files in os.walk(os.path.join(ROOT, "plugins")):
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(base, name)


def imported_distributions():
    """{distribution: [files]} of every third-party module imported anywhere in plugins/, lazy
    imports inside functions included (matplotlib is one)."""
    owners = importlib.metadata.packages_distributions()
    found = {}
    for path in plugin_sources():
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), filename=path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                tops = [node.module.split(".")[0]]
            else:
                continue
            for top in tops:
                if top in sys.stdlib_module_names or top in ("__future__", "ansible", "ansible_collections"):
                    continue
                for dist in owners.get(top) or ["(no installed distribution has module %s)" % top]:
                    found.setdefault(dist, set()).add(os.path.relpath(path, ROOT))
    return found


def looked_up_programs():
    """{program: [files]} of shutil.which("<program>") calls outside modules/ and module_utils/."""
    found = {}
    for path in plugin_sources():
        rel = os.path.relpath(path, ROOT)
        if rel.startswith(("plugins/modules/", "plugins/module_utils/")):
            continue  # those run on the Macs
        with open(path, encoding="utf-8") as handle:
            for program in re.findall(r"shutil\.which\(\s*[\"']([^\"']+)[\"']", handle.read()):
                found.setdefault(program, set()).add(rel)
    return found


def pinned(requirements_file):
    """{canonical name: version} of the name==version lines of a requirements file."""
    pins = {}
    with open(os.path.join(ROOT, requirements_file), encoding="utf-8") as handle:
        for line in handle:
            line = line.split("#", 1)[0].strip()
            if "==" in line:
                req = Requirement(line)
                pins[canonicalize_name(req.name)] = str(req.specifier).lstrip("=")
    return pins


def without_comment(line):
    return re.sub(r"\s+#.*$", "", line).strip()


def check_context(context, controller_pins):
    with open(os.path.join(context, "Containerfile"), encoding="utf-8") as handle:
        containerfile = handle.read()
    refs = re.search(r'^ARG ANSIBLE_INSTALL_REFS="([^"]*)"', containerfile, re.M)
    refs = refs.group(1).split() if refs else []
    for dist in ("ansible-core", "ansible-runner"):
        want = "%s==%s" % (dist, controller_pins.get(dist))
        if want not in refs:
            fail("the image installs %s, not %s (requirements/controller.txt)" % (refs, want))
    if "introspect.py introspect" not in containerfile:
        fail("the Containerfile never introspects the collections: their dependencies would not be installed")

    with open(os.path.join(context, "_build", "requirements.yml"), encoding="utf-8") as handle:
        galaxy = {entry["name"]: entry for entry in (yaml.safe_load(handle) or {}).get("collections", [])}
    if galaxy.get("collections/%s" % TARBALL, {}).get("type") != "file":
        fail("the galaxy requirements do not install the collection tarball (collections/%s, type file)" % TARBALL)
    if not os.path.isfile(os.path.join(context, "_build", "collections", TARBALL)):
        fail("the context lacks the tarball _build/collections/%s" % TARBALL)
    with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as handle:
        depends = yaml.safe_load(handle).get("dependencies") or {}
    bundled = os.path.join(sys.prefix, "lib", "python%d.%d" % sys.version_info[:2], "site-packages",
                           "ansible_collections")
    for name in sorted(depends):
        if name not in galaxy:
            fail("the galaxy requirements lack %s, which galaxy.yml depends on" % name)
            continue
        manifest = os.path.join(bundled, *name.split("."), "MANIFEST.json")
        if os.path.exists(manifest):
            with open(manifest, encoding="utf-8") as handle:
                tested = json.load(handle)["collection_info"]["version"]
            if str(galaxy[name].get("version")) != tested:
                fail("the image gets %s %s, the tests run %s (the `ansible` package's)" % (
                    name, galaxy[name].get("version"), tested))


def check_introspection(data):
    python = {}
    for line in data.get("python") or []:
        if "# from collection macops.cluster" in line:
            req = Requirement(without_comment(line))
            python[canonicalize_name(req.name)] = req
    # ansible-builder drops these from every collection's requirements: the image has them.
    from ansible_builder._target_scripts.introspect import EXCLUDE_REQUIREMENTS
    for dist, files in sorted(imported_distributions().items()):
        name = canonicalize_name(dist)
        if name in EXCLUDE_REQUIREMENTS:
            continue
        if name not in python:
            fail("Python package %s (imported by %s) is not in the collection's requirements "
                 "(meta/ee-requirements.txt)" % (dist, ", ".join(sorted(files))))
            continue
        try:
            tested = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
        if not python[name].specifier.contains(tested, prereleases=True):
            fail("%s: the tests run %s, which the requirement does not admit" % (python[name], tested))
        print("ee: ok: python %s (tests run %s; imported by %s)" % (python[name], tested, ", ".join(sorted(files))))

    rpm = set()
    for line in data.get("system") or []:
        if "# from collection macops.cluster" not in line:
            continue
        spec = without_comment(line)
        profiles = re.findall(r"\[([^\]]*)\]", spec)
        words = " ".join(profiles).split()
        if not words or "platform:rpm" in words:
            rpm.add(spec.split()[0])
    wanted = dict(ALWAYS_SYSTEM)
    for program, files in sorted(looked_up_programs().items()):
        package = PROGRAM_PACKAGES.get(program)
        if package is None:
            fail("%s looks up the program %s: add its RPM package to meta/ee-bindep.txt and to "
                 "PROGRAM_PACKAGES in scripts/ee_context.py" % (", ".join(sorted(files)), program))
            continue
        wanted[package] = "%s, which %s runs" % (program, ", ".join(sorted(files)))
    for package, why in sorted(wanted.items()):
        if package in rpm:
            print("ee: ok: system %s [platform:rpm] (%s)" % (package, why))
        else:
            fail("system package %s for RPM platforms (%s) is not in meta/ee-bindep.txt" % (package, why))


def main():
    out = os.path.abspath(os.environ.get("EE_DIR") or os.path.join(ROOT, "artifacts", "ee"))
    controller_pins = pinned("requirements/controller.txt")
    with tempfile.TemporaryDirectory(prefix="macops-ee.") as work:
        run(os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--force", "--output-path", work, ROOT)
        built = [name for name in os.listdir(work) if name.endswith(".tar.gz")]
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        shutil.copy(os.path.join(work, built[0]), os.path.join(out, TARBALL))
        shutil.copy(DEFINITION, out)
        run(os.path.join(BIN, "ansible-builder"), "create", "-f", "execution-environment.yml", "-c", "context",
            "--output-filename", "Containerfile", cwd=out)
        print("ee: ok: ansible-builder create: %s/context" % os.path.relpath(out, ROOT))
        check_context(os.path.join(out, "context"), controller_pins)

        # The collection as the galaxy stage installs it, from the tarball in the context.
        tree = os.path.join(work, "collections", "ansible_collections", "macops", "cluster")
        os.makedirs(tree)
        with tarfile.open(os.path.join(out, "context", "_build", "collections", TARBALL)) as tar:
            tar.extractall(tree, filter="data")
        for shipped in ("meta/execution-environment.yml", "meta/ee-requirements.txt", "meta/ee-bindep.txt"):
            if not os.path.isfile(os.path.join(tree, shipped)):
                fail("the tarball lacks %s (galaxy.yml build_ignore?)" % shipped)
        text = run(os.path.join(BIN, "ansible-builder"), "introspect", "--sanitize",
                   "--write-pip", os.path.join(out, "requirements.txt"),
                   "--write-bindep", os.path.join(out, "bindep.txt"), os.path.join(work, "collections"))
    with open(os.path.join(out, "introspect.yml"), "w", encoding="utf-8") as handle:
        handle.write(text)
    check_introspection(yaml.safe_load(text[text.index("---"):]) or {})
    if problems:
        print("ee: FAILED: %d problem(s); the introspection is in %s/introspect.yml"
              % (len(problems), os.path.relpath(out, ROOT)))
        return 1
    print("ee: the execution environment gets every dependency; build it with:\n"
          "  ansible-builder build -f %(d)s/execution-environment.yml -c %(d)s/context -t macops-cluster-ee"
          % {"d": os.path.relpath(out, ROOT)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
