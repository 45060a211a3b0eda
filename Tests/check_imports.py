#!/usr/bin/env python3
"""Fails when a Swift file imports a module that its target does not declare in Package.swift.

Swift lets a module see what its dependencies import (a transitive import); DESIGN.md's arrows allow only what
Package.swift declares. And the storage seam (DESIGN.md "Storage: one seam, two engines"): in the domain, only the
files under Sources/Gatehouse/Store/Engines/ import a database engine; every other file sees the seam (`Storage`).
Run by `make test` (target check-imports). Usage: check_imports.py [swift]
"""
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the platform, which no target declares.
PLATFORM = {"Foundation", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization",
            "Testing", "XCTest", "_Concurrency", "os"}
# The database engines, and where in the domain they may be imported.
ENGINES = {"SQLite", "PostgreSQL"}
ENGINE_FOLDER = "Sources/Gatehouse/Store/Engines"
IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)")


def main() -> int:
    swift = sys.argv[1] if len(sys.argv) > 1 else "swift"
    package = json.loads(subprocess.check_output([swift, "package", "dump-package"], stderr=subprocess.DEVNULL))
    undeclared = []
    for target in package["targets"]:
        name = target["name"]
        path = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + name
        declared = {name}
        for dependency in target["dependencies"]:
            for value in dependency.values():
                declared.add(value[0])
        for root, _, files in os.walk(path):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                with open(os.path.join(root, file), encoding="utf-8") as source:
                    for number, line in enumerate(source, 1):
                        match = IMPORT.match(line)
                        if match and match.group(1) not in PLATFORM | declared:
                            undeclared.append(f"{root}/{file}:{number}: target {name} imports {match.group(1)}, "
                                              "which Package.swift does not declare for it")
                        elif match and name == "Gatehouse" and match.group(1) in ENGINES and root != ENGINE_FOLDER:
                            undeclared.append(f"{root}/{file}:{number}: imports the engine {match.group(1)}: outside "
                                              f"{ENGINE_FOLDER}/ the domain uses the storage seam (Storage) only")
    for line in undeclared:
        print(line)
    print(f"imports: {len(undeclared)} undeclared")
    return 1 if undeclared else 0


if __name__ == "__main__":
    sys.exit(main())
