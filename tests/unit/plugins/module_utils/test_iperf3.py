"""iperf3 --json: the receiver's rate per direction, iperf3's own error, refusal of what is not its output."""
import json

import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils._iperf3 import parse
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError


def test_bidir_run_gives_both_directions_at_the_receiver():
    result = parse(read_fixture("iperf3/bidir_loopback.json"))
    assert result["error"] is None and result["version"] == "iperf 3.12"
    assert (result["protocol"], result["streams"], result["seconds"], result["omit_seconds"]) == ("TCP", 1, 1, 0)
    forward, backward = result["forward"], result["backward"]
    assert forward["from"] == "client" and backward["from"] == "server"
    assert forward["bits_per_second"] == pytest.approx(200244975.58)
    assert forward["sender_bits_per_second"] == pytest.approx(200260593.33)
    assert forward["bytes"] == 25034752 and forward["retransmits"] == 0
    assert backward["bits_per_second"] > 1.9e8


def test_one_direction_has_no_backward():
    data = json.loads(read_fixture("iperf3/bidir_loopback.json"))
    for key in ("sum_sent_bidir_reverse", "sum_received_bidir_reverse"):
        del data["end"][key]
    result = parse(json.dumps(data))
    assert result["forward"]["bits_per_second"] > 0 and result["backward"] is None


def test_reverse_mode_names_the_server_as_the_sender():
    data = json.loads(read_fixture("iperf3/bidir_loopback.json"))
    data["start"]["test_start"]["reverse"] = 1
    result = parse(json.dumps(data))
    assert result["reverse"] and result["forward"]["from"] == "server" and result["backward"]["from"] == "client"


def test_a_refused_connection_is_iperf3s_error_not_a_parse_failure():
    result = parse(read_fixture("iperf3/refused.json"))
    assert result["error"] == "unable to connect to server: Connection refused"
    assert result["forward"] is None and result["backward"] is None


@pytest.mark.parametrize("text, reason", [
    ("iperf3: error - unable to connect", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"start": {}, "end": {}}', "no `end` section"),
    ('{"start": {}, "end": {"streams": []}}', "no sum_sent"),
    ('{"start": {}, "end": {"sum_sent": {"bits_per_second": 1}, "sum_received": {"seconds": 1}}}', "lacks"),
])
def test_what_is_not_iperf3_output_is_refused(text, reason):
    with pytest.raises(ParseError, match=reason):
        parse(text)


def test_the_server_end_of_a_test_gives_what_it_received_and_what_it_sent():
    server = parse(read_fixture("iperf3/server_bidir_cable.json"))
    client = parse(read_fixture("iperf3/client_bidir_cable.json"))
    assert (server["side"], client["side"]) == ("server", "client")
    assert server["error"] is None
    # client -> server: the server is the receiver, the same figure the client reports.
    assert server["forward"]["measured_at"] == "receiver"
    assert server["forward"]["bits_per_second"] == pytest.approx(client["forward"]["bits_per_second"], rel=1e-3)
    assert server["forward"]["sender_bits_per_second"] is None and server["forward"]["retransmits"] is None
    # server -> client: only the sender's figure is at this end, within a few per mille of the receiver's.
    assert server["backward"]["measured_at"] == "sender" and server["backward"]["retransmits"] is not None
    assert server["backward"]["bits_per_second"] == pytest.approx(client["backward"]["bits_per_second"], rel=0.01)
    assert client["forward"]["measured_at"] == client["backward"]["measured_at"] == "receiver"
