#!/usr/bin/env python3
"""End-to-end tests of the `ostio` command-line tool:
`map` (checked against the Lustre formula) and `hints`.

Run as:  python3 tests/cli/test_cli_map_hints.py /path/to/build/ostio [unittest options]

The helpers (temporary directory per test, running the tool, xattrs, the
reference Lustre mapping) and the runner are in common.py next to this file.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import GiB, MiB, CliTestCase, parse_map_text, ref_pieces  # noqa: E402


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


    # -- issue 13 item 9: bounded work; options anywhere ---------------------

    def test_whole_2p63_range_is_summarised_arithmetically(self):
        # 2^63-1 bytes of 1 MiB stripes over 4 objects: 8796093022208 pieces.
        # Counting them one by one took days; the totals are arithmetic.
        top = 9223372036854775807
        n = (top - 1) // MiB + 1
        j = self.json_of("map", "--json", "F", "0", str(top), timeout=20)
        self.assertEqual((j["pieces_total"], j["pieces_listed"], len(j["pieces"])), (n, 64, 64))
        self.assertEqual(sum(o["bytes"] for o in j["objects"]), top)
        last_stripe = (top - 1) // MiB
        for o in j["objects"]:
            k = o["object"]
            pieces = (last_stripe - k) // 4 + 1
            self.assertEqual(o["pieces"], pieces, o)
            self.assertEqual(o["object_start"], 0)
            end = ((last_stripe - (last_stripe - k) % 4) // 4) * MiB + \
                (top - last_stripe * MiB if k == last_stripe % 4 else MiB)
            self.assertEqual(o["object_end"], end, o)
        r = self.ok("map", "F", "0", str(top), timeout=20)
        self.assertIn("%d pieces over 4 objects:" % n, r.stdout)
        self.assertIn("... %d more pieces" % (n - 64), r.stdout)
        self.assertEqual(len(parse_map_text(r.stdout)[0]), 64)

    def test_summary_equals_piece_by_piece_walk(self):
        # The arithmetic totals against the listed pieces (all listed).
        self.ok("setstripe", "-E", "3m", "-c", "1", "-S", "1m", "-E", "eof", "-c", "3", "-S",
                "64k", "P")
        P = [(0, 3 * MiB, MiB, [0]), (3 * MiB, None, 65536, [0, 1, 2])]
        for off, length in ((0, 1), (100, 7 * MiB + 5), (2 * MiB + 3, 65536 * 7 + 11),
                            (3 * MiB - 1, 2), (5 * GiB + 65535, 65536 * 3 + 2)):
            with self.subTest(offset=off, length=length):
                j = self.json_of("map", "--json", "--max-pieces", "0", "P", off, length)
                ref = ref_pieces(P, off, length)
                self.assertEqual(j["pieces_total"], len(ref))
                want = {}
                for p in ref:
                    o = want.setdefault((p[2], p[4]), [0, 0, p[6], 0])
                    o[0] += 1
                    o[1] += p[1]
                    o[3] = p[6] + p[1]
                got = {(o["component"], o["object"]): [o["pieces"], o["bytes"], o["object_start"],
                                                       o["object_end"]] for o in j["objects"]}
                self.assertEqual(got, want)

    def test_fifo_and_device_are_refused(self):
        # issue 13: they have no layout; map printed the default one
        os.mkfifo(self.p("fifo"))
        self.assert_fails(1, "map", ["fifo", "0", "1"], ["fifo", "FIFO"])
        self.assert_fails(1, "map", ["/dev/null", "0", "1"], ["character device"])

    def test_options_after_the_arguments(self):
        # getopt users expect options anywhere: `map f 0 100 --max-pieces 0`
        r = self.ok("map", "F", "0", "5m", "--max-pieces", "2")
        self.assertEqual(len(parse_map_text(r.stdout)[0]), 2)
        j = self.json_of("map", "F", "0", "5m", "--json", "--max-pieces", "0")
        self.assertEqual(len(j["pieces"]), 5)
        j = self.json_of("map", "F", "--json", "0", "100")
        self.assertEqual(j["pieces_total"], 1)
        # `--` still ends the options
        self.assert_fails(2, "map", ["F", "0", "--", "--json"], ["length '--json'"])

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

    def test_hints_without_effect_say_so(self):
        # Issue 15 item 6: accepted for ROMIO compatibility, never read.
        # (romio_ds_read and ind_rd_buffer_size have an effect since issue 27:
        # libostio-mpiio sieves independent reads through a view.)
        noeffect = ("ind_wr_buffer_size", "romio_no_indep_rw", "romio_lustre_ds_in_coll")
        out = self.ok("hints").stdout
        for line in out.splitlines():
            key = line.split(None, 1)[0] if line.strip() else ""
            if key in noeffect:
                self.assertIn("accepted, no effect", line, line)
            elif key in ("cb_buffer_size", "romio_ds_write", "striping_unit", "ostio_cache",
                         "romio_ds_read", "ind_rd_buffer_size"):
                self.assertNotIn("no effect", line, line)
        doc = json.loads(self.ok("hints", "--json").stdout)
        for key in noeffect:
            self.assertIs(doc["hints"][key]["effect"], False, key)
            self.assertTrue(doc["hints"][key]["note"], key)
        self.assertIs(doc["hints"]["cb_buffer_size"]["effect"], True)

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
        self.assertEqual(h["cb_nodes"], {"value": "4", "given": True, "effect": True})
        self.assertEqual(h["cb_buffer_size"], {"value": "33554432", "given": True, "effect": True})
        self.assertIs(h["striping_factor"]["given"], False)
        j = self.json_of("hints", "--json")
        self.assertEqual(j["path"], "file")
        self.assertEqual(j["hints"]["cb_buffer_size"],
                         {"value": "16777216", "given": False, "effect": True})
        self.assertTrue(all(v["given"] is False for v in j["hints"].values()))

    def test_options_after_the_path(self):
        # issue 13: options anywhere, as getopt users expect
        j = self.json_of("hints", "x.dat", "--json", hints="*.dat:cb_nodes=4")
        self.assertEqual((j["path"], j["hints"]["cb_nodes"]["given"]), ("x.dat", True))

    # issue 14 item 4: mistyped hint names are reported with the nearest known name
    def test_unknown_hints_are_listed_with_suggestion(self):
        r = self.ok("hints", "x.dat",
                    hints="*.dat:romio_cb_wirte=enable:cb_buffer_sise=4m:cb_nodes=2"
                          ":access_style=read_once:romio_filesystem_type=LUSTRE:")
        lines = r.stdout.splitlines()
        self.assertIn("unknown hint romio_cb_wirte: did you mean romio_cb_write?", lines)
        self.assertIn("unknown hint cb_buffer_sise: did you mean cb_buffer_size?", lines)
        self.assertEqual(sum("unknown hint" in l for l in lines), 2, r.stdout)
        # known hints still apply; the unknown ones change nothing
        rows = self.table(r.stdout)
        self.assertEqual(rows["cb_nodes"], ("2", True))
        self.assertEqual(rows["romio_cb_write"], ("automatic", False))
        self.assertEqual(rows["cb_buffer_size"], ("16777216", False))

    def test_unknown_hints_json(self):
        j = self.json_of("hints", "--json", "x.dat",
                         hints="*:romio_cb_wirte=enable:striping_facter=4:romio_zzzzzzzz=1")
        self.assertEqual(j["unknown"], [
            {"key": "romio_cb_wirte", "suggestion": "romio_cb_write"},
            {"key": "striping_facter", "suggestion": "striping_factor"},
            {"key": "romio_zzzzzzzz", "suggestion": None},
        ])
        j = self.json_of("hints", "--json")
        self.assertEqual(j["unknown"], [])

    def test_unknown_ostio_hint_is_error_with_suggestion(self):
        r = self.assert_fails(1, "hints", [], ["ostio_stratgy", "did you mean ostio_strategy?"],
                              hints="*:ostio_stratgy=ost")
        self.assertEqual(r.stdout, "")

    # issue 15 item 2: the strategies come from the engine's registry
    def test_strategy_names_from_the_registry(self):
        names = "auto, even, aligned, ost, independent, single"
        line = [l for l in self.ok("hints").stdout.splitlines() if l.startswith("ostio_strategy ")]
        self.assertEqual(len(line), 1)
        self.assertIn("(one of: %s)" % names, line[0])
        self.assertEqual(self.table(self.ok("hints", hints="*:ostio_strategy=OST").stdout)
                         ["ostio_strategy"], ("ost", True))
        h = self.json_of("hints", "--json")["hints"]["ostio_strategy"]
        self.assertEqual((h["value"], h["accepted"]), ("auto", names.split(", ")))
        self.assertNotIn("accepted", self.json_of("hints", "--json")["hints"]["cb_nodes"])
        r = self.assert_fails(1, "hints", [], ['ostio_strategy="ylib"',
                                               "auto, even, aligned, ost, independent or single"],
                              hints="*:ostio_strategy=ylib")
        self.assertEqual(r.stdout, "")

    def test_hints_of_unset_environment_ignores_parent_value(self):
        # the harness removes OSTIO_HINTS: a value in the caller's env must not leak in
        os.environ["OSTIO_HINTS"] = "*:cb_nodes=7"
        try:
            rows = self.table(self.ok("hints").stdout)
        finally:
            del os.environ["OSTIO_HINTS"]
        self.assertNotEqual(rows["cb_nodes"], ("7", True))


if __name__ == "__main__":
    sys.exit(common.main())
