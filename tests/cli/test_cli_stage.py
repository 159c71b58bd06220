#!/usr/bin/env python3
"""End-to-end tests of node-local staging from the command line (issue 19):
`ostio stage status|drain`, and `ostio container check|recover|compact` on
staged log containers.

    python3 tests/cli/test_cli_stage.py /path/to/ostio --writer /path/to/stage_writer

stage_writer (tests/stage_writer.c) writes a log container through the
library: MIB MiB per rank in pieces of varying length plus an overwrite, then
ostio_sync, then close, or _exit(0) without close (a job killed after its last
sync). With OSTIO_HINTS="*:ostio_stage_dir=DIR" its logs go to DIR; with the
test knob OSTIO_TEST_RANKS_PER_NODE=1 rank r is on the simulated node
"HOSTNAME#node<r>" with its stage directory under DIR/node.<r>. A small
ostio_stage_bandwidth keeps its background drain from moving the data before
the _exit, so the data is still staged when the tests look.

Every check reads the bytes on disk: the flattened container against the
same program's unstaged output and against the pattern (computed here as in
stage_writer.c), the drained copy's bytes against the staged log after a
kill, the stage records and staged files.
"""
import glob
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

MiB = 1 << 20
WRITER = None
HOST = socket.gethostname()

# ---------------------------------------------------------------------------
# the pattern of stage_writer.c: byte(o) = (o*131 + (o>>12)*7 + tag*59) % 251

_PERIOD = bytes((k * 131) % 251 for k in range(4096 + 251))
_ADD = [bytes((v + c) % 251 if v < 251 else v for v in range(256)) for c in range(251)]


def pattern(off, length, tag):
    out = bytearray()
    o, end = off, off + length
    while o < end:
        blk = min(end, (o | 4095) + 1) - o
        s = o % 251
        out += _PERIOD[s:s + blk].translate(_ADD[((o >> 12) * 7 + tag * 59) % 251])
        o += blk
    return bytes(out)


def overwrite_range(rank, mib):
    total = mib * MiB
    base = rank * total
    return base + total // 3 + 1000, total // 4 + 123


def crc32c(data):
    """CRC-32C (Castagnoli) as logrec.c computes it."""
    crc = 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xffffffff


def record_text(host, d, version=2):
    """A stage record as ostio writes it (version 1: the previous release's)."""
    body = "ostio stage %d\nhost %s\ndir %s\n" % (version, host, d)
    if version == 1:
        return body
    return body + "crc32c %08x\n" % crc32c(body.encode())


def tree_bytes(top):
    """{relative path: bytes} of every file under top."""
    out = {}
    for root, _, files in os.walk(top):
        for n in files:
            full = os.path.join(root, n)
            with open(full, "rb") as f:
                out[os.path.relpath(full, top)] = f.read()
    return out


def expected(mib, ranks=1):
    """The logical file stage_writer writes."""
    data = bytearray(pattern(0, ranks * mib * MiB, 1))
    for r in range(ranks):
        o, n = overwrite_range(r, mib)
        data[o:o + n] = pattern(o, n, 2)
    return bytes(data)


def sanitized(lib):
    """True when lib is built with AddressSanitizer (its runtime must come
    first in a process, which LD_PRELOAD into python3 cannot give)."""
    with open(lib, "rb") as f:
        return b"__asan_init" in f.read()


