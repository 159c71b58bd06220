#!/usr/bin/env python3
"""End-to-end tests of the `ostio` command-line tool:
`getstripe` (several paths, defaults, hints, bad records).

Run as:  python3 tests/cli/test_cli_getstripe.py /path/to/build/ostio [unittest options]

The helpers (temporary directory per test, running the tool, xattrs, the
reference Lustre mapping) and the runner are in common.py next to this file.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import MiB, XATTR, CliTestCase, parse_getstripe_text  # noqa: E402


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

    # -- issue 13: files that have no layout are refused, without blocking ----

    def test_fifo_is_refused_without_blocking(self):
        os.mkfifo(self.p("fifo"))
        self.write("f")
        # a reader would block forever in open(); the harness kills it after 10 s
        r = self.assert_fails(1, "getstripe", ["fifo", "f"],
                              ["fifo", "not a regular file or directory", "FIFO"])
        self.assertEqual(r.stdout.split("\n")[0], "f", r.stdout)  # the others are still shown
        r = self.assert_fails(1, "getstripe", ["--json", "fifo"], ["FIFO"])
        arr = json.loads(r.stdout)
        self.assertEqual(arr[0]["path"], "fifo")
        self.assertIn("FIFO", arr[0]["error"])

    def test_device_is_refused(self):
        r = self.assert_fails(1, "getstripe", ["/dev/null"],
                              ["/dev/null", "not a regular file or directory",
                               "character device"])
        self.assertEqual(r.stdout, "")

    def test_proc_file_is_refused(self):
        if not os.path.isfile("/proc/self/status"):
            self.skipTest("no /proc here")
        r = self.assert_fails(1, "getstripe", ["/proc/self/status"],
                              ["/proc/self/status", "not on a file system with stripe layouts",
                               "proc"])
        self.assertEqual(r.stdout, "")
        self.assert_fails(1, "getstripe", ["/proc"], ["not on a file system with stripe layouts"])

    def test_json_option_after_the_paths(self):
        self.ok("setstripe", "-c", "2", "a")
        arr = self.json_of("getstripe", "a", "--json")
        self.assertEqual(arr[0]["layout"]["components"][0]["stripe_count"], 2)

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
        # version 2 (object_size) is read; a later one is refused
        self.write("v3")
        os.setxattr(self.p("v3"), XATTR,
                    b"ostio-layout 3\ncomponent start=0 end=eof stripe_size=1048576 stripe_count=1\n")
        self.assert_fails(1, "getstripe", ["v3"], ["v3", "version 3"])

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
# issue 14 item 5: a file created by the library (ostio_open with striping
# hints; `container flatten OUT --stripe-count` opens OUT that way) showed
# lmm_stripe_offset -1 and no objects, and the statistics counted 0 OSTs.


class TestFilesCreatedByTheLibrary(CliTestCase):

    def test_created_file_has_its_osts_like_setstripe(self):
        self.write("src", bytes(range(256)) * 1024)  # 256 KiB
        r = self.ok("container", "flatten", "src", "out", "--stripe-count", "4",
                    "--stripe-size", "64k", env={"OSTIO_STATS": "1"}, timeout=60)
        comps = common.parse_record(self.xattr("out"))
        self.assertEqual(len(comps), 1)
        self.assertEqual((comps[0]["stripe_count"], comps[0]["stripe_size"],
                          comps[0]["first_ost"], comps[0]["instantiated"]),
                         ("4", "65536", "0", "1"))
        self.assertEqual(common.expand_osts(comps[0]["osts"]), [0, 1, 2, 3])
        out = self.ok("getstripe", "out").stdout
        fields, objects = parse_getstripe_text(out)
        self.assertEqual(fields["lmm_stripe_offset"], "0", out)
        self.assertEqual(objects, [(0, 0), (1, 1), (2, 2), (3, 3)], out)
        self.assertNotIn("-1", out)
        # setstripe gives the same OSTs to the same layout
        self.ok("setstripe", "-c", "4", "-S", "64k", "same")
        self.assertEqual(self.xattr("same"), self.xattr("out"))
        # and the statistics now count OSTs
        m = re.search(r"OSTs per aggregator per call: max (\d+)", r.stderr)
        self.assertIsNotNone(m, r.stderr)
        self.assertGreater(int(m.group(1)), 0, r.stderr)

    def test_start_iodevice_is_the_first_ost(self):
        self.write("src", b"x" * 4096)
        self.ok("container", "flatten", "src", "out", "--stripe-count", "3",
                hints="*:start_iodevice=5", timeout=60)
        c = self.layout("out")["components"][0]
        self.assertEqual((c["stripe_count"], c["osts"]), (3, [5, 6, 7]))


# ---------------------------------------------------------------------------
# issue 14 item 6: a missing directory was "No such file or directory" only


class TestMissingDirectory(CliTestCase):

    def test_missing_directory_is_named(self):
        r = self.assert_fails(1, "getstripe", ["nodir/f"], ["nodir/f", "directory nodir does not exist"])
        self.assertEqual(r.stdout, "")
        os.mkdir(self.p("a"))
        self.assert_fails(1, "getstripe", ["a/b/c/f"], ["directory a/b does not exist"])
        self.write("file")
        self.assert_fails(1, "getstripe", ["file/f"], ["file is not a directory"])
        # a missing file in a directory that exists is only a missing file
        r = self.assert_fails(1, "getstripe", ["a/f"], ["a/f"])
        self.assertNotIn("does not exist", r.stderr)


if __name__ == "__main__":
    sys.exit(common.main())
