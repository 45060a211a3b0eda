#!/usr/bin/env python3
"""Fails when a Swift file imports a module that its target does not declare in Package.swift.

Swift lets a module see what its dependencies import (a transitive import); the module graph (docs/architecture.md
"Layers and modules") allows only what Package.swift declares. And what the compiler cannot say of the layers: in the
domain, only the files under Sources/Gatehouse/Store/Engines/ import a database engine (every other file sees the seam,
`Storage`); `Store` declares no cache (each service owns its own); of the executable, only `serve` (Serve.swift)
imports GatehouseWeb, so every other command opens the domain alone. (That the web builds no service and never sees
the store, the compiler keeps: docs/architecture.md "The composition root".) Run by `make test` (target
check-imports). Usage: check_imports.py [swift]
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
# The files of the executable that may build the web.
WEB_COMMANDS = {"Sources/gatehouse/Serve.swift"}
# A stored property (a declaration at a type's top level, four spaces in) whose type or initial value is a cache.
CACHE_FIELD = re.compile(r"^ {4}(?:(?:public|internal|private|fileprivate)\s+)?(?:let|var)\s+\w+\s*(?::[^=]*\w*Cache\b|=\s*\w*Cache\b)")
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
    crossings = layering()
    for line in crossings:
        print(line)
    print(f"layering: {len(crossings)} crossings")
    return 1 if undeclared or crossings else 0


def code_lines(path):
    """The file's lines without `//` comments and string literals (what the code names, not what it says)."""
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
            yield number, line.split("//", 1)[0]


def swift_files(folder):
    for root, _, files in os.walk(folder):
        for file in sorted(files):
            if file.endswith(".swift"):
                yield os.path.join(root, file)


def layering():
    """What the compiler cannot say. That the web builds no service and names no store is the compiler's to keep: a
    service's initialiser takes a `Wiring` only Domain.swift can make, and the store and its caches are internal to
    the domain's module."""
    crossings = []
    for path in swift_files("Sources/Gatehouse/Store"):
        for number, line in code_lines(path):
            if CACHE_FIELD.match(line):
                crossings.append(f"{path}:{number}: the store declares a cache; the service that reads the table owns it")
    for path in swift_files("Sources/gatehouse"):
        if path in WEB_COMMANDS:
            continue
        for number, line in code_lines(path):
            if IMPORT.match(line) and IMPORT.match(line).group(1) == "GatehouseWeb":
                crossings.append(f"{path}:{number}: a one-shot command reaches GatehouseWeb; only serve builds the web")
    return crossings


if __name__ == "__main__":
    sys.exit(main())
