#!/usr/bin/env python3
"""Checks packaging/spack/package.py without Spack (Spack is not on PyPI or in
Debian 12; docs/packaging.md):

1. statically (Python's ast): the directives a recipe of Spack's builtin
   repository has today (Spack 0.23 / 1.x): a class docstring, fixed-string
   `homepage` and `git` (no os.environ, os.getenv or `import os` anywhere),
   `maintainers(...)`, `license(...)`, `version(...)`, `depends_on("c",
   type="build")`, `depends_on("mpi...")`, `depends_on("cmake@X:",
   type="build")` with X the version CMakeLists.txt requires, a
   CMakePackage whose `cmake_args` uses `self.define` /
   `self.define_from_variant` only, no `tests` variant (Spack's own
   `--test` and `self.run_tests` instead), stand-alone tests `def test_*`
   with a docstring each (`spack test run` prints it), and the license
   header Spack's style check wants;
2. it runs the file against a small stand-in for Spack's modules that records
   the directives and checks their arguments as Spack's do, then calls
   `cmake_args()` for every combination of variants and of `run_tests`:
   every variant and `run_tests` reach CMake as ON/OFF, every OSTIO_* option
   set exists in CMakeLists.txt (option(...));
3. with --style, black (line length 99, Spack's) and flake8 (Spack's ignores
   for `from spack.package import *`) when they can be had from PyPI.

Usage: packaging/spack/check.py [--style] [RECIPE]   (exit 0 when all holds)
"""
import argparse
import ast
import itertools
import os
import re
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
problems = []


def problem(msg):
    problems.append(msg)
    print("problem: " + msg)


# ---- 1. static checks -------------------------------------------------------------------


