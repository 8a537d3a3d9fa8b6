"""The lab launchd's control protocol (run/launchd.sock): one JSON object per line each way. Its
server (launchd.py), the launchctl shim and `maclab fault` speak it through these two calls."""
import json


def send_line(sock, message):
    sock.sendall((json.dumps(message) + "\n").encode())


def recv_line(sock, default=None):
    """The JSON object of the next line (the peer may close instead of ending it). An empty
    message is ``default`` when one is given, else an error as any other that is not JSON."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    if not data.strip() and default is not None:
        return default
    return json.loads(data.decode())
