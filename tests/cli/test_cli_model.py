#!/usr/bin/env python3
"""End-to-end tests of `ostio model` (issue 18): the shipped system
descriptions run, every strategy gets a row with consistent numbers, the
Y-lib effect shows (ost: one target per aggregator, no lock conflicts; even:
shared objects and conflicts), --sweep gives one row per value and strategy,
--plot writes a CSV and a well-formed SVG with one line per strategy, and bad
input is refused with exit 2 (usage) or 1 (model) and a message.

Run as:  python3 tests/cli/test_cli_model.py /path/to/build/ostio [unittest options]
"""
import csv
import os
import sys
import xml.dom.minidom

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import CliTestCase  # noqa: E402

SYSTEMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "systems")
STRATEGIES = ["ost", "even", "aligned", "independent", "fpp"]


def rows(out):
    """The table's rows: dicts of value, strategy, MB/s, time, ost/c, c/ost, conflicts."""
    res = []
    for line in out.splitlines():
        if line.startswith("#") or line.startswith("ranks") or line.startswith("stripes"):
            continue
        f = line.split()
        res.append({"value": int(f[0]), "strategy": f[1], "mbps": float(f[2]),
                    "time": float(f[3]), "split": [float(x) for x in f[4:9]],
                    "ost_per_client": int(f[9]), "clients_per_ost": int(f[10]),
                    "conflicts": float(f[11])})
    return res


class TestModel(CliTestCase):
    needs_xattrs = False

    def system(self, name):
        return os.path.join(SYSTEMS, name + ".json")

    def test_every_shipped_system_runs(self):
        for name, ranks in (("jaguar-xt3", 8), ("ranger", 8), ("theta", 8), ("local", 2)):
            r = self.ok("model", "--system", self.system(name), "--ranks", str(ranks))
            got = rows(r.stdout)
            self.assertEqual([x["strategy"] for x in got], STRATEGIES, name)
            for x in got:
                self.assertGreater(x["mbps"], 0, (name, x))
                # the split adds up to the time (printed to 3 decimals)
                self.assertAlmostEqual(sum(x["split"]), x["time"], delta=0.003, msg=(name, x))

    def test_ylib_effect(self):
        # 64 clients, 16 objects, each rank 16 MiB: ost writes one object per
        # aggregator without conflicts; even's contiguous domains share objects.
        r = self.ok("model", "--system", self.system("jaguar-xt3"), "--ranks", "64",
                    "-b", "16m", "-t", "1m", "--stripe-count", "16", "--strategy", "ost,even")
        got = {x["strategy"]: x for x in rows(r.stdout)}
        self.assertEqual(got["ost"]["ost_per_client"], 1)
        self.assertEqual(got["ost"]["conflicts"], 0)
        self.assertGreater(got["even"]["conflicts"], 0)
        self.assertGreater(got["even"]["ost_per_client"], 1)

    def test_sweep_and_plot(self):
        r = self.ok("model", "--system", self.system("ranger"), "--sweep", "ranks=4,16,64",
                    "--strategy", "ost,independent", "--plot", "sw")
        got = rows(r.stdout)
        self.assertEqual([(x["value"], x["strategy"]) for x in got],
                         [(4, "ost"), (4, "independent"), (16, "ost"), (16, "independent"),
                          (64, "ost"), (64, "independent")])
        with open(os.path.join(self.tmp, "sw.csv")) as f:
            table = list(csv.reader(f))
        self.assertEqual(table[0], ["ranks", "strategy", "MBps"])
        self.assertEqual(len(table), 7)
        for (v, s, m), x in zip(table[1:], got):
            self.assertEqual((int(v), s), (x["value"], x["strategy"]))
            self.assertAlmostEqual(float(m), x["mbps"], delta=0.1)
        doc = xml.dom.minidom.parse(os.path.join(self.tmp, "sw.svg"))
        self.assertEqual(len(doc.getElementsByTagName("polyline")), 2)
        texts = [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]
        for needle in ("ost", "independent", "ranks", "MB/s"):
            self.assertIn(needle, texts)
        r = self.ok("model", "--system", self.system("ranger"), "--ranks", "16",
                    "--sweep", "stripe_count=1,2,4", "--strategy", "ost")
        self.assertEqual([x["value"] for x in rows(r.stdout)], [1, 2, 4])

    def test_help_and_refusals(self):
        r = self.ok("model", "--help")
        self.assertIn("--system FILE", r.stdout)
        self.assert_fails(2, "model", [], ["--system FILE is required"])
        self.assert_fails(2, "model", ["--system", self.system("local"), "--bogus"])
        self.assert_fails(2, "model", ["--system", self.system("local"), "--strategy", "romio"],
                          ["ost, even"])
        self.assert_fails(2, "model", ["--system", self.system("local"), "--sweep", "nodes=4"],
                          ["ranks=A,B"])
        self.assert_fails(2, "model", ["--system", self.system("local"), "-p", "btio",
                                       "--ranks", "3"], ["pattern at 3 ranks"])
        self.assert_fails(1, "model", ["--system", "missing.json"], ["missing.json"])
        self.assert_fails(1, "model", ["--system", self.system("local"), "--ranks", "8"],
                          ["holds 2"])
        with open(os.path.join(self.tmp, "bad.json"), "w") as f:
            f.write('{"ostio_system": 1, "name": "x", "nodes": -1}')
        self.assert_fails(1, "model", ["--system", "bad.json"], ["bad.json"])


if __name__ == "__main__":
    sys.exit(common.main())
