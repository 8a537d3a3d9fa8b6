"""node_files' managed blocks (plugins/module_utils/_managed_block.py): the text ansible.builtin.blockinfile writes for
the same block (so a file it kept stays unchanged), replaced in place, added at the end or the start, removed."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils._managed_block import with_block

MARK = "# {mark} MACOPS"
PF = "scrub-anchor \"com.apple/*\"\nanchor \"com.apple/*\"\nload anchor \"com.apple\" from \"/etc/pf.anchors/com.apple\"\n"
BLOCK = "anchor \"macops\"\nload anchor \"macops\" from \"/etc/pf.anchors/macops\""


def test_added_at_the_end_as_blockinfile_writes_it():
    assert with_block(PF, BLOCK, MARK) == PF + "# BEGIN MACOPS\n" + BLOCK + "\n# END MACOPS\n"


def test_a_file_without_its_last_newline_gets_one_before_the_block():
    assert with_block("a\nb", "x", MARK) == "a\nb\n# BEGIN MACOPS\nx\n# END MACOPS\n"


def test_no_file_yet_and_at_the_start():
    assert with_block(None, "x", MARK) == "# BEGIN MACOPS\nx\n# END MACOPS\n"
    assert with_block("Host *\n", "x", MARK, at_start=True) == "# BEGIN MACOPS\nx\n# END MACOPS\nHost *\n"


def test_the_block_is_replaced_in_place_and_a_second_pass_changes_nothing():
    once = with_block("a\n# BEGIN MACOPS\nold\n# END MACOPS\nz\n", "new\nlines", MARK)
    assert once == "a\n# BEGIN MACOPS\nnew\nlines\n# END MACOPS\nz\n"
    assert with_block(once, "new\nlines", MARK) == once


@pytest.mark.parametrize("block", ["", None])
def test_an_empty_block_removes_it_and_its_markers(block):
    assert with_block("a\n# BEGIN MACOPS\nold\n# END MACOPS\nz\n", block or "", MARK) == "a\nz\n"
    assert with_block("a\n", "", MARK) == "a\n"


def test_one_marker_alone_is_not_a_block():
    assert with_block("a\n# BEGIN MACOPS\n", "x", MARK) == "a\n# BEGIN MACOPS\n# BEGIN MACOPS\nx\n# END MACOPS\n"
