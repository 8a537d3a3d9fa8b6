"""What every parser shares (plugins/module_utils/_parsing.py): ParseError names the command and the reason, empty
output is refused, `Key: value` lines are read in order with blank lines skipped and any other line refused, and
only a JSON number is a number."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._parsing import (ParseError, json_number, key_value_lines,
                                                                              require_text, split_field)


def test_a_parse_error_names_the_command_and_the_reason():
    error = ParseError("sw_vers -productVersion", "the output is empty")
    assert isinstance(error, ValueError)
    assert (error.command, error.reason) == ("sw_vers -productVersion", "the output is empty")
    assert str(error) == "cannot parse the output of `sw_vers -productVersion`: the output is empty"


@pytest.mark.parametrize("text", [None, "", " \n\t\n"])
def test_output_of_nothing_but_whitespace_is_refused(text):
    with pytest.raises(ParseError, match="the output is empty"):
        require_text("df -k /", text)


def test_text_with_anything_in_it_comes_back_as_it_was():
    assert require_text("df -k /", " x\n") == " x\n"


def test_a_field_splits_at_its_first_separator_only():
    assert split_field("  Router: 198.18.0.1 ") == ("Router", "198.18.0.1")
    assert split_field("Time: 12:30:05") == ("Time", "12:30:05")
    assert split_field("key = value", "=") == ("key", "value")
    assert split_field("no separator here") is None


def test_key_value_lines_keep_their_order_and_skip_blank_lines():
    fields = key_value_lines("sw_vers", "ProductName:\tmacOS\n\nProductVersion:\t26.2\nBuildVersion:\t25C56\n")
    assert list(fields.items()) == [("ProductName", "macOS"), ("ProductVersion", "26.2"), ("BuildVersion", "25C56")]


@pytest.mark.parametrize("text, reason", [
    ("ProductName: macOS\ngarbage\n", "line 'garbage' is not `Key: value`"),
    (": no key\n", "line ': no key' is not `Key: value`"),
    ("\n\n", "the output is empty"),
])
def test_key_value_lines_refuse_a_line_that_is_not_one(text, reason):
    with pytest.raises(ParseError) as error:
        key_value_lines("networksetup -getinfo Thunderbolt", text)
    assert error.value.reason == reason and error.value.command == "networksetup -getinfo Thunderbolt"


@pytest.mark.parametrize("value, number", [
    (3, 3.0), (2.5, 2.5), (0, 0.0), (True, None), (False, None), ("3", None), (None, None), ([1], None),
])
def test_only_a_json_number_is_a_number(value, number):
    found = json_number(value)
    assert found == number and (found is None or isinstance(found, float))
