#!/usr/bin/env python3
"""End-to-end tests of `ostio model` (issue 18): the shipped system
descriptions run, every strategy gets a row with consistent numbers, the
Y-lib effect shows (ost: one target per aggregator, no lock conflicts; even:
shared objects and conflicts), --sweep gives one row per value and strategy,
--plot writes a CSV and a well-formed SVG with one line per strategy, --stats
takes the pattern from a statistics document (stats_even_np4.json, written by
a real 4-rank ostio-bench run; and, when ostio-bench and mpiexec sit next to
the tool, a document from a 2-rank run made here) and predicts what the same
pattern given by flags predicts, and bad input is refused with exit 2 (usage)
or 1 (model or statistics file) and a message.

Run as:  python3 tests/cli/test_cli_model.py /path/to/build/ostio [unittest options]
"""
import csv
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
import xml.dom.minidom

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import CliTestCase  # noqa: E402

SYSTEMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "systems")
STRATEGIES = ["ost", "even", "aligned", "independent", "fpp"]
# OSTIO_STATS=json:stats.json of `mpiexec -n 4 ostio-bench -a ostio:even -w -b 1m -t 256k
# -s 2 --stripe-count 4 --warmup 0 -o out`: 8 MiB in 8 collective calls per rank.
STATS_EVEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stats_even_np4.json")


