"""sw_vers's parsers and macOS versions (plugins/module_utils/_sw_vers.py): valid and invalid outputs as data."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _sw_vers
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture

VALID_SW_VERS = [
    ("sw_vers/tahoe_26_2.txt", {"product_name": "macOS", "product_version": "26.2", "product_version_extra": None,
                                "build_version": "25C56", "extra": {}}),
    ("sw_vers/tahoe_26_5_1.txt", {"product_name": "macOS", "product_version": "26.5.1", "product_version_extra": None,
                                  "build_version": "25F80", "extra": {}}),
    ("sw_vers/sequoia_15_6.txt", {"product_name": "macOS", "product_version": "15.6", "product_version_extra": None,
                                  "build_version": "24G84", "extra": {}}),
    ("sw_vers/rapid_security_response.txt",
     {"product_name": "macOS", "product_version": "26.2", "product_version_extra": "(a)", "build_version": "25C56a",
      "extra": {}}),
    # Issue 48: a real 26.3.1 carrying the Background Security Improvement (a): the response's longer build.
    ("sw_vers/tahoe_26_3_1_bsi_a.txt",
     {"product_name": "macOS", "product_version": "26.3.1", "product_version_extra": "(a)",
      "build_version": "25D771280a", "extra": {}}),
]
INVALID_SW_VERS = [
    ("", "the output is empty"),
    (read_fixture("sw_vers/no_build.txt"), "no BuildVersion line"),
    (read_fixture("sw_vers/garbage.txt"), "is not `Key: value`"),
    ("ProductVersion: 26.two\nBuildVersion: 25C56\n", "'26.two' is not a version"),
    ("ProductVersion: 26.2\nBuildVersion: latest\n", "'latest' is not a build"),
    ("ProductVersion: 26.2\nProductVersionExtra: a\nBuildVersion: 25C56a\n", "'a' is not a security response"),
]


@pytest.mark.parametrize("fixture, expected", VALID_SW_VERS)
def test_sw_vers_full(fixture, expected):
    assert _sw_vers.parse_full(read_fixture(fixture)) == expected


@pytest.mark.parametrize("text, reason", INVALID_SW_VERS)
def test_sw_vers_full_rejects(text, reason):
    with pytest.raises(ParseError, match="`sw_vers`: .*" + reason[:12]) as error:
        _sw_vers.parse_full(text)
    assert reason in error.value.reason


@pytest.mark.parametrize("parser, text, expected", [
    (_sw_vers.parse_product_version, "26.2\n", "26.2"),
    (_sw_vers.parse_product_version, "26.5.1\n", "26.5.1"),
    (_sw_vers.parse_build_version, "25C56\n", "25C56"),
])
def test_sw_vers_single_values(parser, text, expected):
    assert parser(text) == expected


@pytest.mark.parametrize("parser, text, command", [
    (_sw_vers.parse_product_version, "", "sw_vers -productVersion"),
    (_sw_vers.parse_product_version, "26.2\n25C56\n", "sw_vers -productVersion"),
    (_sw_vers.parse_build_version, "26.2\n", "sw_vers -buildVersion"),
])
def test_sw_vers_single_values_reject(parser, text, command):
    with pytest.raises(ParseError) as error:
        parser(text)
    assert error.value.command == command
    assert command in str(error.value)


@pytest.mark.parametrize("left, right, expected", [
    ("26.2", "26.2", 0),
    ("26.2", "26.2.0", 0),
    ("26.5.1", "26.2", 1),
    ("26.1", "26.2", -1),
    ("15.6", "26.2", -1),
    ("26.10", "26.9", 1),
    # An old-SDK process sees 16.x for 26.x.
    ("16.2", "26.2", 0),
    ("16.1", "26.2", -1),
])
def test_compare_versions(left, right, expected):
    assert _sw_vers.compare_versions(left, right) == expected
    assert _sw_vers.version_at_least(left, right) is (expected >= 0)


@pytest.mark.parametrize("bad", ["", "26.x", "macOS 26.2", "26.2.1.4", None])
def test_version_tuple_rejects(bad):
    with pytest.raises(ValueError):
        _sw_vers.version_tuple(bad)


@pytest.mark.parametrize("text, parts, key", [
    ("26.3", ("26.3", None), (26, 3, 0, "")),
    ("26.3.1 (a)", ("26.3.1", "(a)"), (26, 3, 1, "a")),
    ("26.3.1(b)", ("26.3.1", "(b)"), (26, 3, 1, "b")),
])
def test_a_release_with_its_security_response_splits_and_sorts(text, parts, key):
    assert _sw_vers.split_release(text) == parts and _sw_vers.release_key(text) == key
    assert _sw_vers.release(*parts) == text.replace("1(b)", "1 (b)")


def test_releases_sort_with_their_security_responses_between_the_patch_releases():
    order = ["26.3", "26.3.1", "26.3.1 (a)", "26.3.1 (b)", "26.3.2", "26.4"]
    assert sorted(reversed(order), key=_sw_vers.release_key) == order
    assert _sw_vers.release_key("26.3.1", "(a)") == _sw_vers.release_key("26.3.1 (a)")
    for bad in ("26.3.1 a", "26.3.1 (A)", "latest", ""):
        with pytest.raises(ValueError):
            _sw_vers.split_release(bad)
