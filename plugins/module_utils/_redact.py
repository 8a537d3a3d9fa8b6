# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
# PRIVATE to the collection: the support bundle's redaction. Do not use this from other collections. Stdlib only,
# Python 3.9.
"""What must not leave the owner's hands in a support bundle, found in every text of it and replaced the same way
everywhere, so that what the texts say stays consistent: a serial number replaced in system_profiler's output is the
same marker in the facts read from it, and a lab host replaying the bundle reads facts equal to the redacted
original's.

- **Serial numbers and hardware identifiers**: system_profiler's ``serial_number``, ``platform_UUID``,
  ``provisioning_UDID`` (JSON), ``Serial Number (system):``, ``Hardware UUID:``, ``Provisioning UDID:`` (text), and
  ioreg's ``IOPlatformSerialNumber`` / ``IOPlatformUUID``.
- **Keys**: private key blocks (whole), the key material of SSH public keys (the type and comment stay).
- **Passwords and tokens**: the value of a field whose name ends in ``password``, ``passwd``, ``secret``, ``token``,
  ``api_key`` or ``apikey`` (JSON, YAML, ``key=value``, a plist's ``<key>`` then ``<string>``), and ``Bearer`` tokens.
- **Names** (only when asked): the user and host names given, as whole words.

Each distinct value becomes ``[redacted KIND N]`` (N counts the kind's values), the same marker in every text."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_SERIAL_FIELDS = ("serial_number", "platform_UUID", "provisioning_UDID", "IOPlatformSerialNumber", "IOPlatformUUID")
_SERIAL = [re.compile(r'"(?:%s)"\s*[:=]\s*"(?P<value>[^"]+)"' % "|".join(_SERIAL_FIELDS)),
           re.compile(r"(?:Serial Number \(system\)|Hardware UUID|Provisioning UDID):\s*(?P<value>\S+)")]
# A field whose name ends so (serve_api_key, hf_token, owner_password; not max_tokens or tokens_per_second).
_SECRET_KEY = r"(?:password|passwd|secret|token|api_key|apikey)"
_NOT_SECRETS = ("true", "false", "null", "none", "value_specified_in_no_log_parameter")
_SECRET = [
    # JSON and YAML ("key": "value", key: value), key=value.
    re.compile(r"""(?i)["']?[\w-]*%s["']?\s*[:=]\s*["']?(?P<value>(?!\[redacted)[^"'\s,}]{4,})""" % _SECRET_KEY),
    # A property list: <key>...password...</key> then <string>value</string>.
    re.compile(r"(?i)<key>[^<]*%s[^<]*</key>\s*<string>(?P<value>[^<]{4,})</string>" % _SECRET_KEY),
    re.compile(r"(?i)\bBearer\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})"),
]
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S)
_PUBLIC_KEY = re.compile(r"\b(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+"
                         r"(?P<value>AAAA[A-Za-z0-9+/=]{16,})")


class Redactor(object):
    """Finds the values to hide in every text first (``learn``), then replaces each in any text (``apply``)."""

    def __init__(self, names=None):
        self.values = {}  # value -> marker
        self.counts = {}  # kind -> how many distinct values
        for name in sorted(set(n for n in names or [] if n and len(str(n)) >= 2), key=len, reverse=True):
            self._note(str(name), "name")

    def _note(self, value, kind):
        if value not in self.values and not value.startswith("[redacted"):
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.values[value] = "[redacted %s %d]" % (kind, self.counts[kind])

    def learn(self, text):
        """Note the serials, secrets and keys `text` holds."""
        text = text or ""
        for pattern in _SERIAL:
            for match in pattern.finditer(text):
                self._note(match.group("value"), "serial")
        for pattern in _SECRET:
            for match in pattern.finditer(text):
                if match.group("value").strip("*").lower() not in _NOT_SECRETS + ("",):
                    self._note(match.group("value"), "secret")
        for match in _PUBLIC_KEY.finditer(text):
            self._note(match.group("value"), "key")
        return self

    def apply(self, text):
        """`text` with every private key block and every noted value replaced."""
        if not text:
            return text
        text = _PRIVATE_KEY.sub("[redacted private key]", text)
        for value in sorted(self.values, key=len, reverse=True):
            marker = self.values[value]
            if self.values[value].startswith("[redacted name"):
                text = re.sub(r"(?<![\w.-])%s(?![\w-])" % re.escape(value), marker, text)
            else:
                text = text.replace(value, marker)
        return text

    def summary(self):
        """{kind: how many distinct values were hidden}."""
        return dict(self.counts)
