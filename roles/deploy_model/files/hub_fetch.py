# Download a model repository once, on the source node, with the huggingface_hub the venv has (mlx-lm's
# dependency): argv repo_id revision local_dir dry_run(0|1); a token, if any, on stdin (never in argv or
# the environment, which logs can show). Prints one JSON line: {path, commit, downloaded, files, bytes}
# or {error, kind} with exit status 2. snapshot_download skips files local_dir already holds (its
# .cache/huggingface metadata), and resumes a file cut short.
import json
import os
import shutil
import sys
import tempfile


def listing(directory):
    found = {}
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
        path = os.path.join(directory, name)
        if os.path.isfile(path) and not name.startswith("."):
            stat = os.stat(path)
            found[name] = (stat.st_size, stat.st_mtime_ns)
    return found


def fail(kind, error):
    print(json.dumps({"error": "%s" % error, "kind": kind}))
    sys.exit(2)


def main():
    repo_id, revision, local_dir, dry_run = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
    token = sys.stdin.read().strip() or None
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:
        fail("no_library", "huggingface_hub is not installed in this Python (%s): %s" % (sys.executable, exc))
    try:
        from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError, RevisionNotFoundError
    except ImportError:  # before 0.23 they lived in utils
        from huggingface_hub.utils import GatedRepoError, RepositoryNotFoundError, RevisionNotFoundError
    before = listing(local_dir)
    try:
        if dry_run:
            # A dry run still makes its local_dir: one the node lacks is looked at in a scratch directory.
            scratch = None if os.path.isdir(local_dir) else tempfile.mkdtemp(prefix="macops-hub-")
            try:
                plan = snapshot_download(repo_id, revision=revision, local_dir=scratch or local_dir, token=token,
                                         dry_run=True)
            except TypeError:  # a huggingface_hub before dry runs: say nothing rather than guess
                print(json.dumps({"path": local_dir, "commit": None, "downloaded": None, "files": len(before),
                                  "bytes": sum(size for size, _mtime in before.values())}))
                return
            finally:
                if scratch:
                    shutil.rmtree(scratch, ignore_errors=True)
            todo = [info for info in plan if info.will_download]
            print(json.dumps({"path": local_dir, "commit": plan[0].commit_hash if plan else None,
                              "downloaded": sorted(info.filename for info in todo),
                              "files": len(plan), "bytes": sum(info.file_size or 0 for info in plan)}))
            return
        snapshot_download(repo_id, revision=revision, local_dir=local_dir, token=token)
    except GatedRepoError as exc:
        fail("gated", exc)
    except RepositoryNotFoundError as exc:
        fail("not_found", exc)
    except RevisionNotFoundError as exc:
        fail("no_revision", exc)
    except Exception as exc:  # noqa: BLE001 network, disk: the message says which
        fail("failed", exc)
    after = listing(local_dir)
    print(json.dumps({"path": local_dir, "commit": None,
                      "downloaded": sorted(name for name in after if after[name] != before.get(name)),
                      "files": len(after), "bytes": sum(size for size, _mtime in after.values())}))


if __name__ == "__main__":
    main()
