"""The hosts' package source: a PEP 503 simple index of $MACLAB_ROOT/wheelhouse on
http://198.18.<n>.1:8101/simple/ (lab n's controller address), served by a stdlib HTTP server
(PID in $MACLAB_ROOT/http.pid)."""
import html
import os
import re
import shutil
import subprocess
import sys

from . import exo_dist, layout

CACHE_DIR = os.path.join(layout.REPO_ROOT, ".cache", "wheelhouse")
# What the cache should hold (`maclab wheels` fills it with pip download, binary only).
REQUIREMENTS = ("mlx[cpu]==0.32.4", "mlx-lm==0.32.2", "prometheus-client==0.26.0")


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def project_of(filename):
    if filename.endswith(".whl"):
        return normalize(filename.split("-")[0])
    if filename.endswith((".tar.gz", ".zip")):
        return normalize(filename.rsplit("-", 1)[0])
    return None


def fill(paths, cache_dir=CACHE_DIR):
    """Link the cached distributions into the lab, build the lab's own (its exo stand-in,
    lab/macsim/exo_dist.py) and write the simple index. Returns count."""
    os.makedirs(paths.wheelhouse, exist_ok=True)
    files = sorted(f for f in os.listdir(cache_dir)) if os.path.isdir(cache_dir) else []
    projects = {}
    for name in exo_dist.build_all(paths.wheelhouse):
        projects.setdefault(project_of(name), []).append(name)
    for name in files:
        project = project_of(name)
        if project is None:
            continue
        dest = os.path.join(paths.wheelhouse, name)
        if not os.path.exists(dest):
            try:
                os.link(os.path.join(cache_dir, name), dest)
            except OSError:
                shutil.copy2(os.path.join(cache_dir, name), dest)
        projects.setdefault(project, []).append(name)
    simple = os.path.join(paths.wheelhouse, "simple")
    os.makedirs(simple, exist_ok=True)
    links = "".join('<a href="%s/">%s</a><br>\n' % (p, p) for p in sorted(projects))
    _page(os.path.join(simple, "index.html"), "Simple index", links)
    for project, names in projects.items():
        os.makedirs(os.path.join(simple, project), exist_ok=True)
        body = "".join('<a href="../../%s">%s</a><br>\n' % (html.escape(n), html.escape(n)) for n in sorted(names))
        _page(os.path.join(simple, project, "index.html"), "Links for %s" % project, body)
    return sum(len(v) for v in projects.values())


def _page(path, title, body):
    with open(path, "w") as handle:
        handle.write("<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" content=\"1.0\">"
                     "<title>%s</title></head><body>\n%s</body></html>\n" % (title, body))


def download(python=None):
    """Fill the repo cache with pip download (wheels only) for the hosts' Homebrew python."""
    os.makedirs(CACHE_DIR, exist_ok=True)
    pip = [python or sys.executable, "-m", "pip"]
    subprocess.run(pip + ["download", "--only-binary=:all:", "-d", CACHE_DIR] + list(REQUIREMENTS), check=True)


def serve(paths, python):
    """Start the index server detached; return its PID."""
    with open(os.path.join(paths.root, "http.log"), "ab") as log:
        proc = subprocess.Popen([python, "-m", "http.server", "--bind", layout.CONTROLLER_IP, "--directory",
                                 paths.wheelhouse, str(layout.PACKAGE_PORT)],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    with open(paths.http_pid, "w") as handle:
        handle.write("%d\n" % proc.pid)
    return proc.pid
