"""The lab's macOS commands, one module per command family (see lab/DESIGN.md, "Shim").

`registry` holds the commands (`@command(PATH)` on each handler), `state` the host as a command
sees it, `dispatch.main` the multi-call entry. Family modules: system, power, network (network
services), interfaces (live interfaces and routes), rdma, launchctl, brew, accounts, files, prefs,
pfctl.
"""
