"""Invented but stable identities (serials, UUIDs, MACs) derived from lab name + host + part.

The same lab name always yields the same identities, so fixtures, logs and reports stay
comparable between runs; two hosts or two ports never share one.
"""
import hashlib
import uuid

_NAMESPACE = uuid.UUID("6f1c2a44-1d2e-4b8e-9a51-6d61636c6162")
_SERIAL_ALPHABET = "0123456789CDFGHJKLMNPQRTVWXY"  # Apple serials avoid vowels and lookalikes


def _digest(*parts):
    return hashlib.sha256("/".join(str(p) for p in parts).encode()).digest()


def stable_uuid(*parts):
    return str(uuid.uuid5(_NAMESPACE, "/".join(str(p) for p in parts))).upper()


def serial(lab, host):
    digest = _digest(lab, host, "serial")
    return "".join(_SERIAL_ALPHABET[b % len(_SERIAL_ALPHABET)] for b in digest[:10])


def local_mac(*parts):
    """A locally administered unicast MAC (0x02 bit set, 0x01 clear) like macOS's TB ports."""
    digest = bytearray(_digest(*parts)[:6])
    digest[0] = (digest[0] | 0x02) & 0xFE
    return ":".join("%02x" % b for b in digest)


def switch_uid(lab, host, receptacle):
    return "0x05AC%s" % hashlib.sha256(("%s/%s/%s/switch" % (lab, host, receptacle)).encode()).hexdigest()[:10].upper()


def provisioning_udid(lab, host):
    return "00006022-%s" % hashlib.sha256(("%s/%s/udid" % (lab, host)).encode()).hexdigest()[:16].upper()
