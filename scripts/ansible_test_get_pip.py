"""Stand-in for the pip bootstrap script ansible-test downloads for its --venv mode.

ansible-test fetches get-pip.py from ci-files.testing.ansible.com, which these machines cannot
reach (only the package registries are). This does the same job from what is at hand: pip from
the interpreter's bundled ensurepip, then that pip installs the exact packages ansible-test
asked for (pip==<version>) from PyPI. ansible-test runs it with the venv's Python, passes
get-pip.py's arguments, and hides every pip config file (PIP_CONFIG_FILE=/dev/null), so the
bundled pip is pointed at the system's CA bundle explicitly; newer pips use the system trust
store by themselves.
"""
import ensurepip
import os
import ssl
import subprocess
import sys

ensurepip.bootstrap(upgrade=True)
args = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
paths = ssl.get_default_verify_paths()
for bundle in (paths.cafile, paths.openssl_cafile, "/etc/ssl/certs/ca-certificates.crt"):
    if bundle and os.path.isfile(bundle):
        args = ["--cert", bundle] + args
        break
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "--quiet"] + args))
