"""Pure output formatters of the lab's macOS command shims.

One module per command family. Every function takes plain data (dicts, lists, numbers) and
returns the exact text the macOS command prints; none reads files, the clock or the network,
so the unit tests can pin every format. Shapes come from
public sources (Apple TN3205, the MLX and exo code that reads each command, published captures
from real Macs), named in each module; a function whose format none of them confirms says so.
"""
