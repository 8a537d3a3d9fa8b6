"""Old-style (NeXTSTEP) plist text as `defaults read` prints it, and `plutil -p`'s layout.

`defaults read` format from memory of macOS (no published capture on record): dictionaries
`{ key = value; }` with 4-space indents, arrays `( a, b )`, strings quoted only when they hold
characters other than letters, digits, `_`, `.`, `/`, `-`; booleans print as 1/0.
"""
import datetime
import re

_BARE = re.compile(r"^[A-Za-z0-9_./-]+$")


def _scalar(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, bytes):
        return "{length = %d, bytes = 0x%s}" % (len(value), value.hex())
    if isinstance(value, datetime.datetime):
        return '"{}"'.format(value.strftime("%Y-%m-%d %H:%M:%S +0000"))
    text = str(value)
    if _BARE.match(text):
        return text
    return '"{}"'.format(text.replace("\\", "\\\\").replace('"', '\\"'))


def old_style(value, indent=0):
    pad = "    " * indent
    if isinstance(value, dict):
        if not value:
            return "{\n" + pad + "}"
        body = "".join("{}    {} = {};\n".format(pad, _scalar(k), old_style(v, indent + 1))
                       for k, v in sorted(value.items()))
        return "{\n" + body + pad + "}"
    if isinstance(value, list):
        if not value:
            return "(\n" + pad + ")"
        body = ",\n".join(pad + "    " + old_style(v, indent + 1) for v in value)
        return "(\n" + body + "\n" + pad + ")"
    return _scalar(value)


def type_name(value):
    """`defaults read-type` wording."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, dict):
        return "dictionary"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bytes):
        return "data"
    if isinstance(value, datetime.datetime):
        return "date"
    return "string"


def plutil_p(value, indent=0):
    """plutil -p: `"key" => value`, 2-space indent, arrays indexed."""
    pad = "  " * indent
    if isinstance(value, dict):
        body = "".join('{}  "{}" => {}\n'.format(pad, k, plutil_p(v, indent + 1))
                       for k, v in sorted(value.items()))
        return "{\n" + body + pad + "}"
    if isinstance(value, list):
        body = "".join("{}  {} => {}\n".format(pad, i, plutil_p(v, indent + 1))
                       for i, v in enumerate(value))
        return "[\n" + body + pad + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, bytes):
        return "{{length = {}, bytes = 0x{}}}".format(len(value), value.hex())
    return '"{}"'.format(value)
