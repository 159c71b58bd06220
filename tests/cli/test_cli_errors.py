#!/usr/bin/env python3
"""End-to-end tests of the `ostio` command-line tool:
top level (help, version, usage), usage errors and runtime errors.

Run as:  python3 tests/cli/test_cli_errors.py /path/to/build/ostio [unittest options]

The helpers (temporary directory per test, running the tool, xattrs, the
reference Lustre mapping) and the runner are in common.py next to this file.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import COMMANDS, XATTR, CliTestCase  # noqa: E402


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

    # issue 14 item 6: the message said "cannot create: No such file or
    # directory" without saying which directory was missing
    def test_setstripe_in_missing_directory(self):
        r = self.assert_fails(1, "setstripe", ["-c", "2", "nodir/f"],
                              ["nodir/f", "directory nodir does not exist"])
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.tmp), [])
        self.assert_fails(1, "setstripe", ["-c", "2", self.p("nodir", "f")],
                          [self.p("nodir", "f"), "directory %s does not exist" % self.p("nodir")])
        self.assertEqual(os.listdir(self.tmp), [])
        self.mkdir("a")
        self.assert_fails(1, "setstripe", ["-c", "2", "a/b/c/f"], ["directory a/b does not exist"])
        self.assertEqual(os.listdir(self.p("a")), [])
        self.write("file")
        self.assert_fails(1, "setstripe", ["-c", "2", "file/f"], ["file is not a directory"])

    def test_setstripe_on_fifo_is_refused_without_hanging(self):
        os.mkfifo(self.p("fifo"))
        self.assert_fails(1, "setstripe", ["-c", "2", "fifo"], ["fifo", "not a regular file"],
                          timeout=3)
        self.assertEqual(os.listxattr(self.p("fifo")), [])

    # issue 13 item 10: `container flatten FIFO OUT` blocked forever in open()
    def test_flatten_of_a_fifo_is_refused_without_hanging(self):
        os.mkfifo(self.p("fifo"))
        r = self.run_ostio("container", "flatten", "fifo", "out", timeout=10)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertTrue(r.stderr.startswith("ostio container flatten: "), r.stderr)
        self.assertIn("fifo is a FIFO", r.stderr)
        self.assertFalse(os.path.exists(self.p("out")))

    def test_flatten_into_a_fifo_or_device_is_refused_without_hanging(self):
        self.ok("container", "create", "c", "--objects", "2", "--stripe-size", "64k")
        os.mkfifo(self.p("fifo"))
        for out, what in (("fifo", "a FIFO"), ("/dev/null", "a character device")):
            with self.subTest(out=out):
                r = self.run_ostio("container", "flatten", "c", out, timeout=10)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("%s exists and is %s" % (out, what), r.stderr)
        self.assertTrue(os.path.exists("/dev/null"))

    # issue 13 item 8: a 5-byte write at 2^62 (log container) never finished;
    # a 20 GiB hole took 67 s. The hole costs nothing now: the output is a
    # sparse file made with ftruncate. Where files cannot be 2^62 bytes (ext4),
    # the error comes at once.
    def test_flatten_of_holes_costs_nothing(self):
        self.ok("container", "create", "c", "--objects", "2", "--stripe-size", "64k")
        far = 20 << 30  # logical 20 GiB: stripe 327680, object 0 at 10 GiB
        with open(self.p("c", "obj.0000"), "r+b") as f:
            f.seek(far // 2)
            f.write(b"tail!")
        r = self.run_ostio("container", "flatten", "c", "out", timeout=20)
        self.assertEqual(r.returncode, 0, r.stderr)
        st = os.stat(self.p("out"))
        self.assertEqual(st.st_size, far + 5)
        self.assertLess(st.st_blocks * 512, 1 << 20)
        with open(self.p("out"), "rb") as f:
            self.assertEqual(os.lseek(f.fileno(), 0, os.SEEK_DATA) // 65536, far // 65536)
            f.seek(far)
            self.assertEqual(f.read(), b"tail!")

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


if __name__ == "__main__":
    sys.exit(common.main())