def call_name(node):
    f = node.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def const_str(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def kwarg(call, name):
    for k in call.keywords:
        if k.arg == name:
            return k.value
    return None


def static_checks(src, cmake_min):
    tree = ast.parse(src)
    if not src.startswith("# Copyright Spack Project Developers."):
        problem("the file does not start with Spack's copyright and SPDX header")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv"):
            problem("line %d: os.%s: a recipe is fixed text, not the environment"
                    % (node.lineno, node.attr))
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if "os" in mods:
                problem("line %d: imports os (not needed by a recipe)" % node.lineno)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    cls = next((c for c in classes if c.name == "Ostio"), None)
    if cls is None:
        problem("no class Ostio (Spack names the class after the package)")
        return
    if [b.id for b in cls.bases if isinstance(b, ast.Name)] != ["CMakePackage"]:
        problem("class Ostio should derive from CMakePackage only")
    if not (ast.get_docstring(cls) or "").strip():
        problem("the class needs a docstring (spack info shows it)")
    attrs = {}
    calls = []
    methods = {}
    for stmt in cls.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            t = stmt.targets[0]
            if isinstance(t, ast.Name):
                attrs[t.id] = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            calls.append(stmt.value)
        elif isinstance(stmt, ast.FunctionDef):
            methods[stmt.name] = stmt
    for a in ("homepage", "git"):
        v = const_str(attrs.get(a))
        if not v:
            problem("%s must be a fixed string (found %s)"
                    % (a, ast.dump(attrs[a]) if a in attrs else "nothing"))
        elif not v.startswith("https://"):
            problem("%s %r is not an https address" % (a, v))
    if "url" in attrs and not const_str(attrs["url"]):
        problem("url must be a fixed string")
    by = {}
    for c in calls:
        by.setdefault(call_name(c), []).append(c)
    for d in ("maintainers", "license", "version", "depends_on"):
        if d not in by:
            problem("no %s(...) directive" % d)
    for c in by.get("maintainers", []):
        if not c.args or not all(const_str(a) for a in c.args):
            problem("maintainers(...) takes GitHub handles as strings")
    for c in by.get("license", []):
        if len(c.args) != 1 or not const_str(c.args[0]):
            problem("license(...) takes one SPDX expression string")
    for c in by.get("variant", []):
        if c.args and const_str(c.args[0]) == "tests":
            problem("a `tests` variant: use Spack's --test / self.run_tests and def test_*")
    deps = {}
    for c in by.get("depends_on", []):
        spec = const_str(c.args[0]) if c.args else None
        typ = kwarg(c, "type")
        deps[spec] = const_str(typ) if typ is not None else None
    if deps.get("c", "missing") != "build":
        problem('depends_on("c", type="build") missing (the compiler is a dependency)')
    if not any(s and (s == "mpi" or s.startswith("mpi@")) for s in deps):
        problem('depends_on("mpi") missing')
    want = "cmake@%s:" % cmake_min
    if deps.get(want, "missing") != "build":
        problem('depends_on("%s", type="build") missing (CMakeLists.txt requires %s)'
                % (want, cmake_min))
    ca = methods.get("cmake_args")
    if ca is None:
        problem("no cmake_args")
    else:
        for node in ast.walk(ca):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.startswith("-D"):
                problem("cmake_args writes %r by hand: use self.define / define_from_variant"
                        % node.value)
    tests = [m for n, m in methods.items() if n.startswith("test_")]
    if not tests:
        problem("no stand-alone tests (def test_*(self): run by `spack test run`)")
    for m in tests:
        if not (ast.get_docstring(m) or "").strip():
            problem("%s has no docstring (spack test run prints it as the test's purpose)"
                    % m.name)
    print("static: %d directives, %d stand-alone tests, cmake@%s:"
          % (len(calls), len(tests), cmake_min))


# ---- 2. the recipe run against a stand-in for Spack ---------------------------------------


class Directives:
    def __init__(self):
        self.versions, self.variants, self.deps = {}, {}, []


D = Directives()


def version(name, **kw):
    if not any(kw.get(k) for k in ("branch", "sha256", "tag", "commit")):
        problem("version %s: give branch, tag, commit or sha256" % name)
    D.versions[name] = kw


def variant(name, default=None, description="", **kw):
    if not description:
        problem("variant %s has no description" % name)
    if not isinstance(default, bool):
        problem("variant %s: a boolean default is expected" % name)
    D.variants[name] = default


def depends_on(spec, type=None, when=None):
    D.deps.append((spec, type, when))
    for v in re.findall(r"[+~](\w+)", when or ""):
        if v not in D.variants:
            problem("depends_on(%r, when=%r): no variant %s (declare variants first)"
                    % (spec, when, v))
    for t in (type if isinstance(type, tuple) else (type,)):
        if t not in (None, "build", "link", "run", "test"):
            problem("depends_on(%r): dependency type %r" % (spec, t))


def maintainers(*names):
    pass


def license(expr, checked_by=None, when=None):
    if not re.fullmatch(r"[A-Za-z0-9.+-]+( (AND|OR|WITH) [A-Za-z0-9.+-]+)*", expr):
        problem("license(%r) is not an SPDX expression" % expr)


class Spec:
    def __init__(self, on):
        self.on = on

    def satisfies(self, s):
        return all((v in self.on) == (sign == "+") for sign, v in re.findall(r"([+~])(\w+)", s))

    def __getitem__(self, dep):
        return types.SimpleNamespace(mpicc="/usr/bin/mpicc")


class CMakePackage:
    def __init__(self, on, run_tests):
        self.spec = Spec(on)
        self.run_tests = run_tests
        self.build_directory = "/tmp"

    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        return "-D%s=%s" % (name, value)

    def define_from_variant(self, name, var):
        if var not in D.variants:
            problem("define_from_variant(%s, %s): no such variant" % (name, var))
        return self.define(name, var in self.spec.on)


def stand_in():
    names = ("version", "variant", "depends_on", "maintainers", "license")
    pkg = types.ModuleType("spack.package")
    for n in names:
        setattr(pkg, n, globals()[n])
    pkg.CMakePackage = CMakePackage  # Spack 0.23 exported it here
    pkg.working_dir = lambda d: open(os.devnull)
    pkg.ctest = pkg.which = lambda *a, **k: None
    pkg.__all__ = list(names) + ["CMakePackage", "working_dir", "ctest", "which"]
    cm = types.ModuleType("spack_repo.builtin.build_systems.cmake")
    cm.CMakePackage = CMakePackage
    for m in ("spack", "spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"):
        sys.modules[m] = types.ModuleType(m)
    sys.modules["spack.package"] = pkg
    sys.modules["spack_repo.builtin.build_systems.cmake"] = cm


def run_checks(src):
    stand_in()
    ns = {}
    exec(compile(src, "package.py", "exec"), ns)
    cls = ns.get("Ostio")
    if cls is None:
        return
    options = set(re.findall(r"option\((\w+)", open(os.path.join(TOP, "CMakeLists.txt")).read()))
    names = sorted(D.variants)
    print("variants: %s; CMake options: %s" % (", ".join(names), ", ".join(sorted(options))))
    for combo in itertools.product([False, True], repeat=len(names) + 1):
        on = {n for n, c in zip(names, combo) if c}
        args = cls(on, combo[-1]).cmake_args()
        for arg in args:
            m = re.match(r"-D(\w+)=(.*)", arg)
            if not m:
                problem("cmake_args: %r is not -DNAME=VALUE" % arg)
            elif m.group(1).startswith("OSTIO_") and m.group(1) not in options:
                problem("cmake_args sets %s, which CMakeLists.txt does not declare" % m.group(1))
        for n in names:
            if not [x for x in args
                    if x.endswith("=%s" % ("ON" if n in on else "OFF")) and n.upper() in x]:
                problem("variant %s does not reach cmake_args as ON/OFF" % n)
        if "-DOSTIO_TESTS=%s" % ("ON" if combo[-1] else "OFF") not in args:
            problem("run_tests does not reach OSTIO_TESTS")


def style():
    for tool, args in (("black", ["--check", "--diff", "-l", "99"]),
                       ("flake8", ["--max-line-length", "99",
                                   "--extend-ignore", "F403,F405,F811,E731,W503,E203"])):
        r = subprocess.run([sys.executable, "-m", tool, "--version"], capture_output=True)
        if r.returncode != 0:
            subprocess.run([sys.executable, "-m", "pip", "install", "-q", tool],
                           capture_output=True)
        r = subprocess.run([sys.executable, "-m", tool, "--version"], capture_output=True)
        if r.returncode != 0:
            print("%s: not available, skipped" % tool)
            continue
        r = subprocess.run([sys.executable, "-m", tool] + args + [ARGS.recipe],
                           capture_output=True, text=True)
        if r.returncode != 0:
            problem("%s: %s%s" % (tool, r.stdout, r.stderr))
        else:
            print("%s: clean" % tool)


def main():
    src = open(ARGS.recipe).read()
    m = re.search(r"cmake_minimum_required\(VERSION (\d+\.\d+)",
                  open(os.path.join(TOP, "CMakeLists.txt")).read())
    static_checks(src, m.group(1) if m else "?")
    run_checks(src)
    if ARGS.style:
        style()
    print("%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--style", action="store_true", help="also run black and flake8")
    ap.add_argument("recipe", nargs="?", default=os.path.join(HERE, "package.py"))
    ARGS = ap.parse_args()
    sys.exit(main())
