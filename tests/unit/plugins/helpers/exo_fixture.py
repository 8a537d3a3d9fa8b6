"""launchctl's answers for exo's job, running and stopped, and exo node ids."""

RUNNING = (0, "system/org.macops.exo = {\n\tactive count = 1\n\tstate = running\n\tpid = 812\n"
              "\tendpoints = {\n\t\tstate = active\n\t}\n}\n", "")
STOPPED = (0, "system/org.macops.exo = {\n\tstate = not running\n\tlast exit code = 1\n}\n", "")
IDS = ["12D3KooWA", "12D3KooWB", "12D3KooWC", "12D3KooWD"]
