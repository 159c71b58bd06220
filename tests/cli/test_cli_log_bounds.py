#!/usr/bin/env python3
"""Issue 27: `ostio container` on log containers whose index records claim
far more than their data logs hold, and compact on a clean container.

Run as:  python3 tests/cli/test_cli_log_bounds.py /path/to/build/ostio [unittest options]

A forged WRITE record (valid CRC) with a count of 2^40, or a huge length, is
a record pointing past its data log: check names it; map, flatten and
compact must fail at once with an error naming the writer and the bytes (a
record's pieces are never expanded beyond the data present), the other
records staying intact (recover cuts the forged one, then flatten equals the
model). Every command here runs with its address space capped at 1 GiB and a
time limit, so a regression fails the test instead of eating the machine.
"""
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import CliTestCase  # noqa: E402
import test_cli_log as tcl  # noqa: E402

AS_LIMIT = 1 << 30
ONE = (1 << 32) | 1
LEGIT = [("W", (ONE, 0, 0, 100, 1)), ("W", (ONE, 1000, 0, 200, 1))]


def _cap():
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


_CAPPED = None


def capped():
    """Whether the tool runs under the cap (a sanitizer build maps terabytes of
    shadow at start and cannot: then only the time limit bounds it)."""
    global _CAPPED
    if _CAPPED is None:
        r = subprocess.run([common.OSTIO, "container", "--help"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, preexec_fn=_cap, timeout=60)
        _CAPPED = r.returncode == 0
        if not _CAPPED:
            sys.stderr.write("test_cli_log_bounds: the tool cannot start under a %d-byte "
                             "address-space cap (a sanitizer build?): time limit only\n"
                             % AS_LIMIT)
    return _CAPPED


class LogBounds(CliTestCase):
    needs_xattrs = False
    make = tcl.LogCli.make
    writer = tcl.LogCli.writer
    fails = tcl.LogCli.fails
    model = staticmethod(tcl.LogCli.model)

    def run_ostio(self, *args, hints=None, env=None, timeout=20):
        e = dict(os.environ)
        e.pop("OSTIO_HINTS", None)
        try:
            return subprocess.run([common.OSTIO] + [str(a) for a in args], cwd=self.tmp, env=e,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  universal_newlines=True, timeout=timeout,
                                  preexec_fn=_cap if capped() else None)
        except subprocess.TimeoutExpired:
            raise self.failureException("ostio %s: still running after %g s (killed)"
                                        % (" ".join(map(str, args)), timeout)) from None

    def forged(self, name, stride, length, count, lstart=5000):
        """Writer 0 of session 1: the two LEGIT records (300 data bytes), then
        a WRITE at a later seq whose pieces need count*length bytes."""
        ctr = self.make(name)
        out, data = self.writer(ctr, 1, 1, 0, LEGIT)
        with open(self.p(ctr, "hostdir.001", "index.1.0"), "ab") as f:
            f.write(tcl.record(1, 0, ONE + 1, lstart, stride, length, count, 0))
        return ctr, out, data

    def test_forged_counts_fail_fast_and_clearly(self):
        variants = [(1, 1, 1 << 40), (1 << 20, 4096, 1 << 40), (1 << 29, 1, 1 << 33),
                    (0, 1 << 50, 1), (64, 64, 1 << 50)]
        for k, (stride, length, count) in enumerate(variants):
            ctr, out, data = self.forged("f%d.log" % k, stride, length, count)
            what = "stride %d length %d count %d" % (stride, length, count)
            self.fails(1, ["check", ctr], ["index.1.0: record 2 points past the end of its "
                                           "data log"])
            # The records themselves are listed, never expanded.
            r = self.ok("container", "map", "--records", ctr)
            self.assertIn("count %d" % count, r.stdout, what)
            lost = ["logical bytes [5000, ", "are lost", "writer 0, session 1", "data.1.0",
                    "`ostio container check`"]
            self.fails(1, ["flatten", ctr, "out%d" % k], lost)
            r = self.run_ostio("container", "map", ctr)  # its summary line comes first
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(r.stdout, "")
            for n in lost + ["ostio container map: "]:
                self.assertIn(n, r.stderr, what)
            self.assertFalse(os.path.exists(self.p("out%d" % k)), what)
            # compact would copy the damage into index.compact: refused.
            self.fails(1, ["compact", ctr], ["record 2 points past the end", "compact",
                                             "`ostio container check`"])
            self.assertFalse(os.path.exists(self.p(ctr, "index.compact")), what)
            # The legitimate records are intact: recover cuts the forged one.
            r = self.ok("container", "recover", ctr)
            self.assertIn("cut hostdir.001/index.1.0 from 192 to 128 bytes", r.stdout)
            self.ok("container", "flatten", ctr, "ok%d" % k)
            with open(self.p("ok%d" % k), "rb") as f:
                self.assertEqual(f.read(), self.model([(0, out, data)]), what)

    def test_forged_record_cut_by_a_later_trunc_reads_normally(self):
        # Lost pieces that never win (a later TRUNC cuts them) are no error;
        # the check that they never win costs nothing per piece either.
        ctr = self.make("t.log")
        pieces = [("W", (ONE, 0, 0, 100, 1)), ("T", (ONE + 2, 1200)),
                  ("W", (ONE + 3, 1000, 0, 200, 1))]
        out, data = self.writer(ctr, 1, 1, 0, pieces)
        idx = self.p(ctr, "hostdir.001", "index.1.0")
        with open(idx, "rb") as f:
            recs = f.read()
        # The forged record between the first WRITE and the TRUNC (seq ONE + 1).
        with open(idx, "wb") as f:
            f.write(recs[:64] + tcl.record(1, 0, ONE + 1, 1500, 1, 1, 1 << 40, 0) + recs[64:])
        self.ok("container", "flatten", ctr, "o")
        with open(self.p("o"), "rb") as f:
            got = f.read()
        self.assertEqual(got, self.model([(0, out, data)]))  # seqs differ: idx plays no part
        self.assertEqual(len(got), 1200)
        r = self.ok("container", "map", ctr)
        self.assertEqual(r.stdout.splitlines()[-1].split()[:2], ["1000", "200"])

    def test_compact_of_a_clean_container_keeps_the_size_record_true(self):
        ctr = self.make("c.log")
        out, data = self.writer(ctr, 1, 1, 0, LEGIT)
        self.ok("container", "recover", ctr)  # records the size clean
        self.assertIn("ok", self.ok("container", "check", ctr).stdout)
        self.ok("container", "flatten", ctr, "before")
        self.ok("container", "compact", ctr)
        r = self.run_ostio("container", "check", ctr)
        self.assertEqual(r.returncode, 0, "check after compact:\n%s%s" % (r.stdout, r.stderr))
        st = self.json_of("container", "stat", "--json", ctr)
        self.assertEqual((st["size"], st["size_from"], st["compact"]), (1200, "size record", True))
        with open(self.p(ctr, "ostio.size"), "rb") as f:
            rec = f.read().decode("ascii")
        self.assertIn("state clean\n", rec)
        self.assertIn("size 1200\n", rec)
        self.ok("container", "flatten", ctr, "after")
        with open(self.p("before"), "rb") as a, open(self.p("after"), "rb") as b:
            before = a.read()
            self.assertEqual(before, b.read())
        self.assertEqual(before, self.model([(0, out, data)]))
        # An "open" record (a writer active or crashed) stays open: compact
        # does not vouch for a size.
        ctr = self.make("o.log")
        self.writer(ctr, 1, 1, 0, LEGIT)
        self.write(os.path.join(ctr, "ostio.size"),
                   tcl.sealed("ostio-size 1\nstate open\nsize 0\n"))
        self.ok("container", "compact", ctr)
        with open(self.p(ctr, "ostio.size"), "rb") as f:
            self.assertNotIn("state clean", f.read().decode("ascii"))


if __name__ == "__main__":
    sys.exit(common.main())
