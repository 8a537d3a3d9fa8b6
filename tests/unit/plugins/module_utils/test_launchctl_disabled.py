"""launchctl print-disabled system's parser: the labels launchd keeps from loading at boot, both forms, and
output that is not it rejected."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils._launchctl_disabled import parse_print_disabled
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError


@pytest.mark.parametrize("fixture, expected", [
    ("launchctl/print_disabled_macos14.txt", {"com.apple.ftpd": True, "org.macops.serve": True,
                                              "org.macops.exo": False, "com.openssh.sshd": False}),
    ("launchctl/print_disabled_catalina.txt", {"com.apple.ftpd": True, "org.macops.serve": False}),
    ("launchctl/print_disabled_none.txt", {}),
])
def test_print_disabled(fixture, expected):
    assert parse_print_disabled(read_fixture(fixture)) == expected


@pytest.mark.parametrize("text, reason", [
    ("", "empty"),
    ("Unrecognized subcommand: print-disabled\n", "no `disabled services"),
    ('disabled services = {\n\t"org.macops.serve" => maybe\n}\n', "unknown override"),
])
def test_print_disabled_rejects(text, reason):
    with pytest.raises(ParseError, match=reason):
        parse_print_disabled(text)


def test_only_the_disabled_services_block_counts():
    text = 'login item associations = {\n\t"org.macops.serve" => disabled\n}\ndisabled services = {\n}\n'
    assert parse_print_disabled(text) == {}
