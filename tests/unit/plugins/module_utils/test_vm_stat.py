"""`vm_stat` (_vm_stat.py): the page size from the header, every count, and the memory a new program can have
(free, inactive, speculative and purgeable pages); output that is not vm_stat's is refused naming it."""
import pytest
from fixture_files import read_fixture

from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError
from ansible_collections.macops.cluster.plugins.module_utils._vm_stat import parse


def test_the_page_size_every_count_and_what_a_new_program_can_have():
    found = parse(read_fixture("vm_stat/serving.txt"))
    assert found["page_size"] == 16384 and found["pages"]["Pages wired down"] == 2621440
    assert found["pages"]["Translation faults"] == 912345678  # the quoted label
    assert found["available_bytes"] == (18350080 + 3145728 + 262144 + 131072) * 16384
    assert 350e9 < found["available_bytes"] < 360e9


@pytest.mark.parametrize("text, words", [
    ("", "the output is empty"),
    ("Pages free: 12.\n", "no page size"),
    ("Mach Virtual Memory Statistics: (page size of 16384 bytes)\nPages active: 3.\n", 'no "Pages free"'),
])
def test_output_that_is_not_vm_stats_is_refused(text, words):
    with pytest.raises(ParseError) as caught:
        parse(text)
    assert words in str(caught.value) and "vm_stat" in str(caught.value)
