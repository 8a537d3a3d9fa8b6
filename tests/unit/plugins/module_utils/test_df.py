"""df -k's parser (plugins/module_utils/_df.py): valid and invalid outputs as data."""
import pytest

from ansible_collections.macops.cluster.plugins.module_utils import _df
from ansible_collections.macops.cluster.plugins.module_utils._parsing import ParseError

from fixture_files import read_fixture

VALID_DF = [
    ("df/studio_root.txt", {"filesystem": "/dev/disk3s1s1", "size_kib": 971350180, "used_kib": 10908548,
                            "free_kib": 650553916, "mounted_on": "/"}),
    ("df/studio_data_volume.txt", {"filesystem": "/dev/disk3s5", "size_kib": 971350180, "used_kib": 300771684,
                                   "free_kib": 650553916, "mounted_on": "/System/Volumes/Data"}),
    # A full volume, and a mount point with a space.
    ("df/full_volume_with_space.txt", {"filesystem": "/dev/disk5s1", "size_kib": 976797816, "used_kib": 976797816,
                                       "free_kib": 0, "mounted_on": "/Volumes/Macintosh HD"}),
    # A file system name with a space, and `-` for %iused.
    ("df/automount.txt", {"filesystem": "map auto_home", "size_kib": 0, "used_kib": 0, "free_kib": 0,
                          "mounted_on": "/System/Volumes/Data/home"}),
    # GNU df, as on a Linux machine: no inode columns.
    ("df/gnu_linux.txt", {"filesystem": "/dev/nvme0n1p2", "size_kib": 479596204, "used_kib": 8123456,
                          "free_kib": 447030120, "mounted_on": "/"}),
    # BSD df prints a negative Available on a volume past its reserve: nothing is free.
    ("df/negative_available.txt", {"filesystem": "/dev/disk6s2", "size_kib": 1048576, "used_kib": 1015808,
                                   "free_kib": 0, "mounted_on": "/Volumes/Old UFS"}),
]
INVALID_DF = [
    ("", "the output is empty"),
    ("  \n\n", "the output is empty"),
    (read_fixture("df/header_only.txt"), "no volume line after the header"),
    (read_fixture("df/no_such_file.txt"), "is not the header"),
    (read_fixture("df/garbage_numbers.txt"), "is not `Filesystem 1024-blocks"),
    (read_fixture("df/studio_root.txt").replace("2%", "2"), "is not `Filesystem 1024-blocks"),
    # Without -k macOS counts 512-byte blocks.
    (read_fixture("df/studio_root.txt").replace("1024-blocks", " 512-blocks"), "the sizes are not in KiB"),
]


@pytest.mark.parametrize("fixture, expected", VALID_DF)
def test_df(fixture, expected):
    assert _df.parse(read_fixture(fixture)) == expected


def test_df_reads_the_last_line():
    text = read_fixture("df/studio_root.txt") + read_fixture("df/studio_data_volume.txt").splitlines()[1] + "\n"
    assert _df.parse(text)["mounted_on"] == "/System/Volumes/Data"


@pytest.mark.parametrize("text, reason", INVALID_DF)
def test_df_rejects(text, reason):
    with pytest.raises(ParseError, match="`df -k`") as error:
        _df.parse(text)
    assert reason in error.value.reason


def test_df_error_names_the_command_it_was_given():
    with pytest.raises(ParseError, match="`/bin/df -k /Volumes/Models`"):
        _df.parse(read_fixture("df/no_such_file.txt"), "/bin/df -k /Volumes/Models")


@pytest.mark.parametrize("kib, gib", [(650553916, 620.4), (0, 0.0), (1048576, 1.0), (104857, 0.1), (52428, 0.0)])
def test_gib_has_one_decimal(kib, gib):
    assert _df.gib(kib) == gib
