"""Byte-compile every Python file under the given folders with the running interpreter.

Run by `make lint` with each interpreter from 3.9 up: code under plugins/ runs on the Macs,
whose own python3 is 3.9. Prints one line per failure and a summary; exits 1 on any failure.
"""
import pathlib
import sys

failures = 0
count = 0
for folder in sys.argv[1:]:
    for path in sorted(pathlib.Path(folder).rglob("*.py")):
        count += 1
        try:
            compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:
            failures += 1
            print("%s: %s" % (path, error))
print("compile on Python %d.%d: %d files, %d failed" % (sys.version_info[:2] + (count, failures)))
sys.exit(1 if failures else 0)
