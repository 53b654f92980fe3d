#!/usr/bin/env python3
"""What PTTKit (the client library for iPhone apps and their Local Push extension) may depend on (issue 22).

PTTKit must build on iOS, macOS and Linux from Swift packages alone, so the transitive closure of its target
dependencies may hold only:

  * Swift source targets of this package (PTTProtocol, RTP, PortableSRTP, SRTPFormat, ...);
  * products of the packages swift-nio, swift-nio-ssl and swift-crypto (NIOCore, NIOPosix, NIOSSL, Crypto,
    _CryptoExtras, ...), and of swift-atomics, swift-collections and swift-system: those three come with swift-nio
    anyway (they are its own dependencies, pure Swift or with C shims they ship themselves, built on every Apple
    platform and Linux), so naming one of their products directly adds no new package to an app.

It may NOT hold:

  * a system-library target (`.systemLibrary`: COpus, CSRTP, CCrypto, COgg): it needs a library installed with
    pkg-config on the build machine, which an iPhone has not;
  * a C, C++ or Objective-C target of ours (CUDPBatch): module type ClangTarget, or sources ending in .c, .cc, .cpp,
    .cxx, .m, .mm, .s or .S; nor a binary target;
  * a product of any other package (async-http-client, GRDB.swift, postgres-nio, swift-log, swift-certificates,
    ...): each is a dependency every app would inherit, and some (GRDB, postgres-nio) are server-only.

Products are not followed into their packages (what swift-nio needs is swift-nio's business); our own targets are
followed through every dependency, conditional ones included (a Linux-only system library still breaks the Linux
build of an app's tests). A dependency named `byName` that is not a target of ours is a product of the package of
that name, as SwiftPM resolves it.

The second check reads every Swift file of the targets of ours in that closure: an import of Glibc, Musl or Darwin
(`import Glibc`, `@preconcurrency import Darwin`, `import func Glibc.exit`, ...) must be compiled only under a
platform condition: some enclosing `#if`/`#elseif`/`#else` branch whose chain tests `canImport(...)` or `os(...)`.
An unguarded one fails with FILE:LINE (it breaks the build on the platforms that lack the module).

Input: by default the script runs, in the package root, `swift package dump-package` (the graph: it names the
package of each product, `.product(name:package:)`) and `swift package describe --type json` (each target's module
type and sources), with a scratch path of its own so as not to wait for the lock of a build running in .build.
Neither resolves or fetches packages; each takes well under a second. For tests, `--json FILE`
(once or twice) gives their output instead; the kind of each file is recognised by its shape. With a describe JSON
alone, products have no package and fail as such.

Output: one line per check, "PTTKit dependencies: OK (targets: ..., products: ...)" and "PTTKit sources: OK (...)",
or FAILED and one line per finding (with the chain from PTTKit to it, or FILE:LINE). Exit 0 when both pass, 1 on
any finding, 2 when the input cannot be read.

Usage: Tests/Scripts/check-kit-dependencies.py [--package-path DIR] [--target PTTKit] [--json FILE]...
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import deque

ALLOWED_PACKAGES = ("swift-nio", "swift-nio-ssl", "swift-crypto")
# Come with swift-nio (its own dependencies): allowed by name too.
ALLOWED_WITH_SWIFT_NIO = ("swift-atomics", "swift-collections", "swift-system")
PLATFORM_MODULES = ("Glibc", "Musl", "Darwin")
C_SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".m", ".mm", ".s", ".S")


class InputError(Exception):
    pass


class Target:
    def __init__(self, name):
        self.name = name
        self.kind = None  # "swift", "clang", "system", "binary", or another module type / dump type
        self.detail = ""  # why it is not Swift (sources, pkg-config name)
        self.path = None
        self.sources = None  # relative to path, when describe listed them
        self.exclude = []
        self.deps = []  # ("target" | "product" | "byName", name, package or None)


def load_json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot read {path}: {error}")


def run_swift(package_path, arguments):
    swift = os.environ.get("SWIFT") or "swift"
    # A scratch path of its own (these commands build nothing): with the package's .build, SwiftPM would wait for
    # its lock while a build or `swift test` runs. SwiftPM also leaves a lock file named after the scratch path in
    # the temporary directory (/tmp/_tmp_kit-check-XXXX.lock): removed too.
    with tempfile.TemporaryDirectory(prefix="kit-check-") as scratch:
        try:
            result = subprocess.run(
                [swift, "package", "--package-path", package_path, "--scratch-path", scratch] + arguments,
                capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise InputError(f"swift package {' '.join(arguments)}: {error}")
        finally:
            lock = os.path.join(tempfile.gettempdir(), scratch.replace(os.sep, "_") + ".lock")
            if os.path.isfile(lock):
                os.remove(lock)
    if result.returncode != 0:
        raise InputError(f"swift package {' '.join(arguments)} exited {result.returncode}: {result.stderr.strip()}")
    try:
        return json.loads(result.stdout)
    except ValueError as error:
        raise InputError(f"swift package {' '.join(arguments)} printed no JSON: {error}")


def kind_of(document):
    """'describe' (swift package describe --type json) or 'dump' (swift package dump-package)."""
    if not isinstance(document, dict) or not isinstance(document.get("targets"), list):
        raise InputError("not a package description: no \"targets\" list")
    if "toolsVersion" in document or "packageKind" in document:
        return "dump"
    if "manifest_display_name" in document or "tools_version" in document:
        return "describe"
    for target in document["targets"]:
        if "module_type" in target or "target_dependencies" in target or "product_dependencies" in target:
            return "describe"
        if isinstance(target.get("dependencies"), list):
            return "dump"
    raise InputError("cannot tell whether the JSON is from `describe --type json` or `dump-package`")


def read_describe(document, targets):
    for entry in document["targets"]:
        target = targets.setdefault(entry["name"], Target(entry["name"]))
        target.path = entry.get("path") or target.path
        target.sources = entry.get("sources")
        module_type = entry.get("module_type", "")
        sources = entry.get("sources") or []
        c_sources = [s for s in sources if s.endswith(C_SOURCE_SUFFIXES)]
        if module_type == "SystemLibraryTarget" or entry.get("type") == "system-target":
            target.kind = "system"
        elif module_type == "BinaryTarget" or entry.get("type") == "binary":
            target.kind = "binary"
        elif module_type == "ClangTarget" or c_sources:
            target.kind = "clang"
            target.detail = "sources: " + ", ".join((c_sources or sources)[:3]) + (", ..." if len(sources) > 3 else "")
        elif module_type == "SwiftTarget" and target.kind is None:
            target.kind = "swift"
        elif target.kind is None:
            target.kind = module_type or entry.get("type") or "unknown"
        if not target.deps:  # dump-package's graph, when given, names the packages
            target.deps = [("target", name, None) for name in entry.get("target_dependencies", [])]
            target.deps += [("product", name, None) for name in entry.get("product_dependencies", [])]


def read_dump(document, targets):
    for entry in document["targets"]:
        target = targets.setdefault(entry["name"], Target(entry["name"]))
        target.path = target.path or entry.get("path") or (
            ("Tests/" if entry.get("type") == "test" else "Sources/") + entry["name"])
        target.exclude = entry.get("exclude") or []
        if target.sources is None and entry.get("sources"):
            target.sources = entry["sources"]
        dump_type = entry.get("type")
        if dump_type == "system":
            target.kind = "system"
            if entry.get("pkgConfig"):
                target.detail = "pkg-config " + entry["pkgConfig"]
        elif dump_type == "binary":
            target.kind = "binary"
        deps = []
        for dependency in entry.get("dependencies") or []:
            if "target" in dependency:
                deps.append(("target", dependency["target"][0], None))
            elif "product" in dependency:
                deps.append(("product", dependency["product"][0], dependency["product"][1]))
            elif "byName" in dependency:
                deps.append(("byName", dependency["byName"][0], None))
        target.deps = deps


def classify_by_files(target, root):
    """A regular target of a dump-package without describe: C if its directory holds C sources."""
    if target.kind is not None:
        return
    directory = os.path.join(root, target.path or "")
    found = []
    for folder, _, files in os.walk(directory):
        found += [os.path.relpath(os.path.join(folder, f), directory) for f in files if f.endswith(C_SOURCE_SUFFIXES)]
    if found:
        target.kind = "clang"
        target.detail = "sources: " + ", ".join(sorted(found)[:3]) + (", ..." if len(found) > 3 else "")
    else:
        target.kind = "swift"


def allowed_package(package):
    return package is not None and package.lower() in ALLOWED_PACKAGES + ALLOWED_WITH_SWIFT_NIO


def check_dependencies(kit, targets, root):
    """Returns (findings, own targets in the closure, products in the closure)."""
    parent = {("target", kit): None}
    queue = deque([("target", kit)])
    closure_targets, products, findings = [], {}, []

    def chain(node):
        names = []
        while node is not None:
            if node[0] == "target":
                names.append(node[1])
            else:
                product, _, package = node[1].partition("@")
                names.append(f"{product} (product of {package})" if package != "None" else f"{product} (product)")
            node = parent[node]
        return " → ".join(reversed(names))

    while queue:
        node = queue.popleft()
        target = targets[node[1]]
        closure_targets.append(target.name)
        for kind, name, package in target.deps:
            if kind == "byName":
                kind, package = ("target", None) if name in targets else ("product", name)
            if kind == "target" and name not in targets:
                raise InputError(f"target {target.name} depends on a target {name} the package does not have")
            child = (kind, name) if kind == "target" else ("product", f"{name}@{package}")
            if child in parent:
                continue
            parent[child] = node
            if kind == "target":
                queue.append(child)
            else:
                products[name] = package

    for name in closure_targets:
        target = targets[name]
        classify_by_files(target, root)
        node = ("target", name)
        if target.kind == "system":
            findings.append(f"system-library target {name}" + (f" ({target.detail})" if target.detail else "")
                            + f": {chain(node)}")
        elif target.kind == "clang":
            findings.append(f"C-language target {name} ({target.detail}): {chain(node)}")
        elif target.kind == "binary":
            findings.append(f"binary target {name}: {chain(node)}")
        elif target.kind != "swift":
            findings.append(f"target {name} of type {target.kind} (not a Swift library target): {chain(node)}")
    for node in parent:
        if node[0] != "product":
            continue
        name, _, package = node[1].partition("@")
        package = None if package == "None" else package
        if package is None:
            findings.append(f"product {name} from an unknown package (`describe` does not say; give "
                            f"`dump-package` JSON too): {chain(node)}")
        elif not allowed_package(package):
            findings.append(f"product {name} from package {package}: {chain(node)}")
    return findings, closure_targets, products


IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"(" + "|".join(PLATFORM_MODULES) + r")\b")
DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")
PLATFORM_CONDITION = re.compile(r"\b(canImport|os)\s*\(")


def strip_comments(line, in_block):
    """The line without comments (block comments may span lines), and whether a block comment is still open."""
    out, i = [], 0
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            in_block, i = False, end + 2
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block, i = True, i + 2
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_block


def unguarded_imports(path):
    """(line number, module) of each import of Glibc/Musl/Darwin outside any platform condition."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().split("\n")
    findings = []
    stack = []  # per open #if: [conditions of the chain so far, whether the branch now open is platform-guarded]
    in_block, in_string = False, False
    for number, raw in enumerate(lines, 1):
        line, in_block = strip_comments(raw, in_block) if not in_string else (raw, in_block)
        if line.count('"""') % 2 == 1:
            in_string = not in_string
            continue
        if in_string:
            continue
        directive = DIRECTIVE.match(line)
        if directive:
            word, condition = directive.group(1), directive.group(2)
            if word == "if":
                stack.append([[condition], bool(PLATFORM_CONDITION.search(condition))])
            elif not stack:
                findings.append((number, f"#{word} without #if"))
            elif word == "endif":
                stack.pop()
            else:
                chain = stack[-1][0]
                if word == "elseif":
                    chain.append(condition)
                stack[-1][1] = any(PLATFORM_CONDITION.search(c) for c in chain)
            continue
        match = IMPORT.match(line)
        if match and not any(frame[1] for frame in stack):
            findings.append((number, f"import {match.group(1)} outside `#if canImport({match.group(1)})` "
                                     "or `#if os(...)`"))
    return findings


