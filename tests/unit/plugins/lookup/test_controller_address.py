"""macops.cluster.controller_address: the control machine's own address toward each node, read from the kernel's
route (a UDP socket connected, nothing sent), so the serving firewall always admits the controller that checks it."""
import socket

from ansible_collections.macops.cluster.plugins.lookup.controller_address import LookupModule, source_address


def test_the_route_to_loopback_leaves_from_loopback_and_the_answers_are_distinct():
    assert source_address("127.0.0.1") == "127.0.0.1"
    assert LookupModule().run(["127.0.0.1", "127.0.0.2", "127.0.0.1"]) in (["127.0.0.1"], ["127.0.0.1", "127.0.0.2"])


def test_an_address_with_no_route_gives_nothing(monkeypatch):
    class Unroutable(object):
        def __init__(self, *args):
            pass

        def connect(self, target):
            raise OSError(101, "Network is unreachable")

        def close(self):
            pass
    monkeypatch.setattr(socket, "socket", Unroutable)
    assert source_address("203.0.113.7") is None and LookupModule().run(["203.0.113.7"]) == []


def test_nothing_is_sent(monkeypatch):
    """A connected UDP socket is read back, never written to."""
    real = socket.socket
    sent = []

    class Watched(real):
        def send(self, *args):
            sent.append(args)
            return real.send(self, *args)

        def sendto(self, *args):
            sent.append(args)
            return real.sendto(self, *args)
    monkeypatch.setattr(socket, "socket", Watched)
    assert source_address("127.0.0.1") == "127.0.0.1" and sent == []
