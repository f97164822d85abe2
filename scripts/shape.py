#!/usr/bin/env python3
"""The shape of the code, as issue 32's "done means" states it: no function over 100 lines, and
no import cycle between the files of a crate (a child module's paths up to its parent, the
idiomatic way to its siblings' re-exports, are not counted; every other path is).

Functions are counted from `fn` to the brace that closes the body, outside `#[cfg(test)]`
modules, in crates/*/src (tests, benches and examples are not counted). An import is any
`crate::a::b`, `crate::{…}` or `super::…` path in a file; it points at the longest path that is a
module file of the crate. Comments, strings and char literals are blanked first.

    python3 scripts/shape.py            # list what is over the line
    python3 scripts/shape.py --check    # fail on anything not in scripts/shape-baseline.txt,
                                        # on a listed function that grew, and on a listed entry
                                        # that is fixed (so the baseline stays exact)
    python3 scripts/shape.py --write    # rewrite the baseline from the code

The baseline pins the known gaps: lines `fn <lines> <path> <name>` and `cycle <crate>: <a> <-> <b>`;
and it names the functions that are tables (`table <path> <name>`: one arm per event, say), which
the line limit does not apply to, as the issue says.
"""
import os, re, sys, collections

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "scripts", "shape-baseline.txt")
MODE = sys.argv[1] if len(sys.argv) > 1 else ""
LIMIT = 100