class StageTest(common.CliTestCase):
    def preload_lib(self):
        lib = os.path.join(os.path.dirname(common.OSTIO), "libostio-preload.so")
        if not os.path.exists(lib):
            self.skipTest("no libostio-preload.so beside the CLI")
        if sanitized(lib):
            self.skipTest("libostio-preload.so is built with ASan: preloaded programs "
                          "run in the unsanitized passes (label preload)")
        return lib

    needs_xattrs = False

    # -- helpers ------------------------------------------------------------

    def writer(self, path, mib, mode, stage=True, knob=True, np=1, bw="1m"):
        e = dict(os.environ)
        e.pop("OSTIO_HINTS", None)
        e.pop("OSTIO_TEST_RANKS_PER_NODE", None)
        if stage:
            e["OSTIO_HINTS"] = "*:ostio_stage_dir=%s:ostio_stage_bandwidth=%s" % (self.p("ssd"), bw)
        if knob:
            e["OSTIO_TEST_RANKS_PER_NODE"] = "1"
        cmd = [WRITER, self.p(path), str(mib), mode]
        if np > 1:
            mpiexec = os.environ.get("OSTIO_TEST_MPIEXEC") or shutil.which("mpiexec")
            if not mpiexec:
                self.skipTest("no mpiexec")
            cmd = [mpiexec, "-n", str(np)] + cmd
        r = subprocess.run(cmd, cwd=self.tmp, env=e, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual(r.returncode, 0, "stage_writer %s: exit %d\n%s%s"
                         % (" ".join(cmd[-3:]), r.returncode, r.stdout, r.stderr))

    def flatten(self, path, out):
        self.ok("container", "flatten", path, out, timeout=60)
        with open(self.p(out), "rb") as f:
            return f.read()

    def reference(self, mib, np=1):
        """The same program's output without staging, flattened."""
        self.writer("ref", mib, "close", stage=False, knob=False, np=np)
        data = self.flatten("ref", "ref.out")
        self.assertEqual(data, expected(mib, np), "the unstaged reference is not the pattern")
        return data

    def check(self, path):
        r = self.run_ostio("container", "check", path, timeout=30)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        return r

    def status(self, path, *extra):
        return self.json_of("stage", "status", "--json", *extra, path)

    def records(self, path):
        return sorted(glob.glob(self.p(path, "hostdir.*", "stage.*")))

    def stage_files(self):
        return sorted(f for f in glob.glob(self.p("ssd", "**"), recursive=True)
                      if os.path.isfile(f))

    def data_copy(self, path, session=1, writer=0):
        return glob.glob(self.p(path, "hostdir.*", "data.%d.%d" % (session, writer)))[0]

    def staged_data(self, node=0, session=1, writer=0):
        return glob.glob(self.p("ssd", "node.%d" % node, "ostio.*.%d" % session,
                                "data.%d.%d" % (session, writer)))[0]

    def assert_drained_clean(self, path):
        r = self.check(path)
        self.assertEqual(r.returncode, 0, "check after the drain:\n" + r.stderr)
        self.assertEqual(self.records(path), [], "stage records remain")
        self.assertEqual(self.stage_files(), [], "staged files remain")
        st = self.status(path)
        self.assertEqual(st["writers"], [])
        self.assertEqual(st["totals"]["writers"], 0)

    def fails(self, status, args, needles):
        """`ostio stage SUB ...` exits status; stderr starts with its name."""
        r = self.run_ostio("stage", *args)
        what = "ostio stage " + " ".join(args)
        self.assertEqual(r.returncode, status, "%s: exit %d\n%s" % (what, r.returncode, r.stderr))
        sub = args[0] if args and args[0] in ("status", "drain") else None
        prefix = "ostio stage %s: " % sub if sub else "ostio stage: "
        self.assertTrue(r.stderr.startswith(prefix), "%s: stderr:\n%s" % (what, r.stderr))
        for n in needles:
            self.assertIn(n, r.stderr, "%s: stderr does not mention %r" % (what, n))
        if status == 2:
            self.assertIn("Try 'ostio stage", r.stderr)

    # -- usage --------------------------------------------------------------

    def test_help_and_refusals(self):
        for args in (["stage", "--help"], ["stage", "status", "--help"],
                     ["stage", "drain", "--help"]):
            r = self.ok(*args)
            self.assertIn("Usage: ostio stage", r.stdout)
        self.assertIn("stage", self.ok("--help").stdout)
        self.fails(1, ["status", "nothere"], ["nothere", "No such file"])
        self.fails(1, ["drain", "nothere"], ["nothere", "No such file"])
        self.write("plain", b"x" * 100)
        self.fails(1, ["status", "plain"],
                          ["plain is not a container",
                           "stage status is not supported by this kind (kinds that support "
                           "it: log)", "ostio_stage_dir"])
        self.ok("container", "create", "striped", "--objects", "2")
        self.fails(1, ["drain", "striped"],
                          ["striped is a striped container; stage drain is not supported by "
                           "this kind (kinds that support it: log)"])
        self.ok("container", "create", "log", "--log")
        for bad in ("abc", "0", "-5", "12x"):
            self.fails(2, ["drain", "--bandwidth", bad, "log"],
                              ["--bandwidth '%s'" % bad, "positive number of bytes per second",
                               "is accepted"])
        self.fails(2, ["status", "--bandwidth", "1m", "log"],
                          ["does not apply here"])
        self.fails(2, ["drain", "--json", "log"], ["does not apply here"])
        self.fails(2, ["drain"], ["expected one PATH"])
        self.fails(2, ["flush", "log"], ["unknown subcommand 'flush'",
                                                          "status or drain"])
        self.fails(2, [], ["expected a subcommand"])
        r = self.ok("stage", "status", "log")
        self.assertIn("nothing staged", r.stdout)
        r = self.ok("stage", "drain", "log")
        self.assertIn("nothing staged", r.stdout)

    # -- a closed job: nothing staged ---------------------------------------

    def test_close_drains_everything(self):
        ref = self.reference(8)
        self.writer("c", 8, "close")
        r = self.ok("stage", "status", "c")
        self.assertIn("nothing staged", r.stdout)
        self.assert_drained_clean("c")
        self.assertEqual(self.flatten("c", "c.out"), ref)

    # -- a killed job, drained by the epilogue ------------------------------

    def test_exit_then_drain_other_node(self):
        ref = self.reference(16)
        self.writer("c", 16, "exit")
        node = HOST + "#node0"
        self.assertEqual(len(self.records("c")), 1)
        with open(self.records("c")[0]) as f:
            rec = f.read()
        self.assertTrue(rec.startswith("ostio stage 2\nhost %s\ndir /" % node), rec)
        self.assertRegex(rec.splitlines()[-1], r"^crc32c [0-9a-f]{8}$")
        staged = os.path.getsize(self.staged_data())
        self.assertGreater(staged, 16 * MiB)
        st = self.status("c")
        self.assertEqual(st["totals"]["writers"], 1)
        w = st["writers"][0]
        self.assertEqual((w["session"], w["writer"], w["host"], w["this_node"], w["reachable"]),
                         (1, 0, node, False, True))
        self.assertEqual(w["staged_data_bytes"], staged)
        self.assertEqual(w["drained_data_bytes"], os.path.getsize(self.data_copy("c")))
        self.assertLess(w["drained_data_bytes"], staged)  # the 1m hint held it back
        self.assertEqual(w["indexed_data_bytes"], staged)
        self.assertEqual(self.status("c", "--host", node)["writers"][0]["this_node"], True)
        text = self.ok("stage", "status", "c").stdout
        self.assertIn("host %s, dir %s" % (node, w["dir"]), text)
        self.assertIn("total: 1 staged writer (0 on this node", text)

        r = self.check("c")
        self.assertEqual(r.returncode, 1)
        self.assertIn("writer 0 of session 1 is staged on host %s (%s)" % (node, w["dir"]),
                      r.stderr)
        self.assertIn("indexed data bytes drained; run `ostio stage drain c` on %s" % node,
                      r.stderr)
        self.assertIn("are staged, not drained", r.stderr)
        r = self.run_ostio("container", "compact", "c")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("drain first", r.stderr)
        self.assertIn("OSTIO_ESTAGED", r.stderr)
        self.assertFalse(os.path.exists(self.p("c", "index.compact")))

        # recover leaves a writer alone whose node may be alive (its directory is there)
        r = self.ok("container", "recover", "c")
        self.assertIn("left writer 0 of session 1 staged on host %s" % node, r.stdout)
        self.assertEqual(len(self.records("c")), 1)
        self.assertEqual(os.path.getsize(self.staged_data()), staged)

        r = self.run_ostio("stage", "drain", "c")  # this node is not node0
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("staged on other nodes, not drained here: %s (writer 0 of session 1)"
                      % node, r.stdout)
        self.assertIn("1 writer remains staged", r.stderr)
        self.assertEqual(len(self.records("c")), 1)

        r = self.ok("stage", "drain", "--host", node, "c", timeout=30)
        self.assertIn("drained writer 0 of session 1 (host %s)" % node, r.stdout)
        self.assert_drained_clean("c")  # (recover above wrote the size record clean)
        self.assertEqual(self.flatten("c", "c.out"), ref)
        r = self.ok("stage", "drain", "--host", node, "c")  # again: nothing to do
        self.assertIn("nothing staged", r.stdout)

    def test_exit_then_drain_this_node(self):
        ref = self.reference(8)
        self.writer("c", 8, "exit", knob=False)
        st = self.status("c")
        self.assertEqual(st["host"], HOST)
        self.assertEqual([(w["host"], w["this_node"]) for w in st["writers"]], [(HOST, True)])
        r = self.ok("stage", "drain", "--quiet", "c", timeout=30)
        self.assertEqual(r.stderr, "")
        self.assertIn("1 writer drained", r.stdout)
        self.assertEqual(glob.glob(self.p("ssd", "*")), [], "the stage directory remains")
        self.assertEqual(self.records("c"), [])
        self.assertEqual(self.check("c").returncode, 0)
        self.assertEqual(self.flatten("c", "c.out"), ref)

    def test_two_nodes(self):
        ref = self.reference(4, np=2)
        self.writer("c", 4, "exit", np=2)
        st = self.status("c")
        self.assertEqual(sorted(w["host"] for w in st["writers"]),
                         [HOST + "#node0", HOST + "#node1"])
        r = self.run_ostio("stage", "drain", "--host", HOST + "#node1", "c", timeout=30)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("drained writer 1 of session 1", r.stdout)
        self.assertIn("not drained here: %s#node0 (writer 0 of session 1)" % HOST, r.stdout)
        self.assertNotIn("size record", r.stdout)
        r = self.check("c")
        self.assertEqual(r.returncode, 1)
        self.assertIn("writer 0 of session 1 is staged on host %s#node0" % HOST, r.stderr)
        self.assertNotIn("writer 1 of session 1 is staged", r.stderr)
        r = self.ok("stage", "drain", "--host", HOST + "#node0", "c", timeout=30)
        self.assertIn("size record written clean", r.stdout)
        self.assert_drained_clean("c")
        self.assertEqual(self.flatten("c", "c.out"), ref)

    # -- kill -9 during the drain, resumed ------------------------------------

    def start_drain(self, node, bw="20m"):
        e = dict(os.environ)
        e.pop("OSTIO_HINTS", None)
        return subprocess.Popen([common.OSTIO, "stage", "drain", "--host", node, "--bandwidth",
                                 bw, "c"], cwd=self.tmp, env=e, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    def kill_after(self, node, grown):
        """Starts a drain, SIGKILLs it once the data copy reached grown bytes."""
        copy = self.data_copy("c")
        p = self.start_drain(node)
        t0 = time.time()
        while os.path.getsize(copy) < grown:
            self.assertIsNone(p.poll(), "the drain ended before %d bytes" % grown)
            self.assertLess(time.time() - t0, 20, "the drain does not progress")
            time.sleep(0.005)
        p.send_signal(signal.SIGKILL)
        p.wait()
        return os.path.getsize(copy)

    def test_kill_drain_resume(self):
        ref = self.reference(32)
        self.writer("c", 32, "exit")
        node = HOST + "#node0"
        staged_path = self.staged_data()
        with open(staged_path, "rb") as f:
            staged = f.read()
        at = os.path.getsize(self.data_copy("c"))
        for k, grown in enumerate((at + 3 * MiB, at + 13 * MiB, at + 29 * MiB)):
            size = self.kill_after(node, grown)
            self.assertLess(size, len(staged), "kill %d came after the end" % k)
            with open(self.data_copy("c"), "rb") as f:
                copy = f.read()
            self.assertEqual(copy, staged[:len(copy)], "kill %d: the drained copy differs" % k)
            self.assertEqual(len(self.records("c")), 1, "kill %d: record gone" % k)
            self.assertEqual(os.path.getsize(staged_path), len(staged))
            r = self.check("c")
            self.assertEqual(r.returncode, 1)
            self.assertIn("is staged on host %s" % node, r.stderr)
        r = self.ok("stage", "drain", "--host", node, "c", timeout=30)
        self.assertIn("drained writer 0 of session 1", r.stdout)
        self.assert_drained_clean("c")
        with open(self.data_copy("c"), "rb") as f:
            self.assertEqual(f.read(), staged, "the container's data log is not the staged one")
        self.assertEqual(self.flatten("c", "c.out"), ref)

    def test_progress_line(self):
        self.writer("c", 24, "exit")
        p = self.run_ostio("stage", "drain", "--host", HOST + "#node0", "--bandwidth", "12m",
                           "c", timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [l for l in p.stderr.splitlines() if l.startswith("ostio stage drain: c: ")]
        self.assertGreaterEqual(len(lines), 1, p.stderr)
        self.assertRegex(lines[0], r"^ostio stage drain: c: \d+\.\d MiB copied, \d+\.\d MiB/s$")
        # paced: about 2 s for 24+ MiB at 12 MiB/s, never much faster
        m = [l for l in p.stdout.splitlines() if " drained, " in l][0]
        secs = float(m.split(" bytes in ")[1].split(" s ")[0])
        self.assertGreater(secs, 1.5, m)

    # -- a node lost before its drain -------------------------------------------

    def test_node_lost(self):
        self.writer("c", 16, "exit")
        node = HOST + "#node0"
        drained = self.kill_after(node, os.path.getsize(self.data_copy("c")) + 6 * MiB)
        with open(self.data_copy("c"), "rb") as f:
            before = f.read()
        shutil.rmtree(self.p("ssd", "node.0"))  # the node's SSD is gone

        r = self.check("c")
        self.assertEqual(r.returncode, 1)
        self.assertIn("is staged on host %s" % node, r.stderr)
        self.assertIn("cannot be reached from here", r.stderr)
        self.assertIn("are staged, not drained", r.stderr)
        st = self.status("c")["writers"][0]
        self.assertEqual((st["reachable"], st["staged_data_bytes"]), (False, None))
        self.assertEqual(st["drained_data_bytes"], drained)

        r = self.run_ostio("container", "flatten", "c", "lost.out", timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("not drained", r.stderr)
        self.assertIn("OSTIO_ESTAGED", r.stderr)
        r = self.run_ostio("container", "map", "c")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("OSTIO_ESTAGED", r.stderr)
        self.assertNotIn("zeros", r.stdout)
        r = self.run_ostio("stage", "drain", "c")
        self.assertEqual(r.returncode, 1)

        r = self.ok("container", "recover", "c")
        self.assertIn("gave up writer 0 of session 1 staged on host %s" % node, r.stdout)
        self.assertIn("are lost", r.stdout)
        self.assertIn("cut hostdir.000/index.1.0", r.stdout)
        self.assertEqual(self.records("c"), [])
        self.assertEqual(self.check("c").returncode, 0)
        out = self.flatten("c", "c.out")
        # What was drained stays: the records whose data was drained (cut at the
        # first one that was not), bytes as written.
        self.assertGreater(len(out), drained - 2 * MiB)
        self.assertLessEqual(len(out), drained)
        self.assertEqual(out, pattern(0, len(out), 1))
        with open(self.data_copy("c"), "rb") as f:
            self.assertEqual(f.read(), before[:len(out)])


    def test_damaged_record(self):
        self.writer("c", 4, "exit")
        rec = self.records("c")[0]
        with open(rec, "w") as f:
            f.write("ostio stage 1\nhost x\n")  # no dir line
        r = self.check("c")
        self.assertEqual(r.returncode, 1)
        self.assertIn("damaged stage record", r.stderr)
        self.assertIn("writer 0 of session 1 is staged", r.stderr)
        w = self.status("c")["writers"][0]
        self.assertIsNone(w["host"])
        self.assertIn("damaged stage record", w["record_error"])
        r = self.run_ostio("stage", "drain", "c")
        self.assertEqual(r.returncode, 1)
        self.assertIn("damaged stage record", r.stdout)
        r = self.ok("container", "recover", "c")
        self.assertIn("gave up writer 0 of session 1 staged by a damaged stage record", r.stdout)
        self.assertEqual(self.records("c"), [])
        self.assertEqual(self.check("c").returncode, 0)


    def test_stage_files_removed(self):
        """The staged logs removed, their directory left (issue 27): not
        "nothing to drain": the drain fails, the record stays, check and
        status say the writer is staged and unreachable, recover gives it up."""
        self.writer("c", 4, "exit")
        node = HOST + "#node0"
        sdir = self.staged_dir_path()
        for f in os.listdir(sdir):
            os.unlink(os.path.join(sdir, f))
        w = self.status("c", "--host", node)["writers"][0]
        self.assertEqual((w["this_node"], w["reachable"], w["record_error"]), (True, False, None))
        r = self.run_ostio("stage", "drain", "--host", node, "c", timeout=30)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("gone or lost its staged logs", r.stdout)
        self.assertEqual(len(self.records("c")), 1)
        r = self.check("c")
        self.assertEqual(r.returncode, 1)
        self.assertIn("are staged, not drained", r.stderr)
        r = self.run_ostio("container", "flatten", "c", "lost.out", timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("OSTIO_ESTAGED", r.stderr)
        r = self.ok("container", "recover", "c")
        self.assertIn("gave up writer 0 of session 1", r.stdout)
        self.assertEqual(self.records("c"), [])
        self.assertEqual(self.check("c").returncode, 0)

    # -- hostile stage records (issue 27) ------------------------------------------

    def staged_dir(self, path):
        with open(self.records(path)[0]) as f:
            return [l[4:] for l in f.read().splitlines() if l.startswith("dir ")][0]

    def test_record_names_another_container(self):
        """A record (with a valid CRC) pointing at another log container's
        hostdir: drain and recover refuse, the other container's bytes stay."""
        ref = self.reference(4)  # "ref": an unstaged log container, the victim
        victim = tree_bytes(self.p("ref"))
        self.writer("c", 4, "exit")
        node = HOST + "#node0"
        staged = tree_bytes(self.p("ssd"))
        for version, args in ((1, ["stage", "drain", "--host", node, "c"]),
                              (2, ["stage", "drain", "--host", node, "c"]),
                              (1, ["container", "recover", "c"]),
                              (2, ["container", "recover", "c"])):
            with open(self.records("c")[0], "w") as f:
                f.write(record_text(node, self.p("ref", "hostdir.000"), version))
            r = self.run_ostio(*args, timeout=30)
            self.assertNotEqual(r.returncode, 0, "%s: exit 0\n%s%s" % (args, r.stdout, r.stderr))
            self.assertIn("names the directory %s" % self.p("ref", "hostdir.000"), r.stderr)
            self.assertIn("refused", r.stderr)
            self.assertEqual(tree_bytes(self.p("ref")), victim, "%s changed the victim" % args)
            self.assertEqual(len(self.records("c")), 1, "%s removed the record" % args)
            self.assertEqual(tree_bytes(self.p("ssd")), staged, "%s touched the stage" % args)
        self.assertEqual(self.flatten("ref", "ref2.out"), ref)
        w = self.status("c", "--host", node)["writers"][0]
        self.assertIn("refused", w["record_error"])
        r = self.check("c")
        self.assertEqual(r.returncode, 1)
        self.assertIn("refused", r.stderr)
        # The true record back (written by hand, version 1 as the previous
        # release wrote it): the drain accepts it and the bytes are the job's.
        with open(self.records("c")[0], "w") as f:
            f.write(record_text(node, self.staged_dir_path(), version=1))
        self.ok("stage", "drain", "--host", node, "c", timeout=30)
        self.assert_drained_clean("c")
        self.assertEqual(self.flatten("c", "c.out"), ref)

    def staged_dir_path(self):
        return glob.glob(self.p("ssd", "node.0", "ostio.*.1"))[0]

    def test_record_bad_crc(self):
        self.writer("c", 4, "exit")
        node = HOST + "#node0"
        staged = tree_bytes(self.p("ssd"))
        rec = self.records("c")[0]
        with open(rec) as f:
            text = f.read()
        with open(rec, "w") as f:  # another host, the old CRC
            f.write(text.replace("host " + node, "host " + node[:-1] + "9"))
        w = self.status("c", "--host", node)["writers"][0]
        self.assertIn("CRC-32C does not match", w["record_error"])
        r = self.run_ostio("stage", "drain", "--host", node, "c", timeout=30)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(tree_bytes(self.p("ssd")), staged)
        self.assertEqual(len(self.records("c")), 1)
        r = self.check("c")
        self.assertEqual(r.returncode, 1)
        self.assertIn("damaged stage record", r.stderr)

    def test_record_dir_is_symlink(self):
        """The record's directory replaced by a link to a directory holding
        the same files: not followed (drain and recover refuse)."""
        self.writer("c", 4, "exit")
        node = HOST + "#node0"
        sdir = self.staged_dir_path()
        moved = self.p("elsewhere")
        os.rename(sdir, moved)
        os.symlink(moved, sdir)
        before = tree_bytes(moved)
        for args in (["stage", "drain", "--host", node, "c"], ["container", "recover", "c"]):
            r = self.run_ostio(*args, timeout=30)
            self.assertNotEqual(r.returncode, 0, "%s: exit 0\n%s%s" % (args, r.stdout, r.stderr))
            self.assertIn("symbolic link", r.stderr)
            self.assertEqual(tree_bytes(moved), before, "%s touched the link's target" % args)
            self.assertEqual(len(self.records("c")), 1)


    # -- a link planted at the preload's stage directory (issue 27) ------------------

    def test_preload_planted_link(self):
        lib = self.preload_lib()
        os.mkdir(self.p("pre"))
        os.mkdir(self.p("ssd"))
        os.mkdir(self.p("target"))
        ctr = os.path.join(self.p("pre"), "c")
        self.ok("container", "create", ctr, "--log")
        h = 0xcbf29ce484222325  # FNV-1a 64 of the container's absolute path
        for b in os.path.realpath(ctr).encode():
            h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
        os.symlink(self.p("target"), self.p("ssd", "ostio.%016x.1" % h))
        e = dict(os.environ)
        e.pop("OSTIO_TEST_RANKS_PER_NODE", None)
        e.update(LD_PRELOAD=lib, OSTIO_PRELOAD_PATHS=self.p("pre"),
                 OSTIO_HINTS="*:ostio_container=log:ostio_stage_dir=" + self.p("ssd"))
        r = subprocess.run(["sh", "-c", 'printf hello > "$0"', ctr], env=e,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
        self.assertNotEqual(r.returncode, 0, "the write through a planted link succeeded")
        self.assertEqual(tree_bytes(self.p("target")), {}, "files in the link's target")
        self.assertEqual(self.records("pre/c"), [])
        self.assertEqual(self.check("pre/c").returncode, 0)
        self.assertEqual(self.status("pre/c")["writers"], [])

    # -- the preload's stage directory removed while the process writes (issue 27) ----

    def test_preload_stage_removed(self):
        """A process under the preload whose stage directory is removed
        (rm -rf) between two writes: its close copies the bytes from its open
        staged logs into the container; no record stays, check passes and
        every byte reads back."""
        lib = self.preload_lib()
        os.mkdir(self.p("pre"))
        os.mkdir(self.p("ssd"))
        ctr = os.path.join(self.p("pre"), "c")
        self.ok("container", "create", ctr, "--log")
        e = dict(os.environ)
        e.pop("OSTIO_TEST_RANKS_PER_NODE", None)
        e.update(LD_PRELOAD=lib, OSTIO_PRELOAD_PATHS=self.p("pre"),
                 OSTIO_HINTS="*:ostio_container=log:ostio_stage_dir=" + self.p("ssd"))
        prog = ("import os, shutil, sys\n"
                "ctr, ssd, a, b = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])\n"
                "data = bytes((o * 131 + (o >> 12) * 7) % 251 for o in range(a + b))\n"
                "fd = os.open(ctr, os.O_WRONLY)\n"
                "os.write(fd, data[:a])\n"
                "staged = os.listdir(ssd)\n"
                "for n in staged: shutil.rmtree(os.path.join(ssd, n))\n"
                "os.write(fd, data[a:])\n"
                "os.close(fd)\n"
                "print(len(staged))\n")
        a, b = 3 * MiB + 12345, 2 * MiB + 777
        r = subprocess.run([sys.executable, "-c", prog, ctr, self.p("ssd"), str(a), str(b)],
                           env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "1", "the process did not stage: " + r.stdout)
        self.assertEqual(os.listdir(self.p("ssd")), [])
        self.assertEqual(self.records("pre/c"), [])
        c = self.check("pre/c")
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.ok("container", "flatten", "pre/c", "flat.out")
        with open(self.p("flat.out"), "rb") as f:
            got = f.read()
        want = bytes((o * 131 + (o >> 12) * 7) % 251 for o in range(a + b))
        self.assertEqual(len(got), a + b)
        self.assertTrue(got == want, "the bytes read back differ from those written")

    def test_preload_stage_removed_fsync(self):
        """A process under the preload whose stage directory is removed
        (rm -rf) after a write and an fsync: its next fsync copies the bytes
        from its open staged logs into the container and succeeds, later
        writes (one overwriting earlier bytes) go to the container unstaged,
        the process reads its own bytes back; after the close no record
        stays, check passes, the stage directory stays empty and every byte
        reads back (flatten and a fresh preloaded reader)."""
        lib = self.preload_lib()
        os.mkdir(self.p("pre"))
        os.mkdir(self.p("ssd"))
        ctr = os.path.join(self.p("pre"), "c")
        self.ok("container", "create", ctr, "--log")
        e = dict(os.environ)
        e.pop("OSTIO_TEST_RANKS_PER_NODE", None)
        e.update(LD_PRELOAD=lib, OSTIO_PRELOAD_PATHS=self.p("pre"),
                 OSTIO_HINTS="*:ostio_container=log:ostio_stage_dir=" + self.p("ssd"))
        a, b, c = 2 * MiB + 4321, 1 * MiB + 99, 3 * MiB + 5
        n = a + b + c
        gen = "bytes((o * 131 + (o >> 12) * 7 + {k}) % 251 for o in range({lo}, {hi}))"
        want = bytearray(eval(gen.format(k=0, lo=0, hi=n)))
        ow_off, ow_len = a - 1000, 4096  # overwrites bytes staged before the removal
        want[ow_off:ow_off + ow_len] = eval(gen.format(k=1, lo=ow_off, hi=ow_off + ow_len))
        prog = ("import os, shutil, sys\n"
                "ctr, ssd, a, b, c = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])\n"
                "ow_off, ow_len = int(sys.argv[6]), int(sys.argv[7])\n"
                "gen = lambda k, lo, hi: " + gen.format(k="k", lo="lo", hi="hi") + "\n"
                "def step(what, f):\n"
                "    try:\n"
                "        return f()\n"
                "    except OSError as x:\n"
                "        print('%s failed: errno %d (%s)' % (what, x.errno, x.strerror))\n"
                "        sys.exit(3)\n"
                "fd = os.open(ctr, os.O_RDWR)\n"
                "step('pwrite 1', lambda: os.pwrite(fd, gen(0, 0, a), 0))\n"
                "step('fsync 1', lambda: os.fsync(fd))\n"
                "staged = os.listdir(ssd)\n"
                "for s in staged: shutil.rmtree(os.path.join(ssd, s))\n"
                "step('pwrite 2', lambda: os.pwrite(fd, gen(0, a, a + b), a))\n"
                "step('fsync after the removal', lambda: os.fsync(fd))\n"
                "step('pwrite 3', lambda: os.pwrite(fd, gen(0, a + b, a + b + c), a + b))\n"
                "step('pwrite 4', lambda: os.pwrite(fd, gen(1, ow_off, ow_off + ow_len), ow_off))\n"
                "step('fsync 3', lambda: os.fsync(fd))\n"
                "left = os.listdir(ssd)\n"
                "got = step('pread', lambda: os.pread(fd, a + b + c + 10, 0))\n"
                "step('close', lambda: os.close(fd))\n"
                "want = bytearray(gen(0, 0, a + b + c))\n"
                "want[ow_off:ow_off + ow_len] = gen(1, ow_off, ow_off + ow_len)\n"
                "print(len(staged), len(left), got == bytes(want))\n")
        r = subprocess.run([sys.executable, "-c", prog, ctr, self.p("ssd"), str(a), str(b),
                            str(c), str(ow_off), str(ow_len)],
                           env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.split(), ["1", "0", "True"],
                         "staged once, nothing staged after the rescue, own bytes read back: "
                         + r.stdout + r.stderr)
        self.assertEqual(os.listdir(self.p("ssd")), [])
        self.assertEqual(self.records("pre/c"), [])
        c = self.check("pre/c")
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.ok("container", "flatten", "pre/c", "flat.out")
        with open(self.p("flat.out"), "rb") as f:
            got = f.read()
        self.assertEqual(len(got), n)
        self.assertTrue(got == bytes(want), "the bytes read back differ from those written")
        rd = ("import hashlib, os, sys\n"
              "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
              "h, k = hashlib.sha256(), 0\n"
              "while True:\n"
              "    x = os.read(fd, 1 << 20)\n"
              "    if not x: break\n"
              "    h.update(x); k += len(x)\n"
              "print(k, h.hexdigest())\n")
        r = subprocess.run([sys.executable, "-c", rd, ctr], env=e, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), [str(n), hashlib.sha256(bytes(want)).hexdigest()])

    def test_preload_stage_removed_read(self):
        """A process under the preload whose stage directory is removed
        (rm -rf) after a write reads its own bytes back (no fsync in
        between): the read rescues the writer and returns them; a later
        overwrite reads back too; the close leaves no record, check passes,
        the bytes flatten back."""
        lib = self.preload_lib()
        os.mkdir(self.p("pre"))
        os.mkdir(self.p("ssd"))
        ctr = os.path.join(self.p("pre"), "c")
        self.ok("container", "create", ctr, "--log")
        e = dict(os.environ)
        e.pop("OSTIO_TEST_RANKS_PER_NODE", None)
        e.update(LD_PRELOAD=lib, OSTIO_PRELOAD_PATHS=self.p("pre"),
                 OSTIO_HINTS="*:ostio_container=log:ostio_stage_dir=" + self.p("ssd"))
        a = 1 * MiB + 333
        want = bytearray(os.urandom(a))
        prog = ("import os, shutil, sys\n"
                "ctr, ssd = sys.argv[1], sys.argv[2]\n"
                "data = sys.stdin.buffer.read()\n"
                "def step(what, f):\n"
                "    try:\n"
                "        return f()\n"
                "    except OSError as x:\n"
                "        print('%s failed: errno %d (%s)' % (what, x.errno, x.strerror))\n"
                "        sys.exit(3)\n"
                "fd = os.open(ctr, os.O_RDWR)\n"
                "step('pwrite', lambda: os.pwrite(fd, data, 0))\n"
                "staged = os.listdir(ssd)\n"
                "for s in staged: shutil.rmtree(os.path.join(ssd, s))\n"
                "r1 = step('pread after the removal', lambda: os.pread(fd, len(data), 0))\n"
                "step('overwrite', lambda: os.pwrite(fd, b'Z' * 1000, 777))\n"
                "r2 = step('pread 2', lambda: os.pread(fd, len(data) + 5, 0))\n"
                "step('close', lambda: os.close(fd))\n"
                "w2 = data[:777] + b'Z' * 1000 + data[1777:]\n"
                "print(len(staged), r1 == data, r2 == w2, len(os.listdir(ssd)))\n")
        r = subprocess.run([sys.executable, "-c", prog, ctr, self.p("ssd")], env=e,
                           input=bytes(want), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        out, err = r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")
        self.assertEqual(r.returncode, 0, out + err)
        self.assertEqual(out.split(), ["1", "True", "True", "0"], out + err)
        self.assertEqual(self.records("pre/c"), [])
        c = self.check("pre/c")
        self.assertEqual(c.returncode, 0, c.stdout + c.stderr)
        self.ok("container", "flatten", "pre/c", "flat.out")
        want[777:1777] = b"Z" * 1000
        with open(self.p("flat.out"), "rb") as f:
            got = f.read()
        self.assertEqual(len(got), a)
        self.assertTrue(got == bytes(want), "the bytes read back differ from those written")

    def test_preload_stage_removed_lock(self):
        """A staged process under the preload whose stage directory is
        removed, then takes a lock after a later process wrote (a larger
        session): the lock ends its writer (order_after_all), which copies
        its bytes from its open logs before closing them; its next writes
        (a new, staged writer) win over the later process's; no record
        stays, check passes, the bytes flatten back."""
        lib = self.preload_lib()
        os.mkdir(self.p("pre"))
        os.mkdir(self.p("ssd"))
        ctr = os.path.join(self.p("pre"), "c")
        self.ok("container", "create", ctr, "--log")
        e = dict(os.environ)
        e.pop("OSTIO_TEST_RANKS_PER_NODE", None)
        e.update(LD_PRELOAD=lib, OSTIO_PRELOAD_PATHS=self.p("pre"),
                 OSTIO_HINTS="*:ostio_container=log:ostio_stage_dir=" + self.p("ssd"))
        a, b, c = 1 * MiB + 17, 300001, 200003
        da, db, dc = os.urandom(a), os.urandom(b), os.urandom(c)
        cut = a + b // 2  # A's last write starts inside B's range
        with open(self.p("in"), "wb") as f:
            f.write(da + db + dc)
        prog = ("import fcntl, os, shutil, subprocess, sys\n"
                "ctr, ssd, inp, a, b, cut = sys.argv[1:4] + [int(x) for x in sys.argv[4:7]]\n"
                "data = open(inp, 'rb').read()\n"
                "def step(what, f):\n"
                "    try:\n"
                "        return f()\n"
                "    except OSError as x:\n"
                "        print('%s failed: errno %d (%s)' % (what, x.errno, x.strerror))\n"
                "        sys.exit(3)\n"
                "fd = os.open(ctr, os.O_RDWR)\n"
                "step('pwrite A', lambda: os.pwrite(fd, data[:a], 0))\n"
                "B = ('import os, sys\\nfd = os.open(sys.argv[1], os.O_RDWR)\\n'\n"
                "     'os.pwrite(fd, open(sys.argv[2], \"rb\").read()[%d:%d], %d)\\n'\n"
                "     'os.close(fd)\\n' % (a, a + b, a))\n"
                "subprocess.run([sys.executable, '-c', B, ctr, inp], check=True)\n"
                "staged = os.listdir(ssd)\n"
                "for s in staged: shutil.rmtree(os.path.join(ssd, s))\n"
                "step('lock', lambda: fcntl.lockf(fd, fcntl.LOCK_EX))\n"
                "step('pwrite C', lambda: os.pwrite(fd, data[a + b:], cut))\n"
                "step('unlock', lambda: fcntl.lockf(fd, fcntl.LOCK_UN))\n"
                "step('close', lambda: os.close(fd))\n"
                "print(len(staged), len(os.listdir(ssd)))\n")
        r = subprocess.run([sys.executable, "-c", prog, ctr, self.p("ssd"), self.p("in"),
                            str(a), str(b), str(cut)], env=e, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.split(), ["1", "0"], r.stdout + r.stderr)
        self.assertEqual(self.records("pre/c"), [])
        chk = self.check("pre/c")
        self.assertEqual(chk.returncode, 0, chk.stdout + chk.stderr)
        self.ok("container", "flatten", "pre/c", "flat.out")
        want = da + db[:cut - a] + dc
        with open(self.p("flat.out"), "rb") as f:
            got = f.read()
        self.assertEqual(len(got), len(want))
        self.assertTrue(got == want, "the bytes read back differ from those written")


def _take_writer():
    global WRITER
    if "--writer" in sys.argv:
        i = sys.argv.index("--writer")
        WRITER = os.path.abspath(sys.argv[i + 1])
        del sys.argv[i:i + 2]
    if not WRITER or not os.access(WRITER, os.X_OK):
        sys.stderr.write("usage: %s /path/to/ostio --writer /path/to/stage_writer\n" % sys.argv[0])
        sys.exit(2)


if __name__ == "__main__":
    _take_writer()
    sys.exit(common.main())
