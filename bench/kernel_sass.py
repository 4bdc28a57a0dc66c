#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Our CUDA kernels as the GPU will run them, read from the CUDA build's objects without a GPU.

For each kernel of each architecture compiled into the objects (sm_80, sm_90): its registers
and stack, and its main loop (the loop holding the most arithmetic: one stage of a
convolution's products) counted by instruction kind: arithmetic (FFMA, HMMA, ...), shared
loads (LDS, LDSM), generic loads (LD: shared memory reached through a generic address), global
loads (LDG) and local-memory traffic (LDL/STL: registers spilled). On the CUDA cores, the
arithmetic's share of the loop is the most of the math pipe it can keep busy by instruction issue
alone; a tensor-core instruction holds its pipe for several cycles, so those loops get no share.

    bench/kernel_sass.py build-cuda [--arch sm_90] [--kernel grouped_conv] [--check]

OBJECTS: .cu.o files, or folders searched for them. --check exits 1 naming each kernel that
indexes in 32 bits (every tensor below 2^31 elements: the CNN's) and reads or writes local
memory inside its main loop (spilled registers, on every stage): a slowdown no test on the CPU
can see. A value kept on the stack across the loop (sm_80's fp32 weight gradient kept one) is
no such cost. The 64-bit versions may spill; they run only on tensors too large for 32-bit
offsets.

cuobjdump comes from PATH, or from the Triton that the torch wheel installs
(scripts/torch-venv.sh), or --cuobjdump.
"""
import argparse, collections, glob, os, re, shutil, subprocess, sys

from run_bench import venv

MATH = ("FFMA", "FMUL", "FADD", "HFMA2", "HMMA", "IMMA", "DFMA", "HMUL2", "HADD2")


def find_cuobjdump(given):
    if given:
        return given
    if shutil.which("cuobjdump"):
        return shutil.which("cuobjdump")
    # Triton's copy: in this Python's site-packages, or in scripts/torch-venv.sh's environment.
    tail = os.path.join("triton", "backends", "nvidia", "bin", "cuobjdump")
    found = [os.path.join(path, tail) for path in sys.path if path.endswith("-packages")]
    if not any(os.access(candidate, os.X_OK) for candidate in found):
        torch_venv = venv("torch-venv.sh")
        found = sorted(glob.glob(os.path.join(torch_venv, "lib", "python*", "site-packages", tail))) if torch_venv else []
    for candidate in found:
        if os.access(candidate, os.X_OK):
            return candidate
    sys.exit("kernel_sass.py: no cuobjdump: put the CUDA toolkit's on PATH, or make the torch wheel's "
             "environment (bash scripts/torch-venv.sh), whose Triton carries one; or pass --cuobjdump")


def objects_in(paths):
    found = []
    for path in paths:
        if os.path.isdir(path):
            found += sorted(glob.glob(os.path.join(path, "**", "*.cu.o"), recursive=True))
        elif os.path.isfile(path):
            found.append(path)
        else:
            sys.exit(f"kernel_sass.py: {path} does not exist")
    if not found:
        sys.exit(f"kernel_sass.py: no .cu.o object under {', '.join(paths)}: build the CUDA build first "
                 "(scripts/build-cuda.sh)")
    return found


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    short = []
    for name in out.stdout.splitlines():
        name = re.sub(r"^void ", "", name)
        name = re.sub(r"ensemble::kernels::\w+::", "", name)  # the inline namespace of the compiler
        short.append(re.sub(r"\(.*$", "", name))
    return dict(zip(names, short))


def sections(cuobjdump, option, obj):
    """Each line cuobjdump prints with `option`, with the architecture and the kernel it is under."""
    text = subprocess.run([cuobjdump, option, obj], capture_output=True, text=True, check=True).stdout
    arch = function = None
    for line in text.splitlines():
        m = re.search(r"arch = (sm_\d+)", line)
        if m:
            arch = m.group(1)
        m = re.match(r"\s*Function\s*:?\s*(\S+?):?\s*$", line)
        if m:
            function = m.group(1)
        elif function:
            yield arch, function, line


def resources(cuobjdump, obj):
    """(arch, mangled name) -> {'REG': n, 'STACK': n, 'SHARED': n, 'LOCAL': n, ...}"""
    return {(arch, function): {k: int(v) for k, v in re.findall(r"(\w+):(\d+)", line)}
            for arch, function, line in sections(cuobjdump, "-res-usage", obj) if "REG:" in line}


def functions(cuobjdump, obj):
    """(arch, mangled name) -> [(address, opcode, operands)]"""
    found = collections.defaultdict(list)
    for arch, function, line in sections(cuobjdump, "-sass", obj):
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);", line)
        if m:
            found[(arch, function)].append((int(m.group(1), 16), m.group(2), m.group(3)))
    return found


def kind(opcode):
    if opcode.startswith(MATH) and not opcode.startswith("HFMA2.MMA"):  # HFMA2.MMA: a move, on the MMA pipe
        return "math"
    if opcode.startswith(("LDL", "STL")):
        return "local"
    if opcode.startswith(("LDS", "LDSM")):
        return "shared"
    if opcode.startswith("LDG"):
        return "global"
    if opcode == "LD" or opcode.startswith("LD."):
        return "generic"
    return "other"


def main_loop(instructions):
    """The instructions of the backward branch's range that holds the most arithmetic."""
    loops = []
    for address, opcode, operands in instructions:
        m = re.search(r"0x([0-9a-f]+)", operands) if opcode == "BRA" else None
        if m and int(m.group(1), 16) < address:
            loops.append((int(m.group(1), 16), address))
    best, best_math = instructions, -1
    for low, high in loops:
        body = [i for i in instructions if low <= i[0] <= high]
        math = sum(kind(op) == "math" for _, op, _ in body)
        if math > best_math:
            best, best_math = body, math
    return best


def rows(cuobjdump, objects, arch, pattern):
    table = []
    for obj in objects:
        usage = resources(cuobjdump, obj)
        code = functions(cuobjdump, obj)
        names = demangle([name for _, name in code])
        for (function_arch, mangled), instructions in code.items():
            name = names[mangled]
            if (arch and function_arch != arch) or not re.search(pattern, name):
                continue
            loop = main_loop(instructions)
            counts = collections.Counter(kind(op) for _, op, _ in loop)
            math_kinds = collections.Counter(op.split(".")[0] for _, op, _ in loop if kind(op) == "math")
            table.append({"arch": function_arch, "kernel": name, "object": os.path.basename(obj),
                          "registers": usage.get((function_arch, mangled), {}).get("REG", 0),
                          "stack": usage.get((function_arch, mangled), {}).get("STACK", 0),
                          "loop": len(loop), "math": counts["math"],
                          "tensor_cores": any(k.startswith(("HMMA", "IMMA")) for k in math_kinds),
                          "math_kinds": ", ".join(f"{n} {k}" for k, n in math_kinds.most_common()),
                          "shared": counts["shared"], "generic": counts["generic"], "global": counts["global"],
                          "local": counts["local"]})
    return table


def markdown(table):
    lines = ["| arch | kernel | registers | stack | main loop: instructions | arithmetic | share | shared loads "
             "| generic loads | global loads | local (spills) |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table:
        share = f"{100 * r['math'] / r['loop']:.0f}%" if r["loop"] and not r["tensor_cores"] else ""
        lines.append(f"| {r['arch']} | `{r['kernel']}` | {r['registers']} | {r['stack']} | {r['loop']} "
                     f"| {r['math_kinds'] or 0} | {share} | {r['shared']} | {r['generic']} | {r['global']} "
                     f"| {r['local']} |")
    return "\n".join(lines)


def indexes_in_32_bits(kernel):
    """A kernel templated on its index type, at int; or one not templated on it at all."""
    return not re.search(r"\blong\b", kernel)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("objects", nargs="+", help=".cu.o files, or folders to search for them (build-cuda)")
    p.add_argument("--arch", default="", help="only this architecture (sm_80, sm_90)")
    p.add_argument("--kernel", default="", help="only kernels whose name matches this regular expression")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if a 32-bit-index kernel touches local memory inside its main loop")
    p.add_argument("--cuobjdump", help="the cuobjdump to use")
    a = p.parse_args()
    table = rows(find_cuobjdump(a.cuobjdump), objects_in(a.objects), a.arch, a.kernel)
    if not table:
        sys.exit(f"kernel_sass.py: no kernel matches --kernel '{a.kernel}' --arch '{a.arch}'")
    print(markdown(table))
    if a.check:
        bad = [r for r in table if indexes_in_32_bits(r["kernel"]) and r["local"]]
        for r in bad:
            print(f"kernel_sass.py: {r['arch']} {r['kernel']} ({r['object']}): {r['local']} local-memory "
                  f"instructions in its main loop (a {r['stack']}-byte stack frame): it spills registers on "
                  "every stage; lighten the loop (fewer values live at once) or lift its __launch_bounds__",
                  file=sys.stderr)
        if bad:
            sys.exit(1)
        print(f"kernel_sass.py: none of the {sum(indexes_in_32_bits(r['kernel']) for r in table)} 32-bit-index "
              "kernels spills in its main loop", file=sys.stderr)


if __name__ == "__main__":
    main()
