"""newsyslog (issue 47): the serve role's /etc/newsyslog.d entry rotates by size with bzip2, keeps `count` copies,
makes the new empty file with the line's owner, group and mode, and leaves a small log alone; root only."""
import bz2
import grp
import os
import pwd

from shimlab import NOBODY

# What roles/serve/templates/serve.newsyslog.j2 renders (two of its three lines), owner root here.
CONF = """\
# logfilename  [owner:group]  mode  count  size  when  flags
/Library/Logs/macops/serve/requests.log  root:%s  640  2  1  *  JN
/Library/Logs/macops/serve/serve.log  root:%s  644  2  1  *  JN
""" % ((grp.getgrgid(0).gr_name,) * 2)


def setup(lab, requests_bytes, serve_bytes):
    os.makedirs(os.path.join(lab.fs, "etc", "newsyslog.d"), exist_ok=True)
    with open(os.path.join(lab.fs, "etc", "newsyslog.d", "org.macops.serve.conf"), "w") as handle:
        handle.write(CONF)
    logs = os.path.join(lab.fs, "Library", "Logs", "macops", "serve")
    os.makedirs(logs, exist_ok=True)
    for name, size in (("requests.log", requests_bytes), ("serve.log", serve_bytes)):
        with open(os.path.join(logs, name), "wb") as handle:
            handle.write(b"x" * size)
    return logs


def test_a_log_past_its_size_is_rotated_compressed_and_made_again_and_a_small_one_is_left(lab):
    logs = setup(lab, 3000, 100)
    result = lab.run("newsyslog", "-v")
    assert result.rc == 0 and "requests.log <2JN>: trimming log" in result.out and "serve.log <2JN>: size" in result.out
    assert bz2.open(os.path.join(logs, "requests.log.0.bz2")).read() == b"x" * 3000
    fresh = os.stat(os.path.join(logs, "requests.log"))
    assert fresh.st_size == 0 and oct(fresh.st_mode & 0o777) == "0o640" and pwd.getpwuid(fresh.st_uid).pw_name == "root"
    assert os.path.getsize(os.path.join(logs, "serve.log")) == 100 and not os.path.exists(
        os.path.join(logs, "serve.log.0.bz2"))
    # Again past its size: the older copy moves up, and no more than `count` are kept.
    for round_ in range(3):
        with open(os.path.join(logs, "requests.log"), "wb") as handle:
            handle.write(b"%d" % round_ * 2000)
        assert lab.run("newsyslog").rc == 0
    assert sorted(name for name in os.listdir(logs) if name.startswith("requests.log.")) == [
        "requests.log.0.bz2", "requests.log.1.bz2"]
    assert bz2.open(os.path.join(logs, "requests.log.0.bz2")).read() == b"2" * 2000


def test_force_rotates_whatever_the_size_and_a_user_is_refused(lab):
    logs = setup(lab, 10, 10)
    assert lab.run("newsyslog", "-F").rc == 0
    assert os.path.exists(os.path.join(logs, "serve.log.0.bz2"))
    assert lab.run_process("newsyslog", uid=NOBODY).rc == 1
