#!/usr/bin/env python3
"""Shared helpers for the end-to-end tests of the `ostio` command-line tool.

Not run by itself: each tests/cli/test_cli_*.py puts this directory on
sys.path, imports what it needs from here and ends with
`sys.exit(common.main())`, run as

    python3 tests/cli/test_cli_X.py /path/to/build/ostio [unittest options]

Python 3 standard library only. Every test runs in its own fresh temporary
directory (tempfile.mkdtemp, so under $TMPDIR or /tmp) which is removed
afterwards; the tool runs there with a controlled environment (OSTIO_HINTS is
removed unless the test sets it). Off Lustre, layouts live in the emulated
`user.ostio.layout` extended attribute, so the tests check the bytes and
xattrs on disk, not only exit codes and output.

main() prints `N skipped` when tests were skipped, then as the last line
`N passed, N failed`; the exit status is non-zero when any test failed (or
none ran).
"""
import errno
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

XATTR = "user.ostio.layout"
COMMANDS = ("getstripe", "setstripe", "map", "hints")
MiB = 1 << 20
GiB = 1 << 30
OSTIO = None  # absolute path of the binary, set from argv[1] in main()


# ---------------------------------------------------------------------------
# helpers


def _xattrs_supported():
    """Whether user xattrs work in the temporary directory tests use."""
    d = tempfile.mkdtemp(prefix="ostio-cli-probe-")
    try:
        p = os.path.join(d, "probe")
        open(p, "w").close()
        os.setxattr(p, "user.ostio.probe", b"1")
        return True
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return False
        raise
    finally:
        shutil.rmtree(d, ignore_errors=True)


_XATTRS = None


def expand_osts(text):
    """'0-3,8' -> [0, 1, 2, 3, 8] (the record's OST list syntax)."""
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def parse_record(raw):
    """Parses the emulated layout record (bytes) into a list of dicts."""
    text = raw.decode("ascii")
    lines = text.split("\n")
    assert lines[0] == "ostio-layout 1", repr(text)
    assert text.endswith("\n"), repr(text)
    comps = []
    for line in lines[1:]:
        if not line:
            continue
        assert line.startswith("component "), repr(line)
        kv = dict(tok.split("=", 1) for tok in line[len("component "):].split())
        comps.append(kv)
    return comps


