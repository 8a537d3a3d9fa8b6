"""The serving job's logs in serve_log_dir, which macOS's newsyslog rotates (the role's /etc/newsyslog.d entry: by
size, bzip2, no signal): each writer opens its file again as soon as the file at its path is another one (rotated
away, a new empty one made) or gone, so nothing keeps growing a rotated file.

- serve.log: the supervisor's own lines; launchd's StandardOutPath is the same file, and a reopen puts the new file
  under this process's stdout and stderr too, so a traceback lands where the log is;
- rank.log: the node's rank's output (mlx-lm's server), which the supervisor reads from a pipe: mlx-lm's access-log
  line of every /health poll (the supervisor's own, every 2 s: some 3 MB a day) is left out;
- requests.log (rank 0): one JSON line per request through the endpoint (serve_front.py).
Python 3.9, stdlib only.
"""
import os
import re
import threading
import time

# mlx-lm's http.server access log of a /health request: '127.0.0.1 - - [06/Dec/2026 05:19:47] "GET /health HTTP/1.1" 200 -'
HEALTH_POLL = re.compile(r'"GET /health HTTP/1\.[01]" \d+')


class LogFile(object):
    """Appends lines to `path`, opening it again when the file there is no longer the one it writes (newsyslog)."""

    def __init__(self, path, standard_streams=False):
        self.path, self.standard_streams = path, standard_streams
        self.lock, self.handle = threading.Lock(), None

    def _current(self):
        if self.handle is not None:
            try:
                if os.stat(self.path).st_ino == os.fstat(self.handle.fileno()).st_ino:
                    return self.handle
            except OSError:
                pass
            self.handle.close()
        self.handle = open(self.path, "ab")
        if self.standard_streams:  # this process's own output follows the log to its new file
            for stream in (1, 2):
                os.dup2(self.handle.fileno(), stream)
        return self.handle

    def write(self, data):
        """Append `data` (bytes or text); a log that cannot be written loses the line, never the caller."""
        if isinstance(data, str):
            data = data.encode("utf-8", "replace")
        with self.lock:
            try:
                handle = self._current()
                handle.write(data)
                handle.flush()
            except OSError:
                self.handle = None


def stamped(message):
    return "%s serve: %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), message)


def pump(stream, log, on_line=None):
    """Copy a child's output `stream` into `log` line by line until it closes, leaving out mlx-lm's access-log lines
    of /health polls; `on_line(text)` sees every line kept."""
    for raw in iter(stream.readline, b""):
        text = raw.decode("utf-8", "replace")
        if HEALTH_POLL.search(text):
            continue
        log.write(raw)
        if on_line is not None:
            on_line(text)
    stream.close()
