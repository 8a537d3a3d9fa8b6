"""roles/serve/files/serve_logs.py (issue 47): a log that newsyslog rotated is written in its new file at once (no
writer keeps growing the rotated copy, whose inode it still holds), a process's own output follows, and mlx-lm's
access-log line of each /health poll stays out of rank.log."""
import io
import os
import sys

FILES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "serve", "files")
sys.path.insert(0, FILES)
import serve_logs  # noqa: E402


def test_a_rotated_log_is_written_in_its_new_file(tmp_path):
    path = str(tmp_path / "requests.log")
    log = serve_logs.LogFile(path)
    log.write("one\n")
    os.rename(path, path + ".0")  # newsyslog: the file moves away, a new empty one is made
    open(path, "w").close()
    log.write(b"two\n")
    os.remove(path)  # gone altogether: made again
    log.write("three\n")
    assert open(path + ".0").read() == "one\n" and open(path).read() == "three\n"


def test_the_process_s_own_output_follows_its_log(tmp_path):
    path = str(tmp_path / "serve.log")
    saved = [os.dup(1), os.dup(2)]
    try:
        log = serve_logs.LogFile(path, standard_streams=True)
        log.write("first\n")
        os.rename(path, path + ".0")
        log.write("second\n")
        os.write(2, b"a traceback\n")  # what Python prints on stderr lands in the current log
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
    assert open(path).read() == "second\na traceback\n" and open(path + ".0").read() == "first\n"


def test_the_rank_s_output_is_kept_but_for_its_health_polls(tmp_path):
    path = str(tmp_path / "rank.log")
    output = io.BytesIO(b'2026-12-06 INFO Loading model\n'
                        b'127.0.0.1 - - [06/Dec/2026 05:19:47] "GET /health HTTP/1.1" 200 -\n'
                        b'127.0.0.1 - - [06/Dec/2026 05:19:48] "POST /v1/chat/completions HTTP/1.1" 200 -\n'
                        b'ValueError: bad split\n')
    seen = []
    serve_logs.pump(output, serve_logs.LogFile(path), seen.append)
    kept = open(path).read()
    assert "GET /health" not in kept and "POST /v1/chat/completions" in kept and "ValueError: bad split" in kept
    assert seen[-1] == "ValueError: bad split\n" and len(seen) == 3