def strip(src):
    """Blank out comments, strings and char literals, keeping line structure."""
    out = []; i = 0; n = len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i); j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif src.startswith("/*", i):
            depth = 0; j = i
            while j < n:
                if src.startswith("/*", j): depth += 1; j += 2
                elif src.startswith("*/", j):
                    depth -= 1; j += 2
                    if depth == 0: break
                else: j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j])); i = j
        elif c == 'r' and re.match(r'r#*"', src[i:i+10]) and (i == 0 or not (src[i-1].isalnum() or src[i-1] == '_')):
            m = re.match(r'r(#*)"', src[i:]); hashes = m.group(1)
            end = src.find('"' + hashes, i + len(m.group(0)))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", src[i:end])); i = end
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            out.append(re.sub(r"[^\n]", " ", src[i:j+1])); i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.|\\u\{[0-9a-fA-F]+\}|\\x..|[^\\'])'", src[i:])
            if m: out.append(" " * len(m.group(0))); i += len(m.group(0))
            else: out.append(c); i += 1
        else:
            out.append(c); i += 1
    return "".join(out)

def test_ranges(clean):
    """Line spans of #[cfg(test)] modules."""
    spans = []
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+\w+\s*\{", clean):
        start = m.end() - 1; depth = 0
        for j in range(start, len(clean)):
            if clean[j] == '{': depth += 1
            elif clean[j] == '}':
                depth -= 1
                if depth == 0: break
        spans.append((clean.count("\n", 0, m.start()), clean.count("\n", 0, j)))
    return spans

long_fns = []; files = []
for dirpath, dirs, names in os.walk(os.path.join(ROOT, "crates")):
    dirs[:] = [d for d in dirs if d not in ("target", "tests", "benches", "examples")]
    for name in names:
        if name.endswith(".rs"): files.append(os.path.join(dirpath, name))
for path in sorted(files):
    clean = strip(open(path).read())
    tests = test_ranges(clean)
    for m in re.finditer(r"\bfn\s+(\w+)\s*(<[^{;]*?>)?\s*\(", clean):
        # find body start: first '{' or ';' at depth 0 of parens after the signature
        j = m.end(); depth = 1
        while j < len(clean) and depth:
            if clean[j] in "([": depth += 1
            elif clean[j] in ")]": depth -= 1
            j += 1
        while j < len(clean) and clean[j] not in "{;": j += 1
        if j >= len(clean) or clean[j] == ';': continue
        depth = 0; k = j
        for k in range(j, len(clean)):
            if clean[k] == '{': depth += 1
            elif clean[k] == '}':
                depth -= 1
                if depth == 0: break
        first = clean.count("\n", 0, m.start()); last = clean.count("\n", 0, k)
        if any(a <= first <= b for a, b in tests): continue
        lines = last - first + 1
        if lines > LIMIT: long_fns.append((lines, os.path.relpath(path, ROOT), first + 1, m.group(1)))


# Import cycles: module graph per crate from `use crate::`, `crate::a::b` paths and `super::`.
def module_of(src_root, path):
    rel = os.path.relpath(path, src_root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"): rel = rel[:-1]
    return tuple(rel)

cycles = []
for crate in sorted(os.listdir(os.path.join(ROOT, "crates"))):
    src_root = os.path.join(ROOT, "crates", crate, "src")
    if not os.path.isdir(src_root): continue
    mods = {}
    for path in files:
        if path.startswith(src_root + os.sep): mods[module_of(src_root, path)] = path
    graph = collections.defaultdict(set)
    for mod, path in mods.items():
        clean = strip(open(path).read())
        tests = test_ranges(clean)
        lines = clean.split("\n")
        body = "\n".join(l for i, l in enumerate(lines) if not any(a <= i <= b for a, b in tests))
        refs = []
        for m in re.finditer(r"\bcrate((?:::\w+)+)", body):
            refs.append(tuple(m.group(1).strip(":").split("::")))
        for m in re.finditer(r"\bcrate::\{([^}]*)\}", body):
            for part in m.group(1).split(","):
                part = part.strip()
                if part: refs.append(tuple(part.split("::")))
        for m in re.finditer(r"\b((?:super::)+)(\w+(?:::\w+)*)", body):
            ups = m.group(1).count("super")
            base = mod if not path.endswith(("mod.rs", "lib.rs")) else mod
            base = mod[: len(mod) - ups] if len(mod) >= ups else ()
            refs.append(base + tuple(m.group(2).split("::")))
        # Paths into the file's own child modules (`codex::Codex`, `pub use read::interpret`).
        for child in re.findall(r"\bmod\s+(\w+)\s*;", body):
            for m in re.finditer(r"(?<![\w:])" + child + r"::(\w+)", body):
                refs.append(mod + (child, m.group(1)))
        for ref in refs:
            # longest existing module prefix
            target = None
            for k in range(len(ref), 0, -1):
                if ref[:k] in mods: target = ref[:k]; break
            if target is None or target == mod: continue
            # A child's path to its parent module (`super::X`) is the idiomatic way to its
            # siblings' re-exported items: not counted. A parent's path down to a child is.
            if mod[: len(target)] == target: continue
            graph[mod].add(target)
    # Tarjan SCC
    index = {}; low = {}; stack = []; on = set(); sccs = []; counter = [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
        for w in graph.get(v, ()):
            if w not in index: visit(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: sccs.append(comp)
    for v in list(mods): 
        if v not in index: visit(v)
    for comp in sccs:
        names = sorted("::".join(c) or "lib" for c in comp)
        cycles.append(f"cycle {crate}: {' <-> '.join(names)}")

found_fns = {(path, name): lines for lines, path, line, name in long_fns}
if MODE == "--write":
    kept_tables = [row.strip() for row in open(BASELINE) if row.startswith("table ")] if os.path.exists(BASELINE) else []
    table_keys = {tuple(row.split()[1:]) for row in kept_tables}
    with open(BASELINE, "w") as out:
        out.write("# Known gaps of scripts/shape.py (functions over 100 lines, import cycles); see the script's docstring.\n")
        for row in kept_tables:
            out.write(row + "\n")
        for (path, name), lines in sorted(found_fns.items()):
            if (path, name) not in table_keys:
                out.write(f"fn {lines} {path} {name}\n")
        for cycle in sorted(cycles):
            out.write(cycle + "\n")
    sys.exit(0)
if MODE != "--check":
    print(f"functions over {LIMIT} lines (tests excluded): {len(long_fns)}")
    for lines, path, line, name in sorted(long_fns, reverse=True):
        print(f"  {lines:4d}  {path}:{line}  {name}")
    print(f"import cycles between files: {len(cycles)}")
    for cycle in cycles:
        print("  " + cycle)
    sys.exit(0)
pinned_fns, pinned_cycles, tables = {}, set(), set()
for row in open(BASELINE):
    row = row.strip()
    if not row or row.startswith("#"):
        continue
    if row.startswith("table "):
        _, path, name = row.split()
        tables.add((path, name))
    elif row.startswith("fn "):
        _, lines, path, name = row.split()
        pinned_fns[(path, name)] = int(lines)
    else:
        pinned_cycles.add(row)
problems = []
for key in sorted(tables):
    if key not in found_fns:
        problems.append(f"{key[0]}: fn {key[1]} is listed as a table but is not over {LIMIT} lines (or gone); remove it")
    found_fns.pop(key, None)
for key, lines in sorted(found_fns.items()):
    if key not in pinned_fns:
        problems.append(f"{key[0]}: fn {key[1]} is {lines} lines (over {LIMIT}); split it")
    elif lines > pinned_fns[key]:
        problems.append(f"{key[0]}: fn {key[1]} grew to {lines} lines (pinned at {pinned_fns[key]}); split it")
for key, lines in sorted(pinned_fns.items()):
    if key not in found_fns:
        problems.append(f"{key[0]}: fn {key[1]} is no longer over {LIMIT} lines; remove it from the baseline")
    elif found_fns[key] < lines:
        problems.append(f"{key[0]}: fn {key[1]} shrank to {found_fns[key]} lines; pin the new length (--write)")
for cycle in sorted(set(cycles) - pinned_cycles):
    problems.append(f"new import {cycle}")
for cycle in sorted(pinned_cycles - set(cycles)):
    problems.append(f"import {cycle} is gone; remove it from the baseline")
for p in problems:
    print("shape: " + p)
print(f"shape: {len(found_fns)} functions over {LIMIT} lines besides {len(tables)} tables, and {len(cycles)} import cycles, all pinned" if not problems else f"shape: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
