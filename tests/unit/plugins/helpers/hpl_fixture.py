"""The node facts HPL is sized from."""

GIB = 1 << 30
MACS = {"mac1": {"memory_bytes": 512 * GIB, "cores_performance": 24, "cores_total": 32},
        "mac2": {"memory_bytes": 256 * GIB, "cores_performance": 24, "cores_total": 32}}
