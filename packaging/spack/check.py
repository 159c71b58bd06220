#!/usr/bin/env python3
"""Checks packaging/spack/package.py without Spack (Spack is not on PyPI):

1. it runs the package file against a small stand-in for `spack.package` that
   records the directives (version, variant, depends_on) and checks their
   arguments as Spack's do;
2. every variant is used in cmake_args, every CMake option it sets exists in
   CMakeLists.txt (option(...)), and cmake_args gives the right -D values for
   each combination of variants;
3. with --style, it runs black (line length 99, Spack's setting) and flake8
   (Spack's ignores for `from spack.package import *`) when they are
   installable from PyPI.

Usage: packaging/spack/check.py [--style]   (exit 0 when everything holds)
"""
import argparse
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


class Directives:
    def __init__(self):
        self.versions, self.variants, self.deps, self.maint = {}, {}, [], []


D = Directives()


def version(name, **kw):
    if not kw.get("branch") and not kw.get("sha256") and not kw.get("tag") and not kw.get("commit"):
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
    for w in [when] if when else []:
        for v in re.findall(r"[+~](\w+)", w):
            if v not in D.variants:
                problem("depends_on(%r, when=%r): no variant %s (declare variants first)"
                        % (spec, w, v))


def maintainers(*names):
    D.maint.extend(names)


class Spec:
    def __init__(self, on):
        self.on = on

    def satisfies(self, s):
        return all((v in self.on) == (sign == "+") for sign, v in re.findall(r"([+~])(\w+)", s))

    def __getitem__(self, dep):
        return types.SimpleNamespace(mpicc="/usr/bin/mpicc")


class CMakePackage:
    def __init__(self, on):
        self.spec = Spec(on)
        self.build_directory = "/tmp"

    def define(self, name, value):
        if isinstance(value, bool):
            value = "ON" if value else "OFF"
        return "-D%s=%s" % (name, value)

    def define_from_variant(self, name, var):
        if var not in D.variants:
            problem("define_from_variant(%s, %s): no such variant" % (name, var))
        return self.define(name, var in self.spec.on)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--style", action="store_true", help="also run black and flake8")
    a = ap.parse_args()
    stub = types.ModuleType("spack.package")
    for n in ("version", "variant", "depends_on", "maintainers", "CMakePackage"):
        setattr(stub, n, globals()[n])
    stub.working_dir = lambda d: open(os.devnull)
    stub.ctest = lambda *args: None
    stub.__all__ = ["version", "variant", "depends_on", "maintainers", "CMakePackage",
                    "working_dir", "ctest"]
    sys.modules["spack"] = types.ModuleType("spack")
    sys.modules["spack.package"] = stub
    src = open(os.path.join(HERE, "package.py")).read()
    ns = {}
    exec(compile(src, "package.py", "exec"), ns)
    cls = ns.get("Ostio")
    if cls is None:
        problem("no class Ostio (Spack names the class after the package)")
        return 1
    for attr in ("homepage", "git"):
        if not getattr(cls, attr, None):
            problem("missing %s" % attr)
    if not (cls.__doc__ or "").strip():
        problem("the class needs a docstring (spack info shows it)")
    options = set(re.findall(r"option\((\w+)", open(os.path.join(TOP, "CMakeLists.txt")).read()))
    names = sorted(D.variants)
    print("variants: %s; CMake options: %s" % (", ".join(names), ", ".join(sorted(options))))
    for combo in itertools.product([False, True], repeat=len(names)):
        on = {n for n, c in zip(names, combo) if c}
        args = cls(on).cmake_args()
        for arg in args:
            m = re.match(r"-D(\w+)=(.*)", arg)
            if not m:
                problem("cmake_args: %r is not -DNAME=VALUE" % arg)
                continue
            if m.group(1).startswith("OSTIO_") and m.group(1) not in options:
                problem("cmake_args sets %s, which CMakeLists.txt does not declare" % m.group(1))
        for n in names:
            used = [x for x in args if x.endswith("=%s" % ("ON" if n in on else "OFF"))
                    and n.upper() in x]
            if not used:
                problem("variant %s does not reach cmake_args as ON/OFF" % n)
    if "mpi@3:" not in [d[0] for d in D.deps]:
        problem("depends_on('mpi@3:') missing")
    if a.style:
        for tool, args in (("black", ["--check", "--diff", "-l", "99"]),
                           ("flake8", ["--max-line-length", "99",
                                       "--extend-ignore", "F403,F405,F811,E731,W503,E203"])):
            r = subprocess.run([sys.executable, "-m", tool, "--version"], capture_output=True)
            if r.returncode != 0:
                subprocess.run([sys.executable, "-m", "pip", "install", "-q", tool],
                               capture_output=True)
            r = subprocess.run([sys.executable, "-m", tool] + args +
                               [os.path.join(HERE, "package.py")], capture_output=True, text=True)
            if r.returncode != 0:
                problem("%s: %s%s" % (tool, r.stdout, r.stderr))
            else:
                print("%s: clean" % tool)
    print("%d problems" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
