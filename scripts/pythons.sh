#!/usr/bin/env bash
# Print one path per line: one interpreter for every Python 3 minor version from 3.9 up found on
# this machine (PATH and pyenv), oldest first. Used by lint's compile check and by sanity.
for c in python3.9 python3.10 python3.11 python3.12 python3.13 python3.14 \
         /root/.pyenv/versions/3.*/bin/python3.* /usr/bin/python3.*; do
  [[ "$(basename "$c")" =~ ^python3\.[0-9]+$ ]] || continue
  command -v "$c" >/dev/null 2>&1 || continue
  "$c" -c 'import sys
v = sys.version_info
if v >= (3, 9):
    print("%d %s" % (v[1], sys.executable))' 2>/dev/null
done | sort -n | awk '!seen[$1]++ {print $2}'
