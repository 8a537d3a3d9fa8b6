"""Pure output formatters of the lab's macOS command shims.

One module per command family. Every function takes plain data (dicts, lists, numbers) and
returns the exact text the macOS command prints; none reads files, the clock or the network,
so the unit tests can pin every format. Shapes come from
`shared/research/macos-commands.md`; a function whose format is not confirmed there says so.
"""
