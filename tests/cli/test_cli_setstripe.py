#!/usr/bin/env python3
"""End-to-end tests of the `ostio` command-line tool:
`setstripe` on directories (defaults inherited by new files) and on files.

Run as:  python3 tests/cli/test_cli_setstripe.py /path/to/build/ostio [unittest options]

The helpers (temporary directory per test, running the tool, xattrs, the
reference Lustre mapping) and the runner are in common.py next to this file.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import (GiB, MiB, XATTR, CliTestCase,  # noqa: E402
                    expand_osts, parse_getstripe_text, parse_record)


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
# issue 14 item 4b: the stripe size rule of Lustre (a multiple of 64 KiB).
# Before, `setstripe -S 1000 f` made f with 1000-byte stripes and exit 0.


class TestStripeSizeRule(CliTestCase):

    def refused(self, args, needles):
        r = self.run_ostio("setstripe", *args)
        self.assertEqual(r.returncode, 2, "setstripe %s: exit %d\nstdout:\n%s\nstderr:\n%s"
                         % (" ".join(args), r.returncode, r.stdout, r.stderr))
        self.assertTrue(r.stderr.startswith("ostio setstripe: "), r.stderr)
        for n in needles:
            self.assertIn(n, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(os.listdir(self.tmp), [], "a refused setstripe left something")
        return r

    def test_size_not_a_multiple_of_64k_is_refused_with_the_nearest_sizes(self):
        r = self.refused(["-S", "1000", "-c", "2", "f"],
                         ["1000", "multiple of 64 KiB", "65536", "--emulated"])
        self.assertNotIn("0 (", r.stderr)  # no stripe size 0 proposed below 64 KiB
        self.refused(["-S", "100000", "f"], ["100000", "64k (65536)", "128k (131072)"])
        self.refused(["-S", "1048577", "f"],
                     ["1048577", "1m (1048576)", "1088k (1114112)"])
        self.refused(["-S", "4194303k", "f"], ["4294966272", "4194240k (4294901760)"])

    def test_every_component_is_checked(self):
        self.refused(["-E", "64m", "-c", "1", "-S", "1m", "-E", "eof", "-S", "96k", "f"],
                     ["98304", "64k (65536)", "128k (131072)", "component 2"])

    def test_directory_default_is_checked(self):
        self.mkdir("d")
        r = self.run_ostio("setstripe", "-S", "4k", "d")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("4096", r.stderr)
        self.assertEqual(os.listxattr(self.p("d")), [])

    def test_multiples_of_64k_are_accepted(self):
        for size in ("64k", "192k", "1m", "4194240k"):
            with self.subTest(size=size):
                self.ok("setstripe", "-S", size, "f" + size)

    def test_emulated_flag_allows_any_size(self):
        r = self.ok("setstripe", "--emulated", "-S", "1000", "-c", "2", "f")
        self.assertEqual(r.stderr, "")
        comps = parse_record(self.xattr("f"))
        self.assertEqual((comps[0]["stripe_size"], comps[0]["stripe_count"]), ("1000", "2"))
        self.assertEqual(expand_osts(comps[0]["osts"]), [0, 1])
        # anywhere on the command line, and for a 1-byte stripe
        self.ok("setstripe", "-S", "1", "g", "--emulated")
        self.assertEqual(self.layout("g")["components"][0]["stripe_size"], 1)

    def test_help_documents_the_rule_and_the_flag(self):
        out = self.ok("setstripe", "--help").stdout
        self.assertIn("--emulated", out)
        self.assertIn("64 KiB", out)


# ---------------------------------------------------------------------------
# object sets (Ceph's object_size) in the emulated record


class TestObjectSize(CliTestCase):

    def test_object_size_is_recorded_as_version_2(self):
        r = self.ok("setstripe", "-c", "3", "-S", "64k", "--object-size", "256k", "f")
        self.assertEqual(r.stderr, "")
        raw = self.xattr("f")
        self.assertTrue(raw.startswith(b"ostio-layout 2\n"), raw)
        self.assertIn(b" stripe_count=3 object_size=262144 ", raw)
        c = self.json_of("getstripe", "--json", "f")[0]["layout"]["components"][0]
        self.assertEqual((c["stripe_size"], c["stripe_count"], c["object_size"]),
                         (65536, 3, 262144))
        self.assertIn("object_size:       262144\n", self.ok("getstripe", "f").stdout)

    def test_without_object_size_the_record_stays_version_1(self):
        self.ok("setstripe", "-c", "3", "-S", "64k", "f")
        raw = self.xattr("f")
        self.assertTrue(raw.startswith(b"ostio-layout 1\n"), raw)
        self.assertNotIn(b"object_size", raw)
        c = self.json_of("getstripe", "--json", "f")[0]["layout"]["components"][0]
        self.assertEqual(c["object_size"], 0)

    def test_map_gives_the_exact_object(self):
        # 64 KiB x 3, 256 KiB objects: an object set is 768 KiB; byte 768 KiB
        # is column 0 (offset 256 KiB in its stream) but object 3 at offset 0
        self.ok("setstripe", "-c", "3", "-S", "64k", "--object-size", "256k", "f")
        m = self.json_of("map", "--json", "--max-pieces", "0", "f", "0", "1m")
        got = [(p["file_offset"], p["object"], p["object_offset"], p["ceph_object"],
                p["ceph_offset"]) for p in m["pieces"]]
        want = []
        for s in range(16):
            col, row = s % 3, s // 3
            want.append((s * 65536, col, row * 65536, (row // 4) * 3 + col,
                         (row % 4) * 65536))
        self.assertEqual(got, want)
        self.assertEqual(want[12][3:], (3, 0))
        # no RADOS names off CephFS
        self.assertNotIn("ceph_object_name", m["pieces"][0])
        text = self.ok("map", "f", "786432", "1").stdout
        self.assertIn("ceph_object", text)

    def test_object_size_not_a_multiple_is_refused(self):
        self.assert_fails(2, "setstripe", ["-c", "2", "-S", "64k", "--object-size", "96k", "f"],
                          ["object size 98304", "multiple of the stripe size 65536"])
        self.assertFalse(os.path.exists(self.p("f")))


if __name__ == "__main__":
    sys.exit(common.main())
