#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Adds the SPDX license line to every source file that lacks it (idempotent).

The files are those tests/cmake/TestSpdxHeaders.cmake checks: .h .cpp .py .sh .cmake and
CMakeLists.txt under the project's folders, the top CMakeLists.txt and .ci/run. C++ files
get `// SPDX-...` as their first line; scripts get `# SPDX-...`, after a `#!` line.
Usage: python3 scripts/add-spdx-headers.py [--check]
"""
import pathlib
import sys

LINE = "SPDX-License-Identifier: GPL-3.0-or-later"
ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = ["app", "bench", "cmake", "core", "packaging", "resources", "scripts", "tests", "ui"]
SUFFIXES = {".h", ".cpp", ".py", ".sh", ".cmake"}


def sources():
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and (path.suffix in SUFFIXES or path.name == "CMakeLists.txt"):
                yield path
    yield ROOT / "CMakeLists.txt"
    yield ROOT / ".ci" / "run"


def with_header(text, path):
    comment = "// " if path.suffix in {".h", ".cpp"} else "# "
    lines = text.splitlines(keepends=True)
    at = 1 if lines and lines[0].startswith("#!") else 0
    return "".join(lines[:at] + [comment + LINE + "\n"] + lines[at:])


def main():
    check = "--check" in sys.argv[1:]
    missing = []
    for path in sources():
        text = path.read_text(encoding="utf-8")
        if LINE in "".join(text.splitlines(keepends=True)[:3]):
            continue
        missing.append(path)
        if not check:
            path.write_text(with_header(text, path), encoding="utf-8")
    for path in missing:
        print(("missing: " if check else "added: ") + str(path.relative_to(ROOT)))
    return 1 if check and missing else 0


if __name__ == "__main__":
    sys.exit(main())