def swift_files(target, root):
    directory = os.path.join(root, target.path or os.path.join("Sources", target.name))
    if target.sources is not None:
        return sorted(os.path.join(directory, s) for s in target.sources if s.endswith(".swift"))
    excluded = [os.path.normpath(os.path.join(directory, e)) for e in target.exclude]
    result = []
    for folder, _, files in os.walk(directory):
        for name in files:
            path = os.path.normpath(os.path.join(folder, name))
            if name.endswith(".swift") and not any(path == e or path.startswith(e + os.sep) for e in excluded):
                result.append(path)
    return sorted(result)


def check_sources(closure_targets, targets, root):
    findings, checked, own = [], 0, []
    for name in closure_targets:
        target = targets[name]
        if target.kind != "swift":
            continue
        own.append(name)
        for path in swift_files(target, root):
            checked += 1
            try:
                found = unguarded_imports(path)
            except OSError as error:
                findings.append(f"{os.path.relpath(path, root)}: cannot read: {error}")
                continue
            findings += [f"{os.path.relpath(path, root)}:{line}: {what}" for line, what in found]
    return findings, checked, own


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--package-path", default=default_root, help="the package root (default: this repository)")
    parser.add_argument("--target", default="PTTKit", help="the target to check (default: PTTKit)")
    parser.add_argument("--json", action="append", default=[], metavar="FILE",
                        help="output of `swift package describe --type json` and/or `swift package dump-package` "
                             "('-': standard input) instead of running them")
    arguments = parser.parse_args()
    root = os.path.abspath(arguments.package_path)
    kit = arguments.target
    try:
        documents = []
        if arguments.json:
            for path in arguments.json:
                documents.append(json.load(sys.stdin) if path == "-" else load_json(path))
        else:
            documents = [run_swift(root, ["dump-package"]), run_swift(root, ["describe", "--type", "json"])]
        kinds = [kind_of(d) for d in documents]
        targets = {}
        # describe first (module types, sources), then dump (the graph with package names) over it.
        for document, kind in sorted(zip(documents, kinds), key=lambda pair: pair[1] != "describe"):
            (read_describe if kind == "describe" else read_dump)(document, targets)
        if kit not in targets:
            raise InputError(f"the package has no target {kit}")
        dependency_findings, closure, products = check_dependencies(kit, targets, root)
        source_findings, checked, own = check_sources(closure, targets, root)
    except InputError as error:
        print(f"{kit} checks: cannot run: {error}", file=sys.stderr)
        return 2

    if dependency_findings:
        print(f"{kit} dependencies: FAILED: {len(dependency_findings)} not allowed in the kit "
              "(it must build on iOS, macOS and Linux from Swift packages alone):")
        for finding in dependency_findings:
            print(f"  {finding}")
        first_hops = sorted({f.split(": ")[-1].split(" → ")[1].split(" (")[0] for f in dependency_findings})
        print(f"  {kit} reaches them through {', '.join(first_hops)}: drop or replace that dependency in Package.swift.")
        print(f"  Allowed: Swift targets of this package, products of {', '.join(ALLOWED_PACKAGES)} (and of "
              f"{', '.join(ALLOWED_WITH_SWIFT_NIO)}, which come with swift-nio); the rule is in "
              "Tests/Scripts/check-kit-dependencies.py.")
    else:
        product_list = ", ".join(f"{name} ({package})" for name, package in sorted(products.items()))
        print(f"{kit} dependencies: OK (targets: {', '.join(sorted(closure))}; products: {product_list or 'none'})")
    if source_findings:
        print(f"{kit} sources: FAILED: {len(source_findings)} unguarded platform imports "
              f"({'/'.join(PLATFORM_MODULES)} exist on some platforms only):")
        for finding in source_findings:
            print(f"  {finding}")
    else:
        print(f"{kit} sources: OK ({checked} Swift file{'' if checked == 1 else 's'} of {', '.join(own)}: every "
              f"{'/'.join(PLATFORM_MODULES)} import is under a platform condition)")
    return 1 if dependency_findings or source_findings else 0


if __name__ == "__main__":
    sys.exit(main())
