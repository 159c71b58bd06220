#!/usr/bin/env bash
# Architecture checks (issue 15; docs/architecture.md, "Modules and
# dependency order"). Prints each violation as FILE:LINE: what, and exits 1
# when there is any. Run from anywhere; needs bash and python3 only.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: scripts/check-arch.sh [--help] [SOURCE_DIR]

Checks the source tree at SOURCE_DIR (default: the repository holding this
script) against the architecture rules:

  (a) include order: a module includes headers (#include "MODULE/...") only
      from itself and the modules below it:
        core < hints < layout < plan < model < stats < cache < io < container
             < engine < kinds < file < mpiio
      kinds are the container kinds' file-layer plugins
      (src/container/KIND/*_file*.[ch]); kinds and file may include each
      other (plugin and registry). preload (MPI-free) may include core,
      hints, layout, stats, io and container; tools may include anything.
  (b) size: no file in src/ over 600 lines.
  (c) plugins: no container-kind or strategy branch outside the registries
      (src/file/kind.c, src/container/stores.c, src/engine/strategies.c),
      the kind's own folder (src/container/KIND/) and the strategy's own
      file (src/engine/strategy_NAME.c). Looks in src/ and bench/ for: the
      constants OSTIO__CTR_KIND_* and OSTIO__STRAT_*, references to the
      plugins' ops structs (ostio__kind_KIND, ostio__strategy_NAME; extern
      declarations excepted), string compares with a kind or strategy name,
      per-strategy statistics names (strategy_NAME), and includes of a
      kind's own headers (container/KIND/...). Kinds are the folders under
      src/container/, strategies the files src/engine/strategy_*.c.
      Comments are ignored.

Output: one line per violation, FILE:LINE: what. Exit status 0 when the
tree passes, 1 when it does not, 2 on a usage error.
EOF
}

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  -*) echo "check-arch.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
[ -d "$root/src" ] || { echo "check-arch.sh: $root has no src/ (try --help)" >&2; exit 2; }

exec python3 - "$root" <<'PY'
import os, re, sys

root = sys.argv[1]
os.chdir(root)

ORDER = ["core", "hints", "layout", "plan", "model", "stats", "cache", "io", "container", "engine",
         "kinds", "file", "mpiio"]
RANK = {m: i for i, m in enumerate(ORDER)}
PRELOAD_MAY = {"core", "hints", "layout", "stats", "io", "container", "preload"}
MAX_LINES = 600
REGISTRIES = {"src/file/kind.c", "src/container/stores.c", "src/engine/strategies.c"}
KIND_PLUGIN = re.compile(r"^src/container/[^/]+/[^/]*_file[^/]*\.[ch]$")

violations = []
def report(path, line, what):
    violations.append((path, line, what))

def sources(top):
    out = []
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                out.append(os.path.join(d, f).replace(os.sep, "/"))
    return out

def module_of(path):
    """Module of a path under src/ (a file or an included header)."""
    if KIND_PLUGIN.match(path):
        return "kinds"
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else None

KNOWN = set(ORDER) | {"preload", "tools"}
RULE = {m: ("it may include only itself and " + ", ".join(ORDER[:i]) if i
            else "the bottom module includes only itself")
        + " (order " + " < ".join(ORDER) + ")" for i, m in enumerate(ORDER)}
RULE["kinds"] += " and file"
RULE["preload"] = ("preload (MPI-free) may include only itself and "
                   + ", ".join(m for m in ORDER if m in PRELOAD_MAY))

def may_include(mod, dep):
    if mod == dep or mod == "tools":
        return True
    if mod == "preload":
        return dep in PRELOAD_MAY
    if {mod, dep} == {"kinds", "file"}:
        return True
    if mod in RANK and dep in RANK:
        return RANK[dep] < RANK[mod]
    return False

def strip_comments(text):
    """Blanks out comments, keeping newlines (line numbers) and strings."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)

src_files = sources("src")
bench_files = sources("bench") if os.path.isdir("bench") else []

# ---- (a) include order and (b) size -----------------------------------------
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/([^"]+)"')
for path in src_files:
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_LINES:
        report(path, len(lines), f"{len(lines)} lines; at most {MAX_LINES} (split it by role)")
    mod = module_of(path)
    if mod not in KNOWN:
        report(path, 1, f"module {mod} is not in the module order (add it to CMakeLists.txt, "
               "docs/architecture.md and scripts/check-arch.sh)")
        continue
    for no, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        header = m.group(1) + "/" + m.group(2)
        dep = module_of("src/" + header)
        if dep not in KNOWN:
            report(path, no, f'includes "{header}": no module {dep}')
        elif not may_include(mod, dep):
            report(path, no, f'module {mod} includes "{header}" (module {dep}); {RULE[mod]}')

# ---- (c) kind and strategy branches outside the registries ------------------
kinds = sorted(d for d in os.listdir("src/container")
               if os.path.isdir(os.path.join("src/container", d)))
strategies = sorted(m.group(1) for f in os.listdir("src/engine")
                    for m in [re.match(r"^strategy_([a-z0-9]+)\.c$", f)] if m)

# One entry per plugin family: (family, names, enum prefix, ops prefix, own files, extras).
# extras(name) gives the family's own rules as (pattern, what).
FAMILIES = [
    ("kind", kinds, "OSTIO__CTR_KIND_", "ostio__kind_",
     lambda path, k: path.startswith(f"src/container/{k}/"),
     lambda k: [(rf'^\s*#\s*include\s+"container/{k}/',
                 f"includes kind {k}'s own header (go through the kind's ops)")]),
    ("strategy", strategies, "OSTIO__STRAT_", "ostio__strategy_",
     lambda path, s: os.path.basename(path).startswith(f"strategy_{s}."),
     lambda s: [(rf"\b(OSTIO__STAT_)?strategy_{s}\b(?!\.[ch]\b)",
                 f"per-strategy statistic strategy_{s} (counters come from the strategy "
                 "registry)")]),
]

rules = []  # (regex, what, allowed(path))
for family, names, const, ops, own, extras in FAMILIES:
    for name in names:
        ask = f"(ask the {family} registry)"
        found = [
            (rf"\b{const}{name.upper()}\b", f"{family} constant {const}{name.upper()} {ask}"),
            (rf"\b{ops}{name}\b(?!\.)", f"names {family} {name}'s ops {ops}{name} {ask}"),
            (rf'\bstr(n?case|n)?cmp\s*\([^;]*"{name}"',
             f'compares a string with the {family} name "{name}" {ask}'),
        ] + extras(name)
        rules += [(re.compile(rx), what, lambda p, own=own, name=name: own(p, name))
                  for rx, what in found]
EXTERN = re.compile(r"^\s*extern\b")
for path in src_files + bench_files:
    if path in REGISTRIES:
        continue
    with open(path, encoding="utf-8", errors="replace") as f:
        code = strip_comments(f.read()).split("\n")
    for no, line in enumerate(code, 1):
        if EXTERN.match(line):
            continue  # a declaration is not a branch
        for rx, what, allowed in rules:
            if not allowed(path) and rx.search(line):
                report(path, no, what)

for path, line, what in violations:
    print(f"{path}:{line}: {what}")
sys.stdout.flush()
if violations:
    print(f"check-arch: {len(violations)} violation(s)", file=sys.stderr)
    sys.exit(1)
print("check-arch: ok")
PY