def png_chunks(path):
    """(width, height, [(kind, body)]) of a PNG, every chunk's CRC and the end checked."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    pos, chunks = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(kind + body)
        chunks.append((kind, body))
        pos += 12 + n
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    w, h = struct.unpack(">II", chunks[0][1][:8])
    zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))  # Adler-32
    return w, h, chunks


def untimed(out):
    """The output without the per-row CPU seconds, which vary from run to run."""
    return re.sub(r"\(\d+\.\d+ s\)", "", out)


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
        r = self.run_ostio("model", "--system", self.system("ranger"), "--sweep", "ranks=4,16,64",
                           "--strategy", "ost,independent", "--plot", "sw", timeout=120)
        no_mpl = r.returncode == 1 and "matplotlib is missing" in r.stderr
        self.assertTrue(r.returncode == 0 or no_mpl, r.stderr)
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
        if no_mpl:
            self.skipTest("the CSV and SVG are checked; the PNG needs matplotlib: " + r.stderr)
        # The PNG is matplotlib's (issue 31: no hand-made rasterizer): every
        # chunk's CRC, 800 x 480, tens of KB (the rasterizer's was 1.15 MB).
        self.assertIn("sw.png", r.stderr)
        w, h, chunks = png_chunks(os.path.join(self.tmp, "sw.png"))
        self.assertEqual((w, h), (800, 480))
        self.assertLess(os.path.getsize(os.path.join(self.tmp, "sw.png")), 200000)
        self.assertIn(b"matplotlib", b"".join(body for kind, body in chunks if kind == b"tEXt"))
        r = self.ok("model", "--system", self.system("ranger"), "--ranks", "16",
                    "--sweep", "stripe_count=1,2,4", "--strategy", "ost")
        self.assertEqual([x["value"] for x in rows(r.stdout)], [1, 2, 4])

    def test_stats(self):
        sysf = self.system("ranger")
        r = self.ok("model", "--system", sysf, "--stats", STATS_EVEN)
        head = [l for l in r.stdout.splitlines() if l.startswith("#")]
        self.assertIn("files[0] out.ostio-even: 4 ranks, 8 calls per rank, 8388608 bytes, "
                      "stripe count 4, strategy even", head[0])
        self.assertIn("pattern ior -b 262144 -t 262144 -s 8; stripe size 1048576", head[1])
        got = rows(r.stdout)
        self.assertEqual([(x["value"], x["strategy"]) for x in got],
                         [(4, s) for s in STRATEGIES])
        # the same prediction as the pattern given by flags
        same = self.ok("model", "--system", sysf, "--ranks", "4", "-b", "256k", "-t", "256k",
                       "-s", "8", "--stripe-count", "4", "--stripe-size", "1m")
        self.assertEqual(untimed(r.stdout).splitlines()[1:], untimed(same.stdout).splitlines())
        # flags override the run's ranks and layout
        r = self.ok("model", "--system", sysf, "--stats", STATS_EVEN, "--ranks", "64",
                    "--stripe-count", "16", "--strategy", "ost", "--stats-file", "0")
        self.assertEqual([x["value"] for x in rows(r.stdout)], [64])
        self.assert_fails(2, "model", ["--system", sysf, "--stats", STATS_EVEN, "-b", "1m"],
                          ["--stats gives the pattern"])
        self.assert_fails(2, "model", ["--system", sysf, "--stats-file", "0"],
                          ["--stats-file needs --stats"])
        self.assert_fails(2, "model", ["--system", sysf, "--stats", STATS_EVEN,
                                       "--stats-file", "x"], ["--stats-file x"])
        self.assert_fails(1, "model", ["--system", sysf, "--stats", STATS_EVEN,
                                       "--stats-file", "1"], ["--stats-file 1", "1 files"])
        self.assert_fails(1, "model", ["--system", sysf, "--stats", "none.json"],
                          ["none.json", "No such file"])
        with open(os.path.join(self.tmp, "other.json"), "w") as f:
            f.write('{"format": "darshan"}')
        self.assert_fails(1, "model", ["--system", sysf, "--stats", "other.json"],
                          ["ostio-stats"])

    def test_stats_from_a_real_run(self):
        bench = os.path.join(os.path.dirname(common.OSTIO), "ostio-bench")
        mpiexec = os.environ.get("OSTIO_TEST_MPIEXEC") or shutil.which("mpiexec")
        if not (os.access(bench, os.X_OK) and mpiexec):
            self.skipTest("no ostio-bench next to the tool or no mpiexec")
        env = dict(os.environ, OSTIO_STATS="json:" + os.path.join(self.tmp, "run.json"),
                   ASAN_OPTIONS="detect_leaks=0")
        r = subprocess.run([mpiexec, "-n", "2", bench, "-a", "ostio:aligned", "-w", "-b", "2m",
                            "-t", "512k", "-s", "1", "--stripe-count", "2", "--warmup", "0",
                            "-o", "out"], cwd=self.tmp, env=env, timeout=120,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        if r.returncode != 0 or not os.path.exists(os.path.join(self.tmp, "run.json")):
            self.skipTest("the 2-rank run did not complete here: %s" % r.stderr[-300:])
        r = self.ok("model", "--system", self.system("ranger"), "--stats", "run.json")
        self.assertIn("2 ranks, 4 calls per rank, 4194304 bytes, stripe count 2, "
                      "strategy aligned", r.stdout)
        self.assertIn("pattern ior -b 524288 -t 524288 -s 4", r.stdout)
        self.assertEqual([x["value"] for x in rows(r.stdout)], [2] * 5)

    def test_help_and_refusals(self):
        r = self.ok("model", "--help")
        self.assertIn("--system FILE", r.stdout)
        for flag in ("--stats FILE", "--stats-file I", "--plot PREFIX", "--sweep"):
            self.assertIn(flag, r.stdout)
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

    def test_stripe_size_as_a_lustre_layout_takes_it(self):
        # Issue 27: a stripe size a layout would refuse is refused here too,
        # with the same sentence (src/layout's rule: a multiple of 64 KiB from
        # 64k to 4 GiB - 64 KiB), at once (a 1-byte stripe took minutes).
        sysf = self.system("theta")
        big = ["--ranks", "1024", "-p", "strided", "-b", "64k", "-t", "4k", "-s", "64"]
        for size, needles in (("1", ["--stripe-size 1:", "multiple of 64 KiB",
                                     "nearest valid sizes: 64k (65536)"]),
                              ("100k", ["--stripe-size 102400:",
                                        "64k (65536) or 128k (131072)"]),
                              ("4g", ["--stripe-size 4294967296:", "4194240k"])):
            self.assert_fails(2, "model", ["--system", sysf, "--stripe-size", size] + big,
                              needles, timeout=10)
        r = self.ok("model", "--system", sysf, "--ranks", "8", "--stripe-size", "64k")
        self.assertIn("stripe size 65536", r.stdout)


if __name__ == "__main__":
    sys.exit(common.main())
