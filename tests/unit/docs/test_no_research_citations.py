"""No file of the repository cites research the repository does not hold: a path into
`shared/research`, a `research/<name>.md` path, or one of those research files by its bare name
(`macos-commands.md section 4`). Cite the fact itself and its public source instead (Apple TN3205,
the upstream file or issue, a published capture). The last tests show the checker catches each form."""
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
# Not part of the collection's text: version control, local environments, build and run output,
# and `collections/`, whose one entry is a symlink back to this root.
SKIPPED_DIRECTORIES = {".git", ".venv", ".cache", ".ansible", "artifacts", "collections", "__pycache__",
                       ".pytest_cache", "output", "results"}
# The research files this project's sessions read, which the repository does not hold. A bare name
# is a citation only while the repository has no file of that name (a future docs/serving.md is fine).
RESEARCH_FILES = ("macos-commands.md", "lab-feasibility.md", "shards-bench.md", "user-needs.md",
                  "anchors-2026-12.md", "ansible-anchors.md", "aesthetics-anchors.md", "macos-updates.md",
                  "serving.md")
PATTERNS = (
    re.compile(r"shared/research"),
    re.compile(r"(?<![\w-])research/[\w.-]+\.md"),
    re.compile(r"\b(?:the|our) research file\b|\(research:", re.IGNORECASE),
)


def text_files(root):
    """(relative path, text) of every text file under root, outside SKIPPED_DIRECTORIES."""
    for directory, directories, names in os.walk(root):
        directories[:] = sorted(name for name in directories if name not in SKIPPED_DIRECTORIES)
        for name in sorted(names):
            path = os.path.join(directory, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            try:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
            except (UnicodeDecodeError, OSError):
                continue  # binary files (images, archives) cite nothing
            yield os.path.relpath(path, root), text


def citations(root, exempt=()):
    """['path:line: cited text'] for every citation of a research file the repository does not hold."""
    present = set()
    for directory, directories, names in os.walk(root):
        directories[:] = [name for name in directories if name not in SKIPPED_DIRECTORIES]
        present.update(names)
    bare = [name for name in RESEARCH_FILES if name not in present]
    patterns = list(PATTERNS)
    if bare:
        patterns.append(re.compile(r"(?<![\w/.-])(?:%s)" % "|".join(re.escape(name) for name in bare)))
    found = []
    for path, text in text_files(root):
        if path in exempt:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for pattern in patterns:
                match = pattern.search(line)
                if match:
                    found.append("%s:%d: %s" % (path, number, match.group(0)))
                    break
    return found


THIS_FILE = os.path.relpath(os.path.abspath(__file__), ROOT)


def test_no_file_cites_a_research_file_outside_the_repository():
    assert citations(ROOT, exempt=(THIS_FILE,)) == []


def test_the_checker_catches_each_form(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("Background: `../shared/research/lab-feasibility.md`.\n")
    (tmp_path / "b.py").write_text('"""Parse ``ibv_devices`` (macos-commands.md section 6)."""\n')
    (tmp_path / "c.yml").write_text("# figures: research/user-needs.md, baselines\n")
    (tmp_path / "d.md").write_text("The research file has no ping section.\n")
    (tmp_path / "e.md").write_text("Apple TN3205; exo #1390; a published capture.\n")
    assert citations(str(tmp_path)) == [
        "b.py:1: macos-commands.md",
        "c.yml:1: research/user-needs.md",
        "d.md:1: The research file",
        "docs/a.md:1: shared/research",
    ]


def test_a_research_name_the_repository_holds_is_no_citation(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "serving.md").write_text("# Serving\n")
    (tmp_path / "README.md").write_text("See docs/serving.md and serving.md; not user-needs.md.\n")
    assert citations(str(tmp_path)) == ["README.md:1: user-needs.md"]


def test_skipped_directories_are_not_read(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "COMMIT_EDITMSG").write_text("cite shared/research/macos-commands.md\n")
    (tmp_path / "artifacts").mkdir()
    (tmp_path / "artifacts" / "log.txt").write_text("macos-commands.md\n")
    assert citations(str(tmp_path)) == []
