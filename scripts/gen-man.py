#!/usr/bin/env python3
"""Writes the man pages ostio.1 and ostio-bench.1 from the programs' own --help.

    gen-man.py --ostio BUILD/ostio --ostio-bench BUILD/ostio-bench --out DIR
    gen-man.py --ostio ... --ostio-bench ... --check DIR

The pages are made of the --help texts, unchanged (in no-fill blocks): `ostio
--help`, `ostio COMMAND --help` for every command it lists, `ostio container
SUB --help` for every container subcommand `ostio container --help` lists,
and `ostio-bench --help`. Only NAME and SEE ALSO are written here. So the
pages cannot say anything --help does not; CMake regenerates them whenever
a program is rebuilt (cmake/ostio_man.cmake).

--check DIR regenerates the pages in memory and compares them with DIR's
(they must be equal), renders each with `man -l` (else groff) and checks the
sections, that no line of any --help text is missing from the rendered page,
and that every command and container subcommand has its own subsection.
Exit 0 when all holds, else 1 with each problem on stderr.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

# ostio-bench calls MPI_Init before it parses --help: a singleton. Neither
# sanitizer builds (MPICH keeps allocations until exit) nor Open MPI as root
# (CI) may turn that into a failure.
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0",
           OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run_help(argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                       timeout=120)
    if r.returncode != 0 or not r.stdout.strip():
        sys.exit("gen-man.py: %s exited %d: %s" % (" ".join(argv), r.returncode,
                                                    r.stderr.decode(errors="replace")))
    return r.stdout.decode()


def listed(text, heading):
    """Names listed under HEADING (lines '  NAME ...' until a blank line), in order."""
    names, on = [], False
    for line in text.splitlines():
        if line.strip() == heading:
            on = True
            continue
        if on and not line.strip():
            break
        m = re.match(r"^  ([a-z][a-z-]*)(\s|$)", line)
        if on and m and m.group(1) not in names:
            names.append(m.group(1))
    return names


def esc(line):
    """One line of text as roff: backslashes, minus signs, leading dots/quotes."""
    line = line.replace("\\", "\\e").replace("-", "\\-")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def verbatim(text):
    out = [".nf"]
    for line in text.rstrip("\n").splitlines():
        out.append(esc(line) if line.strip() else ".sp")
    out.append(".fi")
    return out


def helps(ostio, bench):
    """Every --help text: [(title, argv, text)]; the first is `ostio --help`."""
    top = run_help([ostio, "--help"])
    out = [("ostio", [ostio, "--help"], top)]
    for cmd in listed(top, "Commands:"):
        t = run_help([ostio, cmd, "--help"])
        out.append(("ostio " + cmd, [ostio, cmd, "--help"], t))
        for sub in listed(t, "Subcommands:"):
            out.append(("ostio %s %s" % (cmd, sub), [ostio, cmd, sub, "--help"],
                        run_help([ostio, cmd, sub, "--help"])))
    return out, run_help([bench, "--help"])


def version_of(ostio):
    return run_help([ostio, "--version"]).split()[-1]


def page_ostio(texts, version):
    top = texts[0][2]
    usage = [l for l in top.splitlines() if l.strip().startswith(("Usage:", "ostio "))]
    lines = ['.TH OSTIO 1 "" "ostio %s" "User Commands"' % version,
             ".SH NAME",
             "ostio \\- stripe layouts, hints and containers of the ostio parallel I/O library",
             ".SH SYNOPSIS"] + verbatim("\n".join(usage)) + [
             ".SH DESCRIPTION",
             "This page is the text of",
             ".B ostio \\-\\-help",
             "and of each command's",
             ".BR \\-\\-help ,",
             "as the programs print them."] + verbatim(
                 "\n".join(l for l in top.splitlines() if l not in usage)) + [
             ".SH COMMANDS"]
    for title, _, text in texts[1:]:
        lines += ['.SS "%s"' % title] + verbatim(text)
    lines += [".SH SEE ALSO",
              ".BR ostio\\-bench (1),",
              ".BR lfs (1);",
              "docs/cli.md, docs/containers.md and docs/preload.md in the ostio sources."]
    return "\n".join(lines) + "\n"


def page_bench(text, version):
    ls = text.rstrip("\n").splitlines()
    lines = ['.TH OSTIO\\-BENCH 1 "" "ostio %s" "User Commands"' % version,
             ".SH NAME",
             "ostio\\-bench \\- IOR\\-style benchmark of ostio, MPI\\-IO and POSIX",
             ".SH SYNOPSIS"] + verbatim(ls[0]) + [
             ".SH DESCRIPTION",
             "This page is the text of",
             '.BR "ostio\\-bench \\-\\-help" .',
             ] + verbatim(ls[1]) + [".SH OPTIONS"] + verbatim("\n".join(ls[2:])) + [
             ".SH SEE ALSO",
             ".BR ostio (1);",
             "docs/benchmarks.md in the ostio sources."]
    return "\n".join(lines) + "\n"


def render(path):
    env = dict(os.environ, LC_ALL="C", MANWIDTH="200", MAN_KEEP_FORMATTING="")
    if shutil.which("man"):
        argv = ["man", "--warnings", "-l", "-P", "cat", path]
    else:
        argv = ["groff", "-man", "-Tascii", "-ww", "-P", "-cbu", path]
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    text = re.sub(r".\x08", "", r.stdout.decode(errors="replace"))
    return r.returncode, text, r.stderr.decode(errors="replace")


def norm(s):
    return " ".join(s.split())


def check(dirpath, texts, bench, version):
    problems = []
    want = {"ostio.1": page_ostio(texts, version), "ostio-bench.1": page_bench(bench, version)}
    rendered = {}
    for name, text in want.items():
        path = os.path.join(dirpath, name)
        try:
            with open(path) as f:
                if f.read() != text:
                    problems.append("%s differs from what --help gives now (rebuild)" % path)
        except OSError as e:
            problems.append("%s: %s" % (path, e))
            continue
        rc, out, err = render(path)
        if rc != 0 or err.strip():
            problems.append("%s: rendering failed (exit %d): %s" % (path, rc, err.strip()))
        rendered[name] = out
    heads = {"ostio.1": ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "SEE ALSO"],
             "ostio-bench.1": ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "SEE ALSO"]}
    for name, out in rendered.items():
        for h in heads[name]:
            if not re.search(r"^%s$" % h, out, re.M):
                problems.append("%s: no section %s in the rendered page" % (name, h))
        body = norm(out)
        sources = texts if name == "ostio.1" else [("ostio-bench", [], bench)]
        for title, _, text in sources:
            for line in text.splitlines():
                if line.strip() and norm(line) not in body:
                    problems.append("%s: %s --help line missing: %r" % (name, title, line))
        if name == "ostio.1":
            for title, _, _ in texts[1:]:
                if not re.search(r"^ {2,}%s$" % re.escape(title), out, re.M):
                    problems.append("ostio.1: no subsection %r" % title)
    for p in problems:
        print("gen-man.py --check: " + p, file=sys.stderr)
    n = sum(1 for _ in texts) + 1
    if not problems:
        print("man pages: ostio.1 (%d --help texts: %s) and ostio-bench.1 render, have "
              "their sections and every --help line" % (n - 1, ", ".join(t for t, _, _ in texts)))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ostio", required=True)
    ap.add_argument("--ostio-bench", required=True)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--out", help="write ostio.1 and ostio-bench.1 into this directory")
    g.add_argument("--check", help="check the pages in this directory")
    a = ap.parse_args()
    texts, bench = helps(a.ostio, a.ostio_bench)
    version = version_of(a.ostio)
    if a.check:
        return check(a.check, texts, bench, version)
    os.makedirs(a.out, exist_ok=True)
    for name, text in (("ostio.1", page_ostio(texts, version)),
                       ("ostio-bench.1", page_bench(bench, version))):
        fd, tmp = tempfile.mkstemp(dir=a.out, prefix="." + name)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, os.path.join(a.out, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
