"""A stand-in for the Hugging Face Hub's HTTP API, for the lab (which has no internet): it serves model
directories as repositories, so deploy-model.yml's hub source (huggingface_hub's snapshot_download on
one node, HF_ENDPOINT pointed here) really downloads over the lab's management network.

STAND-IN, not the Hub. It answers only what snapshot_download asks of a public model repository, in the
shapes huggingface_hub 2.x reads (its hf_api.py and file_download.py; the API itself is not documented
as a stable contract):
- GET  /api/models/<org>/<name>/revision/<rev>   {id, sha, siblings: [{rfilename}]}
- GET  /api/models/<org>/<name>/tree/<rev>[/...] [{type: file, path, size, oid, lfs?}] (one page)
- HEAD /<org>/<name>/resolve/<rev>/<file>        X-Repo-Commit, ETag (the sha256 for large files, as the
                                                 Hub's LFS etag), Content-Length
- GET  /<org>/<name>/resolve/<rev>/<file>        the bytes, honouring one Range: bytes=N- header
Every request is logged to --log (one JSON line each), so tests can count what was downloaded.
Python 3.9, stdlib only."""
import argparse
import hashlib
import json
import os
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlparse

# Files from this size are "LFS" files: the Hub's etag for them is the sha256 of the content.
LFS_FROM = 10 * 1024 * 1024


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _git_blob_id(path):
    with open(path, "rb") as handle:
        data = handle.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Repo(object):
    """One model directory served as <repo_id> at one commit (a hash of its file list and sizes)."""

    def __init__(self, repo_id, directory):
        self.repo_id, self.directory = repo_id, directory
        self.files = {}
        for name in sorted(os.listdir(directory)):
            path = os.path.join(directory, name)
            if os.path.isfile(path) and not name.startswith("."):
                size = os.path.getsize(path)
                entry = {"type": "file", "path": name, "size": size}
                if size >= LFS_FROM:
                    sha = _sha256(path)
                    entry.update(oid=hashlib.sha1(sha.encode()).hexdigest(), lfs={"oid": sha, "size": size,
                                                                                  "pointerSize": 134})
                    entry["etag"] = sha
                else:
                    entry["oid"] = entry["etag"] = _git_blob_id(path)
                self.files[name] = entry
        listing = json.dumps([(n, e["size"], e["etag"]) for n, e in sorted(self.files.items())]).encode()
        self.sha = hashlib.sha1(listing).hexdigest()


def make_handler(repos, log_path, lock):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _log(self, status, sent=0):
            if log_path:
                with lock, open(log_path, "a") as handle:
                    handle.write(json.dumps({"method": self.command, "path": self.path, "status": status,
                                             "bytes": sent}) + "\n")

        def _json(self, document, status=200):
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            self._log(status)

        def _missing(self, what):
            body = json.dumps({"error": "%s not found" % what}).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Error-Code", "RepoNotFound" if "repository" in what else "EntryNotFound")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
            self._log(404)

        def _route(self):
            path = unquote(urlparse(self.path).path)
            api = re.match(r"^/api/models/([^/]+/[^/]+)/(revision|tree)/([^/]+)(?:/(.*))?$", path)
            resolve = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
            repo_id = (api or resolve).group(1) if (api or resolve) else None
            repo = repos.get(repo_id)
            if repo is None:
                return self._missing("repository %s" % repo_id)
            if api and api.group(2) == "revision":
                return self._json({"id": repo.repo_id, "modelId": repo.repo_id, "sha": repo.sha, "private": False,
                                   "siblings": [{"rfilename": name} for name in repo.files]})
            if api:
                return self._json([dict((k, v) for k, v in e.items() if k != "etag") for e in repo.files.values()])
            entry = repo.files.get(resolve.group(3))
            if entry is None:
                return self._missing("file %s" % resolve.group(3))
            return self._file(repo, entry)

        def _file(self, repo, entry):
            size, start = entry["size"], 0
            wanted = re.match(r"^bytes=(\d+)-$", self.headers.get("Range") or "")
            if wanted:
                start = min(int(wanted.group(1)), size)
            self.send_response(206 if wanted else 200)
            self.send_header("X-Repo-Commit", repo.sha)
            self.send_header("ETag", '"%s"' % entry["etag"])
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(size - start))
            if wanted:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size))
            self.end_headers()
            sent = 0
            if self.command == "GET":
                with open(os.path.join(repo.directory, entry["path"]), "rb") as handle:
                    handle.seek(start)
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        self.wfile.write(block)
                        sent += len(block)
            self._log(206 if wanted else 200, sent)

        do_GET = do_HEAD = _route

    return Handler


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--repo", action="append", default=[], metavar="ORG/NAME=DIR",
                        help="a model directory served as a repository (repeatable)")
    parser.add_argument("--log", help="JSON line per request")
    parser.add_argument("--port-file", help="write the port listened on here once ready")
    args = parser.parse_args(argv)
    repos = {}
    for item in args.repo:
        repo_id, _, directory = item.partition("=")
        repos[repo_id] = Repo(repo_id, directory)
    server = ThreadingHTTPServer((args.listen, args.port), make_handler(repos, args.log, threading.Lock()))
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as handle:
            handle.write("%d\n" % server.server_address[1])
        os.rename(args.port_file + ".tmp", args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
