#!/usr/bin/env python3
"""The parts rule of Docs/ARCHITECTURE.md ("Parts return effects"), checked by `make lint`.

The control plane's parts (Memberships, Floors, FloorActionFrames, RelayLink, Recordings, AdminOperations) decide and
return `PlaneEffect`s; `ControlPlane.run` carries them out. A part may read another part's state through the plane
(the queries listed in QUERIES) and hand directory changes to the write queue (`plane.writes`), but it never calls
another part to make something happen. This script finds every `plane.PART.NAME` in the parts' files and fails on a
NAME that is not a listed query.
"""

import os
import re
import sys

PARTS_FILES = re.compile(
    r"^(Memberships|Floors|FloorActionFrames|RelayLink|Recordings|AdminOperations|Emergencies|Calls|Broadcasts|Scans)"
    r"(\+\w+)?\.swift$"
)
SIBLING = re.compile(
    r"\bplane\.(floors|memberships|recordings|relayLink|admin|notifier|announcements|signInLinks|cluster|broadcasts"
    r"|scans|emergencies|calls)\??\.(\w+)"
)
# What a part may read of another: each returns state and changes nothing.
QUERIES = {
    "floors": {"state", "holders"},
    "recordings": {"isRecorded"},
    "relayLink": {"heardAnywhere", "droppedPackets", "mediaPort"},
    "notifier": {"wakeRoute", "pushToken", "ledger"},
    "announcements": {"book"},
    "cluster": {"remoteOwner", "relayedNodes", "heardElsewhere", "remoteFloors"},
    "broadcasts": {"lock", "isSending", "info"},
    "scans": {"rank"},
    "emergencies": {"emergency"},
}


def main():
    root = os.path.join("Sources", "PTTServer", "Plane")
    found = []
    for name in sorted(os.listdir(root)):
        if not PARTS_FILES.match(name):
            continue
        path = os.path.join(root, name)
        with open(path, encoding="utf-8") as file:
            for number, line in enumerate(file, 1):
                if line.lstrip().startswith("///") or line.lstrip().startswith("//"):
                    continue
                for part, member in SIBLING.findall(line):
                    if member not in QUERIES.get(part, set()):
                        found.append(f"{path}:{number}: calls plane.{part}.{member}: return a PlaneEffect instead")
    for line in found:
        print(line, file=sys.stderr)
    if found:
        return 1
    print("Parts: OK (the plane's parts return effects; they read each other only through the listed queries)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
