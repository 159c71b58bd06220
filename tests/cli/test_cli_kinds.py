#!/usr/bin/env python3
"""Issue 15: every `ostio container` subcommand on each kind of path: a plain
file, a striped container and a log container.

The CLI finds the path's kind once (ostio__kind_of_path) and calls the kind's
tool hook (src/file/kind.h). Where the kind has none it prints one line, from
one place (src/tools/cmd_container_kind.c), and exits 1 (a runtime error: the
command line is right, the path is of a kind without that subcommand):

  ostio container SUB: PATH is a striped container; SUB is not supported by
  this kind (kinds that support it: log)[; what to use instead]

Each cell of the table is either the real output or exactly that line.

Run as:  python3 tests/cli/test_cli_kinds.py /path/to/build/ostio [unittest options]
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import CliTestCase  # noqa: E402
from test_cli_container import object_images, sealed  # noqa: E402
from test_cli_log import record  # noqa: E402

# The kinds of the registry, in its order, that have each hook.
SUPPORT = {"ls": "striped, log", "stat": "striped, log", "check": "striped, log",
           "map": "log", "recover": "log", "compact": "log"}
# What to use instead, by subcommand: (the hint, the hook the path's kind needs
# for it to be shown, None: always).
HINT = {"map": ("`ostio map PATH OFFSET LENGTH` maps a striped layout by arithmetic", None),
        "recover": ("`ostio container check PATH` reports damage", "check")}
HAS = {"plain": (), "striped": ("ls", "stat", "check"),
       "log": ("ls", "stat", "check", "map", "recover", "compact")}

HOLE = 70000                                       # log: data after a hole
DATA = bytes((i * 7 + 3) % 251 + 1 for i in range(100000))


class Kinds(CliTestCase):

    needs_xattrs = False

    def setUp(self):
        super().setUp()
        # A plain file.
        self.write("plain", DATA)
        # A striped container, 2 x 64 KiB, holding DATA (size record "open").
        self.ok("container", "create", "striped", "--objects", "2", "--stripe-size", "64k")
        for i, img in enumerate(object_images(DATA, len(DATA), 2, 65536)):
            self.write(os.path.join("striped", "obj.%04d" % i), bytes(img))
        self.write(os.path.join("striped", "ostio.size"),
                   sealed("ostio-size 1\nstate open\nsize %d\n" % len(DATA)))
        # A log container: one writer, one record: DATA at logical offset HOLE.
        self.ok("container", "create", "log", "--log")
        os.makedirs(self.p("log", "hostdir.000"), exist_ok=True)
        self.write(os.path.join("log", "hostdir.000", "data.1.0"), DATA)
        self.write(os.path.join("log", "hostdir.000", "index.1.0"),
                   record(1, 0, (1 << 32) | 1, HOLE, 0, len(DATA), 1, 0))
        # As a writer that never closed leaves it: the index decides the size.
        self.write(os.path.join("log", "ostio.size"), sealed("ostio-size 1\nstate open\nsize 0\n"))
        self.content = {"plain": DATA, "striped": DATA, "log": bytes(HOLE) + DATA}

    def not_supported(self, sub, kind, *opts):
        """The one line, exit 1, nothing on stdout."""
        r = self.run_ostio("container", sub, *opts, kind)
        what = "container %s %s" % (sub, kind)
        if kind == "plain":
            head = "plain is not a container (no ostio.manifest inside: kind plain)"
        else:
            head = "%s is a %s container" % (kind, kind)
        want = "ostio container %s: %s; %s is not supported by this kind (kinds that support " \
               "it: %s)" % (sub, head, sub, SUPPORT[sub])
        hint, need = HINT.get(sub, (None, None))
        if hint and (need is None or need in HAS[kind]):
            want += "; " + hint
        out = ""
        if sub == "check" and opts:   # --json: the sentence is the document's error
            out = json.dumps({"path": kind, "kind": None, "ok": False, "findings": [],
                              "error": want[len("ostio container check: "):]}) + "\n"
        self.assertEqual((r.returncode, r.stdout, r.stderr), (1, out, want + "\n"), what)

    def test_every_subcommand_on_every_kind(self):
        for kind in ("plain", "striped", "log"):
            with self.subTest(kind=kind):
                # create: never on an existing path, whatever its kind.
                r = self.run_ostio("container", "create", kind)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn("exists", r.stderr)
                for sub in ("ls", "stat", "check", "map", "recover", "compact"):
                    if sub not in HAS[kind]:
                        self.not_supported(sub, kind)
                        if sub in ("ls", "stat", "check"):
                            self.not_supported(sub, kind, "--json")
                        continue
                    # The kind's own output (test_the_real_outputs checks it);
                    # check of the log container finds its open size record.
                    r = self.run_ostio("container", sub, kind)
                    self.assertEqual(r.returncode, 1 if (kind, sub) == ("log", "check") else 0,
                                     "container %s %s: %s" % (sub, kind, r.stderr))
                    self.assertNotIn("not supported", r.stderr)
                # flatten: every kind (an extents hook, or the whole size).
                self.ok("container", "flatten", kind, kind + ".flat")
                with open(self.p(kind + ".flat"), "rb") as f:
                    self.assertEqual(f.read(), self.content[kind], kind)

    def test_the_real_outputs(self):
        # striped: ls, stat, check (text and JSON).
        self.assertEqual(self.ok("container", "ls", "striped").stdout,
                         "    0  obj.0000                %5d  ost 0\n"
                         "    1  obj.0001                %5d  ost 1\n"
                         % (65536, len(DATA) - 65536))
        doc = self.json_of("container", "ls", "--json", "striped")
        self.assertEqual([o["size"] for o in doc["objects"]], [65536, len(DATA) - 65536])
        st = self.ok("container", "stat", "striped").stdout.splitlines()
        self.assertEqual(st[:8], ["striped", "kind:         striped", "version:      1",
                                  "byte_order:   little", "size:         %d" % len(DATA),
                                  "size_record:  open, %d" % len(DATA),
                                  "stripe_size:  65536", "objects:      2"])
        doc = self.json_of("container", "stat", "--json", "striped")
        self.assertEqual((doc["kind"], doc["size"], doc["objects"]), ("striped", len(DATA), 2))
        self.assertEqual(self.ok("container", "check", "striped").stdout, "striped: ok\n")
        self.assertEqual(self.json_of("container", "check", "--json", "striped")["kind"],
                         "striped")
        # log: ls, stat, check, map, recover, compact.
        self.assertIn("hostdir.000  session 1     writer 0", self.ok("container", "ls", "log").stdout)
        st = self.ok("container", "stat", "log").stdout.splitlines()
        self.assertEqual(st[1:5], ["kind:         log", "version:      1", "byte_order:   little",
                                   "size:         %d (from the index)" % (HOLE + len(DATA))])
        doc = self.json_of("container", "stat", "--json", "log")
        self.assertEqual((doc["kind"], doc["size"], doc["size_from"], doc["logs"]),
                         ("log", HOLE + len(DATA), "index", 1))
        r = self.run_ostio("container", "check", "log")
        self.assertEqual(r.returncode, 1)
        self.assertIn("\"open\"", r.stderr)
        r = self.ok("container", "map", "log")
        self.assertEqual(r.stdout, "0 %d zeros\n%d %d hostdir.000/data.1.0 0\n"
                         % (HOLE, HOLE, len(DATA)))
        self.assertEqual(r.stderr, "log: 1 records, size %d\n" % (HOLE + len(DATA)))
        self.assertTrue(self.ok("container", "map", "--records", "log").stdout.startswith(
            "WRITE seq 1.1 writer 0 start %d stride 0 length %d" % (HOLE, len(DATA))))
        self.assertTrue(self.ok("container", "recover", "log").stdout.endswith("log: 1 repair\n"))
        self.assertEqual(self.ok("container", "check", "log").stdout, "log: ok\n")
        self.assertEqual(self.ok("container", "compact", "log").stdout,
                         "log: index.compact written, 1 records\n")
        self.assertIn("compact:      current", self.ok("container", "stat", "log").stdout)
        self.assertTrue(json.loads(self.ok("container", "ls", "--json", "log").stdout)
                        ["logs"][0]["compacted"])


if __name__ == "__main__":
    sys.exit(common.main())