def ref_pieces(comps, offset, length):
    """Reference splitting of [offset, offset+length) as Lustre maps it.

    comps: list of (start, end_or_None, stripe_size, osts). Object offsets
    use the absolute file offset, as Lustre does for PFL components:
    (off // (ss*sc))*ss + off % ss. Returns a list of tuples
    (file_offset, length, component, stripe, object, ost, object_offset).
    """
    out = []
    pos, end = offset, offset + length
    while pos < end:
        for ci, (cstart, cend, ss, osts) in enumerate(comps):
            if cend is None or pos < cend:
                break
        else:
            raise AssertionError("offset past the last component")
        sc = len(osts)
        stripe = pos // ss
        obj = stripe % sc
        objoff = (pos // (ss * sc)) * ss + pos % ss
        limit = pos - pos % ss + ss
        if cend is not None:
            limit = min(limit, cend)
        limit = min(limit, end)
        out.append((pos, limit - pos, ci, stripe, obj, osts[obj], objoff))
        pos = limit
    return out


PIECE_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(\d+)\s*$")


def parse_map_text(out):
    """Pieces (tuples of 7 ints) from `ostio map` text output, plus lines."""
    lines = out.splitlines()
    pieces = [tuple(int(x) for x in m.groups())
              for m in (PIECE_RE.match(l) for l in lines[2:]) if m]
    return pieces, lines


def parse_getstripe_text(block):
    """Fields of one plain-layout `ostio getstripe` text block."""
    fields, objects = {}, []
    for line in block.splitlines()[1:]:
        m = re.match(r"^\s*- (\d+): \{ l_ost_idx: (-?\d+) \}$", line)
        if m:
            objects.append((int(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r"^\s*([a-z_.]+):\s*(.*)$", line)
        if m:
            fields[m.group(1)] = m.group(2)
    return fields, objects


class CliTestCase(unittest.TestCase):
    """Fresh temporary directory per test; helpers to run the tool."""

    needs_xattrs = True

    def setUp(self):
        global _XATTRS
        if self.needs_xattrs:
            if _XATTRS is None:
                _XATTRS = _xattrs_supported()
            if not _XATTRS:
                self.skipTest("the temporary directory's file system has no user xattrs")
        self.tmp = tempfile.mkdtemp(prefix="ostio-cli-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    # -- running ----------------------------------------------------------

    def run_ostio(self, *args, hints=None, env=None, timeout=10):
        e = dict(os.environ)
        e.pop("OSTIO_HINTS", None)
        if hints is not None:
            e["OSTIO_HINTS"] = hints
        if env:
            e.update(env)
        try:
            return subprocess.run([OSTIO] + [str(a) for a in args], cwd=self.tmp, env=e,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise self.failureException("ostio %s: still running after %g s (killed)"
                                        % (" ".join(map(str, args)), timeout)) from None

    def ok(self, *args, **kw):
        r = self.run_ostio(*args, **kw)
        self.assertEqual(r.returncode, 0, "ostio %s: exit %d\nstdout:\n%s\nstderr:\n%s"
                         % (" ".join(map(str, args)), r.returncode, r.stdout, r.stderr))
        return r

    def json_of(self, *args, **kw):
        r = self.ok(*args, **kw)
        try:
            return json.loads(r.stdout)
        except ValueError as ex:
            self.fail("ostio %s: --json output does not parse (%s):\n%s"
                      % (" ".join(map(str, args)), ex, r.stdout))

    def assert_fails(self, status, cmd, args, needles=(), **kw):  # kw: hints, env, timeout
        """Runs `ostio cmd args`; checks exit status, message prefix, needles."""
        r = self.run_ostio(cmd, *args, **kw)
        what = "ostio %s %s" % (cmd, " ".join(map(str, args)))
        self.assertEqual(r.returncode, status, "%s: exit %d, expected %d\nstderr:\n%s"
                         % (what, r.returncode, status, r.stderr))
        self.assertTrue(r.stderr.startswith("ostio %s: " % cmd),
                        "%s: stderr does not start with 'ostio %s: ':\n%s" % (what, cmd, r.stderr))
        for n in needles:
            self.assertIn(n, r.stderr, "%s: stderr does not mention %r:\n%s" % (what, n, r.stderr))
        return r

    # -- the disk ---------------------------------------------------------

    def p(self, *parts):
        return os.path.join(self.tmp, *parts)

    def xattr(self, name):
        """The record on tmp/name, or None when it has none."""
        try:
            return os.getxattr(self.p(name), XATTR)
        except OSError as e:
            if e.errno == errno.ENODATA:
                return None
            raise

    def snapshot(self):
        """Every entry under tmp with its type, size and xattrs."""
        snap = {}
        for root, dirs, files in os.walk(self.tmp):
            for n in dirs + files:
                full = os.path.join(root, n)
                st = os.lstat(full)
                xs = {}
                for k in os.listxattr(full):
                    xs[k] = os.getxattr(full, k)
                snap[os.path.relpath(full, self.tmp)] = (st.st_mode, st.st_size, st.st_ino,
                                                        tuple(sorted(xs.items())))
        return snap

    def mkdir(self, name):
        os.mkdir(self.p(name))
        return name

    def write(self, name, data=b""):
        with open(self.p(name), "wb") as f:
            f.write(data)
        return name

    def layout(self, path, **kw):
        """getstripe --json of one path: the 'layout' object."""
        arr = self.json_of("getstripe", "--json", path, **kw)
        self.assertIsInstance(arr, list)
        self.assertEqual(len(arr), 1)
        self.assertEqual(arr[0]["path"], path)
        return arr[0]["layout"]


# ---------------------------------------------------------------------------
# runner


def main():
    global OSTIO
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.stderr.write("usage: %s /path/to/ostio [unittest options]\n" % sys.argv[0])
        return 2
    OSTIO = os.path.abspath(sys.argv.pop(1))
    if not (os.path.isfile(OSTIO) and os.access(OSTIO, os.X_OK)):
        sys.stderr.write("%s: %s is not an executable file\n" % (sys.argv[0], OSTIO))
        return 2
    prog = unittest.main(exit=False, verbosity=2,
                         testRunner=unittest.TextTestRunner(stream=sys.stdout, verbosity=2))
    res = prog.result
    failed = len(res.failures) + len(res.errors) + len(res.unexpectedSuccesses)
    skipped = len(res.skipped)
    passed = res.testsRun - failed - skipped - len(res.expectedFailures)
    sys.stdout.flush()
    if skipped:
        print("%d skipped" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    sys.stdout.flush()
    return 1 if failed or res.testsRun == 0 else 0
