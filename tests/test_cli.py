#!/usr/bin/env python3
"""End-to-end tests of the `ostio` command-line tool.

Run as:  python3 tests/test_cli.py /path/to/build/ostio [unittest options]

Python 3 standard library only. Every test runs in its own fresh temporary
directory (tempfile.mkdtemp, so under $TMPDIR or /tmp) which is removed
afterwards; the tool runs there with a controlled environment (OSTIO_HINTS is
removed unless the test sets it). Off Lustre, layouts live in the emulated
`user.ostio.layout` extended attribute, so the tests check the bytes and
xattrs on disk, not only exit codes and output.

The last line printed is `N passed, N failed`; the exit status is non-zero
when any test failed.
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
# top level: help, version, usage


class TestTopLevel(CliTestCase):
    needs_xattrs = False

    def test_help_prints_usage_and_every_command(self):
        r = self.ok("--help")
        self.assertTrue(r.stdout.startswith("Usage: ostio COMMAND"), r.stdout)
        for c in COMMANDS:
            self.assertRegex(r.stdout, r"(?m)^  %s\s+\S" % c)
        self.assertIn("0 success, 1 runtime error, 2 usage error", r.stdout)
        self.assertEqual(r.stderr, "")

    def test_help_aliases_h_and_help(self):
        ref = self.ok("--help").stdout
        for alias in ("-h", "help"):
            with self.subTest(alias=alias):
                self.assertEqual(self.ok(alias).stdout, ref)

    def test_version(self):
        r = self.ok("--version")
        self.assertRegex(r.stdout, r"^ostio \d+\.\d+\.\d+\n$")
        self.assertEqual(r.stderr, "")
        # the same version is announced by --help
        version = r.stdout.split()[1]
        self.assertIn("version %s." % version, self.ok("--help").stdout)

    def test_every_command_help_exits_0_with_usage(self):
        for c in COMMANDS:
            for flag in ("--help", "-h"):
                with self.subTest(command=c, flag=flag):
                    r = self.ok(c, flag)
                    self.assertTrue(r.stdout.startswith("Usage: ostio %s" % c), r.stdout)
                    self.assertIn("--json", r.stdout)
                    self.assertEqual(r.stderr, "")
        self.assertEqual(os.listdir(self.tmp), [])

    def test_no_arguments_is_usage_error(self):
        r = self.run_ostio()
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stdout, "")
        self.assertIn("Usage: ostio COMMAND", r.stderr)

    def test_unknown_command_lists_the_commands(self):
        r = self.run_ostio("frobnicate", "x")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stdout, "")
        self.assertIn("frobnicate", r.stderr)
        self.assertIn("unknown command", r.stderr)
        for c in COMMANDS:
            self.assertIn(c, r.stderr)
        self.assertEqual(os.listdir(self.tmp), [])


# ---------------------------------------------------------------------------
# setstripe on a directory, inheritance by files created in it


class TestDirectoryDefault(CliTestCase):

    def setUp(self):
        super().setUp()
        self.mkdir("d")
        r = self.ok("setstripe", "-c", "4", "-S", "1m", "d")
        self.assertEqual(r.stderr, "")
        self.assertIn("directory default set", r.stdout)

    def test_directory_xattr_holds_the_record(self):
        raw = self.xattr("d")
        self.assertIsNotNone(raw, "no %s on the directory" % XATTR)
        self.assertTrue(raw.startswith(b"ostio-layout 1"), raw)
        self.assertIn(b"stripe_count=4", raw)
        self.assertIn(b"stripe_size=1048576", raw)
        comps = parse_record(raw)
        self.assertEqual(len(comps), 1)
        c = comps[0]
        self.assertEqual((c["start"], c["end"]), ("0", "eof"))
        self.assertEqual(expand_osts(c["osts"]), [0, 1, 2, 3])
        self.assertEqual(c["pattern"], "raid0")
        # still a directory, nothing created in it
        self.assertTrue(os.path.isdir(self.p("d")))
        self.assertEqual(os.listdir(self.p("d")), [])

    def test_plain_file_created_in_directory_inherits_text(self):
        with open(self.p("d", "f"), "w") as f:
            f.write("")
        # the file has no record of its own: the layout is inherited, not copied
        self.assertIsNone(self.xattr("d/f"))
        r = self.ok("getstripe", "d/f")
        self.assertTrue(r.stdout.startswith("d/f\n"), r.stdout)
        self.assertIn("lmm_stripe_count:  4\n", r.stdout)
        self.assertIn("lmm_stripe_size:   1048576\n", r.stdout)
        self.assertIn("inherited", r.stdout)
        fields, objects = parse_getstripe_text(r.stdout)
        self.assertTrue(fields["ostio_source"].startswith("emulated"), fields)
        self.assertEqual(fields["lmm_pattern"], "raid0")
        self.assertEqual(fields["lmm_stripe_offset"], "0")
        self.assertEqual(objects, [(0, 0), (1, 1), (2, 2), (3, 3)])

    def test_plain_file_created_in_directory_inherits_json(self):
        open(self.p("d", "f"), "w").close()
        l = self.layout("d/f")
        self.assertEqual(l["source"], "emulated")
        self.assertIs(l["inherited"], True)
        self.assertEqual(len(l["components"]), 1)
        c = l["components"][0]
        self.assertEqual(c["stripe_count"], 4)
        self.assertEqual(c["stripe_size"], 1048576)
        self.assertEqual(c["osts"], [0, 1, 2, 3])
        self.assertEqual((c["start"], c["end"]), (0, None))

    def test_getstripe_of_directory_shows_its_default(self):
        arr = self.json_of("getstripe", "--json", "d")
        self.assertEqual(arr[0]["type"], "directory")
        l = arr[0]["layout"]
        self.assertEqual((l["source"], l["inherited"]), ("emulated", False))
        self.assertEqual(l["components"][0]["stripe_count"], 4)
        r = self.ok("getstripe", "d")
        self.assertIn("directory default", r.stdout)

    def test_file_with_own_layout_overrides_directory_default(self):
        self.ok("setstripe", "-c", "2", "-S", "2m", "d/own")
        self.assertIsNotNone(self.xattr("d/own"))
        l = self.layout("d/own")
        self.assertIs(l["inherited"], False)
        c = l["components"][0]
        self.assertEqual((c["stripe_count"], c["stripe_size"], c["osts"]), (2, 2 * MiB, [0, 1]))
        # the directory's default is untouched
        self.assertIn(b"stripe_count=4", self.xattr("d"))

    def test_setstripe_again_replaces_directory_default(self):
        self.ok("setstripe", "-c", "2", "-S", "64k", "d")
        comps = parse_record(self.xattr("d"))
        self.assertEqual((comps[0]["stripe_count"], comps[0]["stripe_size"]), ("2", "65536"))

    def test_setstripe_json_on_directory(self):
        self.mkdir("e")
        out = self.json_of("setstripe", "--json", "-c", "3", "e")
        self.assertEqual(out["path"], "e")
        self.assertEqual(out["type"], "directory")
        self.assertEqual(out["layout"]["components"][0]["osts"], [0, 1, 2])
        self.assertIn(b"stripe_count=3", self.xattr("e"))


# ---------------------------------------------------------------------------
# setstripe on files


class TestSetstripeFile(CliTestCase):

    def assert_empty_file_with_record(self, name):
        st = os.stat(self.p(name))
        self.assertTrue(os.path.isfile(self.p(name)))
        self.assertEqual(st.st_size, 0)
        raw = self.xattr(name)
        self.assertIsNotNone(raw, "%s has no %s" % (name, XATTR))
        return parse_record(raw)

    def test_new_file_is_created_empty_with_its_own_record(self):
        r = self.ok("setstripe", "-c", "4", "-S", "1m", "f")
        self.assertIn("layout set", r.stdout)
        comps = self.assert_empty_file_with_record("f")
        self.assertEqual(len(comps), 1)
        c = comps[0]
        self.assertEqual((c["stripe_count"], c["stripe_size"], c["first_ost"]), ("4", "1048576", "0"))
        self.assertEqual(expand_osts(c["osts"]), [0, 1, 2, 3])
        l = self.layout("f")
        self.assertEqual((l["source"], l["inherited"]), ("emulated", False))

    def test_defaults_are_one_stripe_of_1m(self):
        self.ok("setstripe", "-S", "2m", "s")
        self.ok("setstripe", "-c", "3", "c")
        cs = self.layout("s")["components"][0]
        cc = self.layout("c")["components"][0]
        self.assertEqual((cs["stripe_count"], cs["stripe_size"], cs["osts"]), (1, 2 * MiB, [0]))
        self.assertEqual((cc["stripe_count"], cc["stripe_size"], cc["osts"]), (3, MiB, [0, 1, 2]))

    def test_stripe_index_shifts_the_osts(self):
        self.ok("setstripe", "-c", "4", "-i", "3", "f")
        comps = self.assert_empty_file_with_record("f")
        self.assertEqual(expand_osts(comps[0]["osts"]), [3, 4, 5, 6])
        self.assertEqual(comps[0]["first_ost"], "3")
        c = self.layout("f")["components"][0]
        self.assertEqual((c["stripe_offset"], c["osts"]), (3, [3, 4, 5, 6]))

    def test_ost_list_gives_exactly_those_osts(self):
        self.ok("setstripe", "-o", "5,7,9", "f")
        comps = self.assert_empty_file_with_record("f")
        self.assertEqual(expand_osts(comps[0]["osts"]), [5, 7, 9])
        c = self.layout("f")["components"][0]
        self.assertEqual((c["stripe_count"], c["stripe_offset"], c["osts"]), (3, 5, [5, 7, 9]))
        self.assertEqual(c["pattern"], "raid0")

    def test_ost_list_with_ranges(self):
        self.ok("setstripe", "-o", "0-2,5", "f")
        self.assertEqual(self.layout("f")["components"][0]["osts"], [0, 1, 2, 5])

    def test_ost_list_with_matching_count(self):
        self.ok("setstripe", "-c", "2", "-o", "8,4", "f")
        c = self.layout("f")["components"][0]
        self.assertEqual((c["stripe_count"], c["osts"], c["stripe_offset"]), (2, [8, 4], 8))

    def test_overstriping(self):
        self.ok("setstripe", "-C", "4", "-o", "0,1", "f")
        comps = self.assert_empty_file_with_record("f")
        self.assertEqual(comps[0]["pattern"], "raid0,overstriping")
        self.assertEqual(expand_osts(comps[0]["osts"]), [0, 1, 0, 1])
        c = self.layout("f")["components"][0]
        self.assertEqual(c["osts"], [0, 1, 0, 1])
        self.assertEqual(c["stripe_count"], 4)
        self.assertEqual(c["pattern"], "raid0,overstriping")
        self.assertIn("lmm_pattern:       raid0,overstriping", self.ok("getstripe", "f").stdout)

    def test_pool(self):
        self.ok("setstripe", "-c", "2", "-p", "fast", "f")
        comps = self.assert_empty_file_with_record("f")
        self.assertEqual(comps[0]["pool"], "fast")
        self.assertEqual(self.layout("f")["components"][0]["pool"], "fast")
        self.assertIn("lmm_pool:          fast", self.ok("getstripe", "f").stdout)

    def test_pool_of_16_characters_is_accepted(self):
        self.ok("setstripe", "-p", "p" * 16, "f")
        self.assertEqual(self.layout("f")["components"][0]["pool"], "p" * 16)

    def test_pfl_two_components_json(self):
        self.ok("setstripe", "-E", "4m", "-c", "1", "-S", "1m", "-E", "eof", "-c", "4", "-S", "4m", "f")
        comps = self.assert_empty_file_with_record("f")
        self.assertEqual([(c["start"], c["end"]) for c in comps], [("0", "4194304"), ("4194304", "eof")])
        l = self.layout("f")
        cs = l["components"]
        self.assertEqual(len(cs), 2)
        self.assertEqual((cs[0]["start"], cs[0]["end"]), (0, 4 * MiB))
        self.assertEqual((cs[0]["stripe_count"], cs[0]["stripe_size"], cs[0]["osts"]), (1, MiB, [0]))
        self.assertEqual((cs[1]["start"], cs[1]["end"]), (4 * MiB, None))
        self.assertEqual((cs[1]["stripe_count"], cs[1]["stripe_size"], cs[1]["osts"]),
                         (4, 4 * MiB, [0, 1, 2, 3]))

    def test_pfl_two_components_text(self):
        self.ok("setstripe", "-E", "4m", "-c", "1", "-S", "1m", "-E", "eof", "-c", "4", "-S", "4m", "f")
        out = self.ok("getstripe", "f").stdout
        self.assertIn("lcm_entry_count:   2\n", out)
        self.assertIn("lcme_extent.e_start: 0\n", out)
        self.assertIn("lcme_extent.e_end:   4194304\n", out)
        self.assertIn("lcme_extent.e_start: 4194304\n", out)
        self.assertIn("lcme_extent.e_end:   EOF\n", out)
        self.assertEqual(re.findall(r"lmm_stripe_count:\s+(\d+)", out), ["1", "4"])
        self.assertEqual(re.findall(r"lmm_stripe_size:\s+(\d+)", out), ["1048576", "4194304"])

    def test_pfl_minus_one_means_eof(self):
        self.ok("setstripe", "-E", "1m", "-c", "1", "-E", "-1", "-c", "2", "f")
        self.assertIsNone(self.layout("f")["components"][1]["end"])

    def test_pfl_later_component_inherits_size_and_count(self):
        self.ok("setstripe", "-E", "4m", "-c", "2", "-S", "2m", "-E", "eof", "f")
        cs = self.layout("f")["components"]
        self.assertEqual((cs[1]["stripe_count"], cs[1]["stripe_size"]), (2, 2 * MiB))
        # count given, size inherited
        self.ok("setstripe", "-E", "4m", "-c", "2", "-S", "2m", "-E", "eof", "-c", "3", "g")
        cs = self.layout("g")["components"]
        self.assertEqual((cs[1]["stripe_count"], cs[1]["stripe_size"], cs[1]["osts"]),
                         (3, 2 * MiB, [0, 1, 2]))
        # size given, count inherited
        self.ok("setstripe", "-E", "4m", "-c", "2", "-S", "2m", "-E", "eof", "-S", "8m", "h")
        cs = self.layout("h")["components"]
        self.assertEqual((cs[1]["stripe_count"], cs[1]["stripe_size"]), (2, 8 * MiB))

    def test_existing_empty_file_gets_the_layout_and_keeps_its_inode(self):
        self.write("e")
        ino = os.stat(self.p("e")).st_ino
        self.ok("setstripe", "-c", "2", "-S", "4m", "e")
        self.assertEqual(os.stat(self.p("e")).st_ino, ino)
        comps = self.assert_empty_file_with_record("e")
        self.assertEqual((comps[0]["stripe_count"], comps[0]["stripe_size"]), ("2", "4194304"))

    def test_file_with_data_is_refused_and_unchanged(self):
        data = b"precious bytes\n" * 10
        self.write("full", data)
        before = self.snapshot()
        r = self.assert_fails(1, "setstripe", ["-c", "2", "full"], ["full"])
        self.assertTrue("not empty" in r.stderr or "holds" in r.stderr, r.stderr)
        self.assertIn(str(len(data)), r.stderr)
        with open(self.p("full"), "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertIsNone(self.xattr("full"))
        self.assertEqual(self.snapshot(), before)
        self.assertEqual(r.stdout, "")

    def test_setstripe_json_output(self):
        out = self.json_of("setstripe", "--json", "-c", "2", "-S", "2m", "f")
        self.assertEqual((out["path"], out["type"]), ("f", "file"))
        l = out["layout"]
        self.assertEqual((l["source"], l["inherited"]), ("emulated", False))
        self.assertEqual(l["components"][0]["osts"], [0, 1])
        self.assertIsNotNone(self.xattr("f"))

    def test_long_options(self):
        self.ok("setstripe", "--stripe-count=3", "--stripe-size", "2m", "--stripe-index", "1",
                "--pool", "slow", "f")
        c = self.layout("f")["components"][0]
        self.assertEqual((c["stripe_count"], c["stripe_size"], c["osts"], c["pool"]),
                         (3, 2 * MiB, [1, 2, 3], "slow"))

    def test_stripe_size_suffixes(self):
        for arg, want in (("64k", 65536), ("64K", 65536), ("2M", 2 * MiB), ("1g", GiB),
                          ("4194304", 4 * MiB)):
            with self.subTest(size=arg):
                name = "f" + arg
                self.ok("setstripe", "-S", arg, name)
                self.assertEqual(self.layout(name)["components"][0]["stripe_size"], want)

    def test_record_roundtrip_matches_getstripe(self):
        self.ok("setstripe", "-E", "64m", "-c", "2", "-S", "1m", "-o", "6,2",
                "-E", "eof", "-C", "6", "-o", "1-3", "-p", "big", "f")
        comps = parse_record(self.xattr("f"))
        cs = self.layout("f")["components"]
        self.assertEqual(len(comps), len(cs))
        for rec, js in zip(comps, cs):
            self.assertEqual(int(rec["start"]), js["start"])
            self.assertEqual(rec["end"], "eof" if js["end"] is None else str(js["end"]))
            self.assertEqual(int(rec["stripe_size"]), js["stripe_size"])
            self.assertEqual(int(rec["stripe_count"]), js["stripe_count"])
            self.assertEqual(expand_osts(rec["osts"]), js["osts"])
            self.assertEqual(rec["pattern"], js["pattern"])
        self.assertEqual(cs[1]["osts"], [1, 2, 3, 1, 2, 3])
        self.assertEqual(cs[1]["pool"], "big")


# ---------------------------------------------------------------------------
# getstripe


class TestGetstripe(CliTestCase):

    def test_several_paths_text(self):
        self.ok("setstripe", "-c", "2", "a")
        self.ok("setstripe", "-c", "3", "-S", "2m", "b")
        r = self.ok("getstripe", "a", "b")
        blocks = r.stdout.rstrip("\n").split("\n\n")
        self.assertEqual(len(blocks), 2, r.stdout)
        self.assertTrue(blocks[0].startswith("a\n"))
        self.assertTrue(blocks[1].startswith("b\n"))
        fa, oa = parse_getstripe_text(blocks[0])
        fb, ob = parse_getstripe_text(blocks[1])
        self.assertEqual((fa["lmm_stripe_count"], fa["lmm_stripe_size"]), ("2", "1048576"))
        self.assertEqual((fb["lmm_stripe_count"], fb["lmm_stripe_size"]), ("3", "2097152"))
        self.assertEqual(oa, [(0, 0), (1, 1)])
        self.assertEqual(ob, [(0, 0), (1, 1), (2, 2)])

    def test_several_paths_json_array(self):
        self.ok("setstripe", "-c", "2", "a")
        self.mkdir("d")
        arr = self.json_of("getstripe", "--json", "a", "d")
        self.assertEqual([x["path"] for x in arr], ["a", "d"])
        self.assertEqual([x["type"] for x in arr], ["file", "directory"])
        self.assertEqual(arr[0]["layout"]["components"][0]["stripe_count"], 2)

    def test_missing_path_is_reported_and_others_still_printed(self):
        self.ok("setstripe", "-c", "2", "a")
        self.ok("setstripe", "-c", "3", "b")
        r = self.assert_fails(1, "getstripe", ["a", "missing", "b"], ["missing"])
        self.assertTrue(r.stdout.startswith("a\n"), r.stdout)
        self.assertIn("\nb\n", r.stdout)
        self.assertNotIn("missing", r.stdout)
        self.assertFalse(os.path.exists(self.p("missing")))

    def test_missing_path_json_has_error_entry(self):
        self.ok("setstripe", "-c", "2", "a")
        r = self.assert_fails(1, "getstripe", ["--json", "missing", "a"], ["missing"])
        arr = json.loads(r.stdout)
        self.assertEqual([x["path"] for x in arr], ["missing", "a"])
        self.assertIn("error", arr[0])
        self.assertIn("missing", arr[0]["error"])
        self.assertEqual(arr[1]["layout"]["components"][0]["stripe_count"], 2)

    def test_file_without_layout_gets_the_defaults(self):
        self.write("plain")
        l = self.layout("plain")
        self.assertEqual((l["source"], l["inherited"]), ("default", False))
        c = l["components"][0]
        self.assertEqual((c["stripe_size"], c["stripe_count"], c["end"]), (1048576, 1, None))
        out = self.ok("getstripe", "plain").stdout
        self.assertIn("ostio_source:      default", out)
        self.assertIn("lmm_stripe_count:  1\n", out)
        self.assertIn("lmm_stripe_size:   1048576\n", out)
        self.assertIsNone(self.xattr("plain"))  # getstripe writes nothing

    def test_directory_without_default_gets_the_defaults(self):
        self.mkdir("d")
        arr = self.json_of("getstripe", "--json", "d")
        self.assertEqual(arr[0]["type"], "directory")
        self.assertEqual(arr[0]["layout"]["source"], "default")

    def test_striping_hints_apply_to_file_without_layout(self):
        self.write("plain")
        l = self.layout("plain", hints="*:striping_factor=3:striping_unit=2m")
        self.assertEqual(l["source"], "hints")
        c = l["components"][0]
        self.assertEqual((c["stripe_count"], c["stripe_size"]), (3, 2097152))
        out = self.ok("getstripe", "plain", hints="*:striping_factor=3:striping_unit=2m").stdout
        self.assertIn("ostio_source:      hints", out)

    def test_file_with_own_record_ignores_striping_hints(self):
        self.ok("setstripe", "-c", "2", "-S", "1m", "own")
        l = self.layout("own", hints="*:striping_factor=3:striping_unit=2m")
        self.assertEqual(l["source"], "emulated")
        c = l["components"][0]
        self.assertEqual((c["stripe_count"], c["stripe_size"]), (2, MiB))

    def test_hints_not_matching_the_path_are_ignored(self):
        self.write("plain.txt")
        l = self.layout("plain.txt", hints="*.dat:striping_factor=3")
        self.assertEqual(l["source"], "default")

    def test_garbage_record_is_runtime_error(self):
        self.write("junk")
        os.setxattr(self.p("junk"), XATTR, b"junk")
        r = self.assert_fails(1, "getstripe", ["junk"], ["junk", "record"])
        self.assertEqual(r.stdout, "")
        self.assertEqual(self.xattr("junk"), b"junk")  # left alone
        r = self.assert_fails(1, "getstripe", ["--json", "junk"], ["record"])
        arr = json.loads(r.stdout)
        self.assertIn("record", arr[0]["error"])

    def test_unsupported_record_version_is_runtime_error(self):
        self.write("v2")
        os.setxattr(self.p("v2"), XATTR,
                    b"ostio-layout 2\ncomponent start=0 end=eof stripe_size=1048576 stripe_count=1\n")
        self.assert_fails(1, "getstripe", ["v2"], ["v2", "version 2"])

    def test_garbage_directory_default_is_runtime_error_for_its_files(self):
        self.mkdir("d")
        os.setxattr(self.p("d"), XATTR, b"junk")
        self.write("d/f")
        self.assert_fails(1, "getstripe", ["d/f"], ["record"])

    def test_handwritten_record_is_read(self):
        self.write("h")
        os.setxattr(self.p("h"), XATTR,
                    b"ostio-layout 1\ncomponent start=0 end=eof stripe_size=65536 stripe_count=3"
                    b" first_ost=7 pattern=raid0 instantiated=1 osts=7,9-10\n")
        c = self.layout("h")["components"][0]
        self.assertEqual((c["stripe_size"], c["stripe_count"], c["osts"]), (65536, 3, [7, 9, 10]))

    def test_json_escapes_awkward_path(self):
        name = 'we"ird\\name'
        self.ok("setstripe", "-c", "2", name)
        arr = self.json_of("getstripe", "--json", name)
        self.assertEqual(arr[0]["path"], name)


# ---------------------------------------------------------------------------
# map


class TestMap(CliTestCase):

    def setUp(self):
        super().setUp()
        self.ok("setstripe", "-c", "4", "-S", "1m", "F")
        self.F = [(0, None, MiB, [0, 1, 2, 3])]

    def test_known_offsets_text(self):
        r = self.ok("map", "F", "1048000", "3m")
        pieces, lines = parse_map_text(r.stdout)
        self.assertEqual(lines[0], "F: extent 1048000+3145728, emulated layout")
        self.assertEqual(pieces, [
            (1048000, 576, 0, 0, 0, 0, 1048000),
            (1048576, 1048576, 0, 1, 1, 1, 0),
            (2097152, 1048576, 0, 2, 2, 2, 0),
            (3145728, 1048000, 0, 3, 3, 3, 0),
        ])
        self.assertEqual(pieces, ref_pieces(self.F, 1048000, 3 * MiB))
        self.assertIn("4 pieces over 4 objects:", r.stdout)
        self.assertIn("comp 0 object 0 ost 0: 1 piece, 576 bytes, object range [1048000, 1048576)",
                      r.stdout)

    def test_known_offsets_json(self):
        j = self.json_of("map", "--json", "F", "1048000", "3m")
        self.assertEqual((j["path"], j["offset"], j["length"]), ("F", 1048000, 3 * MiB))
        self.assertEqual(j["layout"]["components"][0]["osts"], [0, 1, 2, 3])
        got = [(p["file_offset"], p["length"], p["component"], p["stripe"], p["object"],
                p["ost"], p["object_offset"]) for p in j["pieces"]]
        self.assertEqual(got[0], (1048000, 576, 0, 0, 0, 0, 1048000))
        self.assertEqual(got[1], (1048576, 1048576, 0, 1, 1, 1, 0))
        self.assertEqual(got, ref_pieces(self.F, 1048000, 3 * MiB))
        self.assertEqual(j["pieces_total"], 4)
        self.assertEqual(j["pieces_listed"], 4)
        self.assertEqual(sum(o["bytes"] for o in j["objects"]), 3 * MiB)
        self.assertEqual([(o["object"], o["ost"], o["bytes"]) for o in j["objects"]],
                         [(0, 0, 576), (1, 1, MiB), (2, 2, MiB), (3, 3, 1048000)])
        self.assertEqual((j["objects"][0]["object_start"], j["objects"][0]["object_end"]),
                         (1048000, 1048576))

    def test_offset_past_4gib(self):
        j = self.json_of("map", "--json", "F", "5g", "10")
        self.assertEqual(j["offset"], 5 * GiB)
        self.assertEqual(len(j["pieces"]), 1)
        p = j["pieces"][0]
        self.assertEqual((p["stripe"], p["object"], p["ost"], p["length"]), (5120, 0, 0, 10))
        self.assertEqual(p["object_offset"], 5 * GiB // 4)
        self.assertEqual(p["object_offset"], 1342177280)
        pieces, _ = parse_map_text(self.ok("map", "F", "5g", "10").stdout)
        self.assertEqual(pieces, [(5 * GiB, 10, 0, 5120, 0, 0, 1342177280)])

    def test_offset_and_length_suffixes(self):
        cases = [("1K", "1M", 1024, MiB), ("1k", "1m", 1024, MiB), ("1t", "1", 1 << 40, 1),
                 ("3g", "2k", 3 * GiB, 2048), ("1048577", "4194304", 1048577, 4 * MiB)]
        for off_s, len_s, off, length in cases:
            with self.subTest(offset=off_s, length=len_s):
                j = self.json_of("map", "--json", "F", off_s, len_s)
                self.assertEqual((j["offset"], j["length"]), (off, length))
                got = [(p["file_offset"], p["length"], p["component"], p["stripe"], p["object"],
                        p["ost"], p["object_offset"]) for p in j["pieces"]]
                self.assertEqual(got, ref_pieces(self.F, off, length))
                self.assertEqual(sum(o["bytes"] for o in j["objects"]), length)

    def test_max_pieces_truncates_text(self):
        r = self.ok("map", "--max-pieces", "2", "F", "0", "5m")
        pieces, _ = parse_map_text(r.stdout)
        self.assertEqual(pieces, ref_pieces(self.F, 0, 5 * MiB)[:2])
        self.assertIn("... 3 more pieces", r.stdout)
        # the summary still covers every piece
        self.assertIn("5 pieces over 4 objects:", r.stdout)
        self.assertIn("comp 0 object 0 ost 0: 2 pieces, 2097152 bytes", r.stdout)

    def test_max_pieces_truncates_json(self):
        j = self.json_of("map", "--json", "--max-pieces", "2", "F", "0", "5m")
        self.assertEqual(len(j["pieces"]), 2)
        self.assertEqual((j["pieces_total"], j["pieces_listed"]), (5, 2))
        self.assertEqual(sum(o["bytes"] for o in j["objects"]), 5 * MiB)

    def test_default_max_pieces_is_64_and_zero_lists_all(self):
        r = self.ok("map", "F", "0", "70m")
        self.assertEqual(len(parse_map_text(r.stdout)[0]), 64)
        self.assertIn("... 6 more pieces", r.stdout)
        r = self.ok("map", "--max-pieces", "0", "F", "0", "70m")
        self.assertEqual(parse_map_text(r.stdout)[0], ref_pieces(self.F, 0, 70 * MiB))
        self.assertNotIn("more pieces", r.stdout)

    def test_zero_length(self):
        j = self.json_of("map", "--json", "F", "123", "0")
        self.assertEqual((j["pieces"], j["pieces_total"], j["objects"]), ([], 0, []))

    def test_pfl_extent_is_split_at_the_component_boundary(self):
        self.ok("setstripe", "-E", "4m", "-c", "1", "-S", "1m", "-E", "eof", "-c", "4", "-S", "4m", "P")
        P = [(0, 4 * MiB, MiB, [0]), (4 * MiB, None, 4 * MiB, [0, 1, 2, 3])]
        j = self.json_of("map", "--json", "P", "3m", "2m")
        got = [(p["file_offset"], p["length"], p["component"], p["stripe"], p["object"],
                p["ost"], p["object_offset"]) for p in j["pieces"]]
        self.assertEqual(got, [(3 * MiB, MiB, 0, 3, 0, 0, 3 * MiB),
                               (4 * MiB, MiB, 1, 1, 1, 1, 0)])
        self.assertEqual(got, ref_pieces(P, 3 * MiB, 2 * MiB))
        self.assertEqual([(o["component"], o["object"]) for o in j["objects"]], [(0, 0), (1, 1)])
        # far into the second component: absolute object offsets, as Lustre
        for off, length in ((100 * MiB, 10 * MiB), (5 * GiB + 12345, 9 * MiB)):
            with self.subTest(offset=off):
                j = self.json_of("map", "--json", "--max-pieces", "0", "P", off, length)
                got = [(p["file_offset"], p["length"], p["component"], p["stripe"],
                        p["object"], p["ost"], p["object_offset"]) for p in j["pieces"]]
                self.assertEqual(got, ref_pieces(P, off, length))
        p = self.json_of("map", "--json", "P", "100m", "1")["pieces"][0]
        ss, sc = 4 * MiB, 4
        self.assertEqual(p["object_offset"], (100 * MiB // (ss * sc)) * ss + 100 * MiB % ss)
        self.assertEqual((p["stripe"], p["object"], p["object_offset"]), (25, 1, 24 * MiB))

    def test_pfl_boundary_inside_a_stripe_of_the_next_component(self):
        self.ok("setstripe", "-E", "3m", "-c", "1", "-S", "1m", "-E", "eof", "-c", "2", "-S", "2m", "Q")
        Q = [(0, 3 * MiB, MiB, [0]), (3 * MiB, None, 2 * MiB, [0, 1])]
        r = self.ok("map", "Q", "2m", "4m")
        pieces, _ = parse_map_text(r.stdout)
        self.assertEqual(pieces, [(2 * MiB, MiB, 0, 2, 0, 0, 2 * MiB),
                                  (3 * MiB, MiB, 1, 1, 1, 1, MiB),
                                  (4 * MiB, 2 * MiB, 1, 2, 0, 0, 2 * MiB)])
        self.assertEqual(pieces, ref_pieces(Q, 2 * MiB, 4 * MiB))
        self.assertIn("3 pieces over 3 objects:", r.stdout)

    def test_overstriped_file(self):
        self.ok("setstripe", "-C", "4", "-o", "0,1", "-S", "64k", "O")
        O = [(0, None, 65536, [0, 1, 0, 1])]
        j = self.json_of("map", "--json", "O", "0", "512k")
        got = [(p["file_offset"], p["length"], p["component"], p["stripe"], p["object"],
                p["ost"], p["object_offset"]) for p in j["pieces"]]
        self.assertEqual(got, ref_pieces(O, 0, 512 * 1024))
        self.assertEqual([(o["object"], o["ost"], o["bytes"]) for o in j["objects"]],
                         [(0, 0, 131072), (1, 1, 131072), (2, 0, 131072), (3, 1, 131072)])

    def test_inherited_layout_is_mapped(self):
        self.mkdir("d")
        self.ok("setstripe", "-c", "2", "-S", "64k", "-i", "5", "d")
        self.write("d/x", b"abc")
        j = self.json_of("map", "--json", "d/x", "64k", "1")
        self.assertIs(j["layout"]["inherited"], True)
        p = j["pieces"][0]
        self.assertEqual((p["stripe"], p["object"], p["ost"], p["object_offset"]), (1, 1, 6, 0))

    def test_missing_file_is_runtime_error(self):
        self.assert_fails(1, "map", ["nofile", "0", "1"], ["nofile"])
        self.assertFalse(os.path.exists(self.p("nofile")))

    def test_nonexistent_path_with_striping_hints(self):
        # `ostio map --help`: "PATH need not exist if OSTIO_HINTS gives its striping"
        hints = "*.dat:striping_factor=4:striping_unit=1m:start_iodevice=0"
        r = self.run_ostio("map", "--json", "nofile.dat", "1m", "10", hints=hints)
        self.assertEqual(r.returncode, 0, "map of a path striped by OSTIO_HINTS that does not "
                         "exist: exit %d, stderr: %s" % (r.returncode, r.stderr))
        j = json.loads(r.stdout)
        self.assertEqual(j["layout"]["source"], "hints")
        p = j["pieces"][0]
        self.assertEqual((p["stripe"], p["object"], p["object_offset"]), (1, 1, 0))
        self.assertFalse(os.path.exists(self.p("nofile.dat")))

    def test_extent_past_the_last_component_is_runtime_error(self):
        self.ok("setstripe", "-E", "4m", "-c", "1", "S")
        self.assert_fails(1, "map", ["S", "5m", "1"], ["past"])
        self.ok("map", "S", "0", "4m")


# ---------------------------------------------------------------------------
# hints


class TestHints(CliTestCase):
    needs_xattrs = False

    @staticmethod
    def table(out):
        rows = {}
        for line in out.splitlines():
            parts = line.split(None, 2)
            if len(parts) >= 2:
                rows[parts[0]] = (parts[1], len(parts) > 2 and "OSTIO_HINTS" in parts[2])
        return rows

    def test_lists_known_hints_with_defaults(self):
        rows = self.table(self.ok("hints").stdout)
        self.assertEqual(rows["cb_buffer_size"], ("16777216", False))
        for key in ("cb_nodes", "striping_factor", "striping_unit", "romio_cb_write"):
            self.assertIn(key, rows)
            self.assertFalse(rows[key][1], key)

    def test_matching_pattern_sets_and_marks_hint(self):
        rows = self.table(self.ok("hints", "x.dat", hints="*.dat:cb_nodes=4").stdout)
        self.assertEqual(rows["cb_nodes"], ("4", True))
        self.assertFalse(rows["cb_buffer_size"][1])

    def test_non_matching_pattern_leaves_hint_alone(self):
        rows = self.table(self.ok("hints", "x.txt", hints="*.dat:cb_nodes=4").stdout)
        self.assertNotEqual(rows["cb_nodes"][0], "4")
        self.assertFalse(rows["cb_nodes"][1])

    def test_bad_value_is_runtime_error(self):
        r = self.assert_fails(1, "hints", [], ["cb_buffer_size", "12x"],
                              hints="*:cb_buffer_size=12x")
        self.assertEqual(r.stdout, "")

    def test_json_parses_and_marks_given(self):
        j = self.json_of("hints", "--json", "x.dat", hints="*.dat:cb_nodes=4:cb_buffer_size=32m")
        self.assertEqual(j["path"], "x.dat")
        h = j["hints"]
        self.assertEqual(h["cb_nodes"], {"value": "4", "given": True})
        self.assertEqual(h["cb_buffer_size"], {"value": "33554432", "given": True})
        self.assertIs(h["striping_factor"]["given"], False)
        j = self.json_of("hints", "--json")
        self.assertEqual(j["path"], "file")
        self.assertEqual(j["hints"]["cb_buffer_size"], {"value": "16777216", "given": False})
        self.assertTrue(all(v["given"] is False for v in j["hints"].values()))

    def test_hints_of_unset_environment_ignores_parent_value(self):
        # the harness removes OSTIO_HINTS: a value in the caller's env must not leak in
        os.environ["OSTIO_HINTS"] = "*:cb_nodes=7"
        try:
            rows = self.table(self.ok("hints").stdout)
        finally:
            del os.environ["OSTIO_HINTS"]
        self.assertNotEqual(rows["cb_nodes"], ("7", True))


# ---------------------------------------------------------------------------
# usage errors: exit 2, "ostio CMD: ..." naming the bad value, nothing on disk

USAGE_ERRORS = [
    # name, command, args, words the message must contain
    ("setstripe_without_path", "setstripe", ["-c", "2"], ["PATH"]),
    ("setstripe_with_no_arguments", "setstripe", [], ["PATH"]),
    ("setstripe_with_two_paths", "setstripe", ["-c", "2", "f", "g"], ["PATH"]),
    ("setstripe_count_zero", "setstripe", ["-c", "0", "f"], ["'0'", "1..2000"]),
    ("setstripe_count_2001", "setstripe", ["-c", "2001", "f"], ["2001"]),
    ("setstripe_count_not_a_number", "setstripe", ["-c", "abc", "f"], ["abc"]),
    ("setstripe_count_minus_one_not_supported", "setstripe", ["-c", "-1", "f"],
     ["-1", "not supported"]),
    ("setstripe_overstripe_count_zero", "setstripe", ["-C", "0", "-o", "1", "f"], ["'0'"]),
    ("setstripe_count_missing_value", "setstripe", ["-c"], ["-c"]),
    ("setstripe_size_zero", "setstripe", ["-S", "0", "f"], ["'0'"]),
    ("setstripe_size_5g", "setstripe", ["-S", "5g", "f"], ["5g"]),
    ("setstripe_size_4g", "setstripe", ["-S", "4g", "f"], ["4g"]),
    ("setstripe_size_bad_suffix", "setstripe", ["-S", "1x", "f"], ["1x"]),
    ("setstripe_size_negative", "setstripe", ["-S", "-1m", "f"], ["-1m"]),
    ("setstripe_index_minus_two", "setstripe", ["-i", "-2", "f"], ["-2"]),
    ("setstripe_index_too_large", "setstripe", ["-i", "65536", "f"], ["65536"]),
    ("setstripe_ost_list_empty_entry", "setstripe", ["-o", "1,,2", "f"], ["1,,2"]),
    ("setstripe_ost_list_trailing_comma", "setstripe", ["-o", "1,2,", "f"], ["1,2,"]),
    ("setstripe_ost_list_backwards_range", "setstripe", ["-o", "5-3", "f"], ["5-3"]),
    ("setstripe_ost_list_too_long", "setstripe", ["-o", "0-64", "f"], ["0-64"]),
    ("setstripe_ost_list_count_mismatch", "setstripe", ["-c", "2", "-o", "1,2,3", "f"],
     ["3", "2"]),
    ("setstripe_pool_17_characters", "setstripe", ["-p", "p" * 17, "f"], ["p" * 17]),
    ("setstripe_pool_empty", "setstripe", ["-p", "", "f"], ["pool"]),
    ("setstripe_pool_with_invalid_characters", "setstripe", ["-p", "a b", "f"], ["a b"]),
    ("setstripe_component_end_bad_size", "setstripe", ["-E", "4x", "-c", "1", "f"], ["4x"]),
    ("setstripe_component_end_zero", "setstripe", ["-E", "0", "-c", "1", "f"], ["'0'"]),
    ("setstripe_options_before_first_component_end", "setstripe",
     ["-c", "2", "-E", "4m", "-c", "1", "-E", "eof", "f"], ["-E"]),
    ("setstripe_component_ends_not_increasing", "setstripe",
     ["-E", "4m", "-c", "1", "-E", "2m", "-c", "2", "f"], ["component 1"]),
    ("setstripe_overstriping_without_ost_list", "setstripe", ["-C", "4", "f"],
     ["overstriping", "-o"]),
    ("setstripe_unknown_long_option", "setstripe", ["--bogus", "f"], ["--bogus"]),
    ("setstripe_unknown_short_option", "setstripe", ["-x", "f"], ["'-x'"]),
    ("setstripe_unknown_short_option_in_a_group", "setstripe", ["-xc", "2", "f"], ["'-x'"]),
    ("map_without_arguments", "map", [], ["PATH OFFSET LENGTH"]),
    ("map_missing_length", "map", ["f", "0"], ["PATH OFFSET LENGTH"]),
    ("map_too_many_arguments", "map", ["f", "0", "1", "2"], ["PATH OFFSET LENGTH"]),
    ("map_negative_offset", "map", ["f", "-5", "10"], ["-5"]),
    ("map_bad_length_suffix", "map", ["f", "0", "1q"], ["1q"]),
    ("map_fractional_offset", "map", ["f", "1.5m", "1"], ["1.5m"]),
    ("map_extent_past_2_63", "map", ["f", "9223372036854775807", "1"], ["2^63"]),
    ("map_max_pieces_negative", "map", ["--max-pieces", "-1", "f", "0", "1"], ["-1"]),
    ("map_max_pieces_not_a_number", "map", ["--max-pieces", "lots", "f", "0", "1"], ["lots"]),
    ("map_unknown_option", "map", ["--bogus", "f", "0", "1"], ["--bogus"]),
    ("getstripe_without_paths", "getstripe", [], ["PATH"]),
    ("getstripe_json_without_paths", "getstripe", ["--json"], ["PATH"]),
    ("getstripe_unknown_option", "getstripe", ["--bogus", "f"], ["--bogus"]),
    ("hints_two_paths", "hints", ["a", "b"], ["PATH"]),
    ("hints_unknown_option", "hints", ["--bogus"], ["--bogus"]),
]


class TestUsageErrors(CliTestCase):
    needs_xattrs = False

    def check_usage(self, cmd, args, needles):
        self.write("existing")
        self.mkdir("dir")
        before = self.snapshot()
        r = self.assert_fails(2, cmd, args, needles)
        self.assertEqual(r.stdout, "", "usage error printed to stdout")
        self.assertIn("Try 'ostio %s --help'" % cmd, r.stderr)
        self.assertEqual(self.snapshot(), before, "a usage error changed the disk")

    def test_usage_error_on_a_directory_sets_no_default(self):
        self.mkdir("d")
        self.assert_fails(2, "setstripe", ["-c", "0", "d"], ["'0'"])
        self.assertEqual(os.listxattr(self.p("d")), [])


def _make_usage_test(cmd, args, needles):
    def test(self):
        self.check_usage(cmd, args, needles)
    test.__doc__ = "ostio %s %s -> exit 2" % (cmd, " ".join(args))
    return test


for _name, _cmd, _args, _needles in USAGE_ERRORS:
    setattr(TestUsageErrors, "test_usage_" + _name, _make_usage_test(_cmd, _args, _needles))


# ---------------------------------------------------------------------------
# runtime errors


class TestRuntimeErrors(CliTestCase):

    def test_duplicate_ost_without_overstriping(self):
        r = self.run_ostio("setstripe", "-o", "1,1", "f")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(r.returncode, (1, 2))
        self.assertTrue(r.stderr.startswith("ostio setstripe: "), r.stderr)
        self.assertIn("overstriping", r.stderr)
        self.assertFalse(os.path.exists(self.p("f")))
        self.assertEqual(os.listdir(self.tmp), [])
        # with overstriping the same list is fine
        self.ok("setstripe", "-C", "2", "-o", "1,1", "g")
        self.assertEqual(self.layout("g")["components"][0]["osts"], [1, 1])

    def test_setstripe_in_missing_directory(self):
        r = self.assert_fails(1, "setstripe", ["-c", "2", "nodir/f"], ["nodir/f"])
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.tmp), [])
        self.assert_fails(1, "setstripe", ["-c", "2", self.p("nodir", "f")], [self.p("nodir", "f")])
        self.assertEqual(os.listdir(self.tmp), [])

    def test_setstripe_on_fifo_is_refused_without_hanging(self):
        os.mkfifo(self.p("fifo"))
        self.assert_fails(1, "setstripe", ["-c", "2", "fifo"], ["fifo", "not a regular file"],
                          timeout=3)
        self.assertEqual(os.listxattr(self.p("fifo")), [])

    def test_map_on_garbage_record(self):
        self.write("junk")
        os.setxattr(self.p("junk"), XATTR, b"junk")
        self.assert_fails(1, "map", ["junk", "0", "1"], ["junk", "record"])

    def test_setstripe_with_bad_hints_still_reports_cleanly(self):
        # setstripe does not read OSTIO_HINTS for the layout it is given
        self.ok("setstripe", "-c", "2", "f", hints="*:striping_factor=9")
        self.assertEqual(self.layout("f")["components"][0]["stripe_count"], 2)

    def test_getstripe_with_bad_hints(self):
        self.write("plain")
        self.assert_fails(1, "getstripe", ["plain"], ["cb_buffer_size", "12x"],
                          hints="*:cb_buffer_size=12x")


# ---------------------------------------------------------------------------


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


if __name__ == "__main__":
    sys.exit(main())
