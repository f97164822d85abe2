#!/usr/bin/env python3
"""The release link's function order (scripts/build-release.sh, scripts/hot-symbols.sh).

    python3 scripts/hot-symbols.py order BINARY OUT   # write the ordering file for BINARY's names
    python3 scripts/hot-symbols.py check BINARY       # are the hot functions together in BINARY?

`scripts/hot-symbols.txt` lists the functions a `hookbridge run` executes, each as its symbol name
without the hash Rust appends (`17h<16 hex digits>E`) and the numbers LLVM appends to a local copy
(`.llvm.<n>`, `.<n>`; a name of the list that still has them is read without them): the hash changes with a crate's build
settings and a generic function has one symbol per instance, so the list names functions and
`order` finds their symbols in a given binary. The linker (`--symbol-ordering-file`) then places
them first, in the list's order.

`order` writes OUT only when what it would write differs from what is there, and then exits 3 (the
binary must be linked again with it); 0 when OUT was already right.
`check` fails when the list has gone stale (under 75 % of it is found in the binary: regenerate
it with scripts/hot-symbols.sh) or when the link did not order them (the nearest 90 % of the hot
functions span more than 2 MiB: ordered, the 572 functions of 8ccc9ec's list span 1,068 KiB in all
and their nearest 90 % 1,027 KiB; unordered, as `cargo build --release` links them, they spread
over about 4 to 5 MiB), or when a hot function executes `cpuid` (below).

CPUID: in a virtual machine every `cpuid` instruction traps to the hypervisor. On the 2-core VM the
benchmarks run on, the three `cpuid`s of sha2's SHA-NI probe cost `run` about 100 µs per event (an
interleaved comparison, commit 83cdd2a), so hookbridge-core builds sha2 with `force-soft`. The
C library's own start-up probes (every process pays them, the floor programs too) are not Rust
functions and are not checked; a Rust function of the list that executes `cpuid` fails the check
(the list is what a run executed when it was last made: a probe that joins the run path is caught
once it is regenerated), and so does sha2's SHA-NI probe being in the binary at all (`force-soft`
dropped).
"""
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

LIST = Path(__file__).with_name("hot-symbols.txt")
# Symbols that must not be in the release binary at all (by prefix), with the reason.
NEVER = {"_ZN4sha26sha2563x8611shani_cpuid": "sha2's SHA-NI probe (hookbridge-core builds sha2 with force-soft)"}
# The hash Rust appends to a legacy-mangled name.
HASH = re.compile(r"17h[0-9a-f]{16}E$")
# The suffixes LLVM gives a local symbol it renames or copies (`.llvm.<n>`, `.<n>`): their numbers
# change with any change to the code, so a list naming them would miss the function after the next
# edit anywhere in the program (measured: nine listed `….<n>` names missing after a change to the
# sandbox alone, and `run` 11 % slower for the page faults of the hot functions left out of place).
SUFFIX = re.compile(r"(\.llvm\.[0-9]+|\.[0-9]+)+$")


def unhashed(name: str) -> str:
    """`name` without its hash and LLVM's suffixes: the function, whichever build it is of."""
    return HASH.sub("", SUFFIX.sub("", name))


def listed() -> list[str]:
    return [unhashed(line.strip()) for line in LIST.read_text().splitlines() if line.strip()]


def code_symbols(binary: str) -> dict[str, int]:
    """Every function symbol of `binary` with its address."""
    nm = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    code = {}
    for line in nm.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTiW":
            code.setdefault(fields[2], int(fields[0], 16))
    return code


def by_function(code: dict[str, int]) -> dict[str, list[str]]:
    functions = defaultdict(list)
    for name in code:
        functions[unhashed(name)].append(name)
    return functions


def order(binary: str, out: str) -> int:
    functions = by_function(code_symbols(binary))
    names: list[str] = []
    for function in dict.fromkeys(listed()):
        names.extend(sorted(functions.get(function, ())))
    text = "".join(name + "\n" for name in names)
    path = Path(out)
    if path.exists() and path.read_text() == text:
        return 0
    path.write_text(text)
    print(f"hot-symbols: {len(names)} symbols of {len(listed())} listed functions written to {out}", file=sys.stderr)
    return 3


def probing_functions(binary: str) -> set[str]:
    """The functions of `binary` (unhashed names) that execute a `cpuid` instruction."""
    dump = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True,
                          check=True).stdout
    probing, current = set(), None
    for line in dump.splitlines():
        if line.endswith(">:"):
            current = line[line.index("<") + 1:-2]
        elif current is not None and line.rstrip().endswith("\tcpuid"):
            probing.add(unhashed(current))
    return probing


def check(binary: str) -> int:
    code = code_symbols(binary)
    functions = by_function(code)
    wanted = list(dict.fromkeys(listed()))
    found_functions = [f for f in wanted if f in functions]
    found = sorted(code[name] for f in found_functions for name in functions[f])
    share = len(found_functions) / max(1, len(wanted))
    span = (found[int(len(found) * 0.9)] - found[0]) if found else 0
    print(f"hot functions: {len(found_functions)} of {len(wanted)} listed are in {binary} ({share:.0%}); "
          f"90 % of their {len(found)} symbols within {span // 1024} KiB")
    if share < 0.75:
        print("the list is stale: regenerate it with `bash scripts/hot-symbols.sh`", file=sys.stderr)
        return 1
    if span > 2 << 20:
        print("the hot functions are not together: the link did not use the ordering (build-release.sh)",
              file=sys.stderr)
        return 1
    linked = sorted({why for name in code for prefix, why in NEVER.items() if name.startswith(prefix)})
    if linked:
        print(f"the release binary links what it must not: {'; '.join(linked)}", file=sys.stderr)
        return 1
    probing = probing_functions(binary)
    rust = ("_ZN", "_R")
    probes = sorted(f for f in found_functions if f in probing and f.startswith(rust))
    if probes:
        print(f"hot functions execute cpuid (each a trap to the hypervisor in a VM, tens of µs per event): "
              f"{', '.join(probes)}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "order":
        return order(sys.argv[2], sys.argv[3])
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        return check(sys.argv[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
