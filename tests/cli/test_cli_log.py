#!/usr/bin/env python3
"""End-to-end tests of `ostio container` on log containers (issue 6):
create --log, ls, stat, map, check, recover, compact, flatten, --help.

Run as:  python3 tests/cli/test_cli_log.py /path/to/build/ostio [unittest options]

The tests implement the log format of docs/container-format.md
independently (64-byte little-endian records with CRC-32C, the key order,
TRUNC), write logs directly and compare the tool's map and flatten output
with a model computed here.
"""
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import CliTestCase  # noqa: E402

SUBS = ("create", "ls", "stat", "check", "flatten", "map", "recover", "compact")


def _crc_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


CRC = _crc_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = CRC[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def record(typ, writer, seq, lstart, stride=0, length=0, count=0, pstart=0):
    body = struct.pack("<2sBBIQqqqqqI", b"ol", 1, typ, writer, seq, lstart, stride, length,
                       count, pstart, 0)
    return body + struct.pack("<I", crc32c(body))


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def sealed(body):
    b = body.encode("ascii")
    return b + b"checksum fnv1a64 %016x\n" % fnv1a64(b)


class LogCli(CliTestCase):
    needs_xattrs = False

    def fails(self, status, args, needles=()):
        """`ostio container ARGS` exits with status; stderr names each needle."""
        r = self.run_ostio("container", *args)
        what = "ostio container %s" % " ".join(map(str, args))
        self.assertEqual(r.returncode, status, "%s: exit %d, expected %d\nstderr:\n%s"
                         % (what, r.returncode, status, r.stderr))
        self.assertTrue(r.stderr.startswith("ostio container"), r.stderr)
        for n in needles:
            self.assertIn(n, r.stderr, "%s: stderr does not mention %r:\n%s" % (what, n, r.stderr))
        return r

    def make(self, name="c.log"):
        r = self.ok("container", "create", name, "--log", "--hostdirs", "2")
        self.assertIn("log container, 2 hostdirs", r.stdout)
        return name

    def writer(self, ctr, hostdir, session, writer, pieces):
        """pieces: ("W", (seq, lstart, stride, length, count)) or ("T", (seq, L)).
        Data bytes derive from (writer, session, physical offset). Returns
        [(kind, rec, pstart)] and the data."""
        hd = self.p(ctr, "hostdir.%03d" % hostdir)
        os.makedirs(hd, exist_ok=True)
        data, idx, out = bytearray(), bytearray(), []
        for kind, rec in pieces:
            if kind == "T":
                idx += record(2, writer, rec[0], rec[1])
                out.append((kind, rec, 0))
                continue
            seq, lstart, stride, length, count = rec
            pstart = len(data)
            for i in range(count * length):
                data.append(((pstart + i) * 7 + writer * 3 + session) % 251 + 1)
            idx += record(1, writer, seq, lstart, stride, length, count, pstart)
            out.append((kind, rec, pstart))
        with open(os.path.join(hd, "data.%d.%d" % (session, writer)), "wb") as f:
            f.write(data)
        with open(os.path.join(hd, "index.%d.%d" % (session, writer)), "wb") as f:
            f.write(idx)
        return out, bytes(data)

    @staticmethod
    def model(logs):
        """logs: [(writer, [(kind, rec, pstart)], data)]. Key order, later wins."""
        recs = []
        for writer, pieces, data in logs:
            for i, (kind, rec, pstart) in enumerate(pieces):
                recs.append(((rec[0], writer, i), kind, rec, pstart, data))
        recs.sort(key=lambda x: x[0])
        out, size = bytearray(), 0
        for _, kind, rec, pstart, data in recs:
            if kind == "T":
                size = rec[1]
                del out[size:]
                continue
            seq, lstart, stride, length, count = rec
            end = lstart + (count - 1) * stride + length
            if len(out) < end:
                out += bytes(end - len(out))
            for i in range(count):
                a = lstart + i * stride
                out[a:a + length] = data[pstart + i * length:pstart + (i + 1) * length]
            size = max(size, end)
        out += bytes(max(0, size - len(out)))
        return bytes(out[:size])

    def build(self, ctr, rng):
        logs = []
        for w in range(3):
            pieces = []
            for _ in range(rng.randint(1, 6)):
                seq = (1 << 32) | rng.randint(1, 4)
                if w == 0 and rng.random() < 0.2:
                    pieces.append(("T", (seq, rng.randint(0, 60000))))
                    continue
                length = rng.randint(1, 3000)
                count = rng.randint(1, 5)
                stride = length + rng.randint(0, 4000) if count > 1 else 0
                pieces.append(("W", (seq, rng.randint(0, 50000), stride, length, count)))
            out, data = self.writer(ctr, w % 2, 1, w, pieces)
            logs.append((w, out, data))
        return logs

    def test_help_and_usage(self):
        for s in SUBS:
            r = self.ok("container", s, "--help")
            self.assertTrue(r.stdout.startswith("Usage: ostio container %s" % s), r.stdout)
        self.fails(2, ["map"], ["expected one PATH"])
        self.fails(2, ["map", "--bogus", "x"], ["unknown option"])
        self.fails(2, ["create", "x", "--hostdirs", "3"], ["--log"])
        self.ok("container", "create", "s.ctr", "--objects", "2")
        self.fails(1, ["map", "s.ctr"], ["striped container", "ostio map"])

    def test_map_flatten_compact_against_model(self):
        rng = random.Random(int(os.environ.get("OSTIO_TEST_SEED", "606")))
        for round_ in range(4):
            ctr = self.make("r%d.log" % round_)
            logs = self.build(ctr, rng)
            want = self.model(logs)
            self.write(os.path.join(ctr, "ostio.size"),
                       sealed("ostio-size 1\nstate open\nsize 0\n"))
            st = self.json_of("container", "stat", "--json", ctr)
            self.assertEqual((st["kind"], st["size"], st["size_from"], st["hostdirs"]),
                             ("log", len(want), "index", 2))
            # map: segments cover [0, size) and say where each byte is.
            r = self.ok("container", "map", ctr)
            got = bytearray()
            for line in r.stdout.splitlines():
                f = line.split()
                off, n = int(f[0]), int(f[1])
                self.assertEqual(off, len(got))
                if f[2] == "zeros":
                    got += bytes(n)
                else:
                    with open(self.p(ctr, f[2]), "rb") as d:
                        d.seek(int(f[3]))
                        got += d.read(n)
            self.assertEqual(bytes(got), want, "round %d: map differs from the model" % round_)
            out = "flat%d" % round_
            self.ok("container", "flatten", ctr, out)
            with open(self.p(out), "rb") as f:
                self.assertEqual(f.read(), want, "round %d: flatten differs" % round_)
            self.ok("container", "compact", ctr)
            self.assertIn("compact:      current", self.ok("container", "stat", ctr).stdout)
            self.ok("container", "flatten", ctr, out + ".c")
            with open(self.p(out + ".c"), "rb") as f:
                self.assertEqual(f.read(), want, "round %d: after compact" % round_)
            # check: the size record says open; recover records it clean.
            r = self.fails(1, ["check", ctr], ["\"open\""])
            r = self.ok("container", "recover", ctr)
            self.assertIn("size record written: clean, %d bytes" % len(want), r.stdout)
            self.assertIn("ok", self.ok("container", "check", ctr).stdout)
            st = self.json_of("container", "stat", "--json", ctr)
            self.assertEqual((st["size"], st["size_from"]), (len(want), "size record"))
            # a log appended behind the clean record's back: the record no
            # longer matches the index logs, so stat derives the size as a
            # reader would, never the stale record's
            more, data = self.writer(ctr, 0, 2, 7, [("W", ((2 << 32) | 1, len(want) + 100, 0, 50, 1))])
            logs.append((7, more, data))
            want = self.model(logs)
            st = self.json_of("container", "stat", "--json", ctr)
            self.assertEqual((st["size"], st["size_from"]), (len(want), "index"),
                             "round %d: stat trusted a stale size record" % round_)

    def test_torn_tail_and_foreign_names(self):
        ctr = self.make()
        self.writer(ctr, 1, 1, 0, [("W", ((1 << 32) | 1, 0, 0, 100, 1)),
                                   ("W", ((1 << 32) | 1, 500, 0, 50, 1))])
        with open(self.p(ctr, "hostdir.001", "index.1.0"), "ab") as f:
            f.write(b"half a record")
        self.write(os.path.join(ctr, "hostdir.001", "notes.txt"), b"x")
        os.symlink("/etc/passwd", self.p(ctr, "hostdir.001", "data.2.0"))
        r = self.fails(1, ["check", ctr],
                              ["torn last record", "notes.txt", "data.2.0"])
        ls = self.json_of("container", "ls", "--json", ctr)
        self.assertEqual([(x["session"], x["writer"], x["data_bytes"]) for x in ls["logs"]],
                         [(1, 0, 150)])
        r = self.ok("container", "recover", ctr)
        self.assertIn("cut hostdir.001/index.1.0 from 141 to 128 bytes", r.stdout)
        self.assertEqual(os.path.getsize(self.p(ctr, "hostdir.001", "index.1.0")), 128)
        r = self.ok("container", "map", "--records", ctr)
        self.assertEqual(len(r.stdout.splitlines()), 2)

    def test_lost_data_is_found_and_never_read_as_zeros(self):
        """Issue 13: check finds data that is gone; flatten fails on it."""
        one = ((1 << 32) | 1)
        pieces = [("W", (one, 0, 0, 100, 1)), ("W", (one, 1000, 0, 200, 1))]
        # A record pointing past its (cut) data log: an error naming the bytes.
        ctr = self.make("past.log")
        self.writer(ctr, 1, 1, 0, pieces)
        self.ok("container", "recover", ctr)
        self.assertIn("ok", self.ok("container", "check", ctr).stdout)
        os.truncate(self.p(ctr, "hostdir.001", "data.1.0"), 150)
        self.fails(1, ["check", ctr], ["index.1.0: record 1 points past the end of its data "
                                       "log", "[1000, 1200) are lost", "recover"])
        self.fails(1, ["flatten", ctr, "out"], ["logical bytes [1000, 1200) are lost",
                                                "data.1.0"])
        # An emptied index log: its data log has no record.
        ctr = self.make("empty.log")
        self.writer(ctr, 1, 1, 0, pieces)
        self.ok("container", "recover", ctr)
        os.truncate(self.p(ctr, "hostdir.001", "index.1.0"), 0)
        self.fails(1, ["check", ctr], ["hostdir.001/data.1.0: bytes [0, 300) (300 bytes) have "
                                       "no index record", "restore hostdir.001/index.1.0"])
        # A deleted one.
        os.remove(self.p(ctr, "hostdir.001", "index.1.0"))
        self.fails(1, ["check", ctr], ["hostdir.001/data.1.0 holds 300 bytes but its index "
                                       "log hostdir.001/index.1.0 is missing"])
        # index.compact naming a writer that does not exist.
        ctr = self.make("compact.log")
        self.writer(ctr, 1, 1, 0, pieces)
        self.ok("container", "compact", ctr)
        self.ok("container", "recover", ctr)
        with open(self.p(ctr, "index.compact"), "r+b") as f:
            f.seek(128)   # COVER, then the two WRITEs in key order
            f.write(record(1, 9, one, 1000, 0, 200, 1, 100))
        self.fails(1, ["check", ctr], ["index.compact: record 2 names writer 9 of session 1, "
                                       "which has no data log"])
        self.fails(1, ["flatten", ctr, "out2"], ["logical bytes [1000, 1200) are lost"])
        r = self.ok("container", "recover", ctr)
        self.assertIn("removed the damaged index.compact", r.stdout)
        self.ok("container", "flatten", ctr, "out3")
        with open(self.p("out3"), "rb") as f:
            got = f.read()
        self.assertEqual(len(got), 1200)
        self.assertEqual(got[:100], bytes(((i * 7 + 1) % 251 + 1) for i in range(100)))

    def test_log_only_subcommands_on_a_striped_container(self):
        # One sentence from one place (the kind's hook is NULL), the kinds that
        # have the hook from the registry, and what to use instead.
        self.ok("container", "create", "s.ctr", "--objects", "2")
        r = self.fails(1, ["recover", "s.ctr"], ["s.ctr is a striped container; recover is not "
                                                 "supported by this kind (kinds that support "
                                                 "it: log)", "`ostio container check PATH`"])
        self.assertNotIn("ostio map", r.stderr)
        r = self.fails(1, ["compact", "s.ctr"], ["s.ctr is a striped container; compact is not "
                                                 "supported by this kind (kinds that support "
                                                 "it: log)"])
        self.assertNotIn("ostio map", r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.fails(1, ["map", "s.ctr"], ["map is not supported by this kind",
                                         "`ostio map PATH OFFSET LENGTH`"])

if __name__ == "__main__":
    sys.exit(common.main())
