#!/usr/bin/env python3
"""End-to-end tests of `ostio container` (create, ls, stat, check, flatten)
and of `getstripe` / `map` on containers.

Run as:  python3 tests/cli/test_cli_container.py /path/to/build/ostio [unittest options]

The tests implement the on-disk format of docs/container-format.md
independently (FNV-1a 64 checksums, the RAID0 object mapping, the size
record), write object files directly, and check what the tool makes of them.
OSTIO_TEST_MPIEXEC (set by CTest) runs flatten on 2 ranks as well.
"""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
from common import CliTestCase, parse_getstripe_text, parse_map_text, ref_pieces  # noqa: E402

KiB = 1024
SUBS = ("create", "ls", "stat", "check", "flatten")


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def sealed(body):
    b = body.encode("ascii")
    return b + b"checksum fnv1a64 %016x\n" % fnv1a64(b)


def verify_sealed(raw):
    """The body of a sealed record; asserts the checksum line."""
    body, last = raw[:-34], raw[-34:]
    assert last.startswith(b"checksum fnv1a64 ") and last.endswith(b"\n"), raw
    assert int(last[17:33], 16) == fnv1a64(body), "checksum mismatch"
    return body.decode("ascii")


def object_images(data, size, k, s):
    """Bytes of each object for a logical file `data` (None = hole stripe)."""
    objs = [bytearray() for _ in range(k)]
    for st in range((size + s - 1) // s):
        chunk = data[st * s:min(size, (st + 1) * s)]
        o = objs[st % k]
        off = (st // k) * s
        if len(o) < off:
            o.extend(b"\0" * (off - len(o)))
        o[off:off + len(chunk)] = chunk
    return objs


class TestContainer(CliTestCase):

    needs_xattrs = False

    def manifest(self, name):
        with open(self.p(name, "ostio.manifest"), "rb") as f:
            body = verify_sealed(f.read())
        kv, objects = {}, {}
        lines = body.splitlines()
        self.assertEqual(lines[0], "ostio-container 1")
        self.assertEqual(lines[1], "kind striped")
        for line in lines[2:]:
            key, value = line.split(" ", 1)
            if key == "object":
                i, n = value.split(" ")
                objects[int(i)] = n
            else:
                kv[key] = value
        return kv, objects

    def fill(self, name, k, s, size, holes=(), state="open"):
        """Writes random logical data into the objects; returns the bytes."""
        rnd = random.Random(size * 31 + k)
        data = bytearray(rnd.getrandbits(8) for _ in range(size))
        for st in holes:
            data[st * s:(st + 1) * s] = b"\0" * len(data[st * s:(st + 1) * s])
        for i, img in enumerate(object_images(data, size, k, s)):
            with open(self.p(name, "obj.%04d" % i), "wb") as f:
                f.write(img)
        with open(self.p(name, "ostio.size"), "wb") as f:
            f.write(sealed("ostio-size 1\nstate %s\nsize %d\n" % (state, size)))
        return bytes(data)

    def fails(self, status, args, needles=()):
        """`ostio container SUB ARGS...` (or `ostio getstripe ...`): exit status,
        the message prefix `ostio container SUB: ` and the needles."""
        r = self.run_ostio(*args)
        what = "ostio " + " ".join(map(str, args))
        self.assertEqual(r.returncode, status, "%s: exit %d, expected %d\nstderr:\n%s"
                         % (what, r.returncode, status, r.stderr))
        prefix = "ostio container %s: " % args[1] if args[0] == "container" and len(args) > 1 \
            and not args[1].startswith("-") and args[1] in SUBS else "ostio %s: " % args[0]
        self.assertTrue(r.stderr.startswith(prefix), "%s: stderr does not start with %r:\n%s"
                        % (what, prefix, r.stderr))
        for n in needles:
            self.assertIn(n, r.stderr, "%s: stderr does not mention %r:\n%s" % (what, n, r.stderr))
        return r

    def read(self, *parts):
        with open(self.p(*parts), "rb") as f:
            return f.read()

    # -- create, ls, stat, check ---------------------------------------------

    def test_create_makes_the_documented_format(self):
        r = self.ok("container", "create", "c", "--objects", "3", "--stripe-size", "128k")
        self.assertIn("3 objects x 131072 bytes", r.stdout)
        kv, objects = self.manifest("c")
        self.assertEqual(kv["byte_order"], "little")
        self.assertEqual((kv["stripe_size"], kv["objects"]), ("131072", "3"))
        self.assertEqual(objects, {0: "obj.0000", 1: "obj.0001", 2: "obj.0002"})
        self.assertIn("pid=", kv["created_by"])
        self.assertTrue(kv["created"].endswith("Z"))
        self.assertEqual(verify_sealed(self.read("c", "ostio.size")),
                         "ostio-size 1\nstate clean\nsize 0\n")
        self.assertEqual(sorted(os.listdir(self.p("c"))),
                         ["obj.0000", "obj.0001", "obj.0002", "ostio.manifest", "ostio.size"])
        self.assertEqual([n for n in os.listdir(self.tmp) if ".tmp." in n], [])
        self.ok("container", "check", "c")

    def test_defaults_come_from_hints(self):
        self.ok("container", "create", "c", hints="*:striping_factor=5:striping_unit=256k")
        st = self.json_of("container", "stat", "--json", "c")
        self.assertEqual((st["objects"], st["stripe_size"]), (5, 262144))
        self.assertIn("from striping_factor", st["requested"])

    def test_ls_stat_after_data(self):
        self.ok("container", "create", "c", "--objects", "4", "--stripe-size", "64k")
        size = 5 * 65536 + 123
        self.fill("c", 4, 65536, size)
        ls = self.json_of("container", "ls", "--json", "c")
        self.assertEqual([o["size"] for o in ls["objects"]], [131072, 65659, 65536, 65536])
        self.assertEqual([o["ost"] for o in ls["objects"]], [0, 1, 2, 3])
        st = self.json_of("container", "stat", "--json", "c")
        self.assertEqual(st["size"], size)
        self.assertEqual(st["size_record"], {"state": "open", "size": size})
        text = self.ok("container", "stat", "c").stdout
        self.assertIn("size:         %d" % size, text)

    def test_check_names_each_problem(self):
        self.ok("container", "create", "c", "--objects", "3", "--stripe-size", "64k")
        self.fill("c", 3, 65536, 7 * 65536 + 10, state="clean")
        self.ok("container", "check", "c")
        os.truncate(self.p("c", "obj.0001"), 100)   # stripe 7 lives in object 1
        os.remove(self.p("c", "obj.0002"))
        open(self.p("c", "stray"), "w").close()
        r = self.fails(1, ["container", "check", "c"],
                              ["obj.0002) is missing", "\"stray\" is not part"])
        self.assertIn("problems found", r.stderr)
        # ostio_open refuses it too (getstripe opens it)
        self.fails(1, ["getstripe", "c"], ["obj.0002) is missing"])

    def test_check_json(self):
        """Issue 14: `container check --json` was refused ("does not apply") although
        --help promised --json. JSON: path, kind, ok, findings; exit as without it."""
        self.ok("container", "create", "c", "--objects", "3", "--stripe-size", "64k")
        self.fill("c", 3, 65536, 7 * 65536 + 10, state="clean")
        self.assertEqual(self.json_of("container", "check", "--json", "c"),
                         {"path": "c", "kind": "striped", "ok": True, "findings": []})
        os.truncate(self.p("c", "obj.0001"), 100)
        os.remove(self.p("c", "obj.0002"))
        open(self.p("c", "stray"), "w").close()
        text = self.fails(1, ["container", "check", "c"])
        r = self.fails(1, ["container", "check", "c", "--json"], ["2 problems found"])
        doc = json.loads(r.stdout)
        self.assertEqual((doc["path"], doc["kind"], doc["ok"]), ("c", "striped", False))
        self.assertEqual(len(doc["findings"]), 2, doc)
        self.assertTrue(all(isinstance(f, str) and f for f in doc["findings"]), doc)
        # The same sentences the text form prints, one per finding.
        for f in doc["findings"]:
            self.assertIn("ostio container check: " + f + "\n", text.stderr)
        self.assertTrue(any("obj.0002) is missing" in f for f in doc["findings"]), doc)
        self.assertTrue(any("\"stray\" is not part" in f for f in doc["findings"]), doc)
        # A log container, clean and then with a foreign file.
        self.ok("container", "create", "lg", "--log")
        self.assertEqual(self.json_of("container", "check", "--json", "lg"),
                         {"path": "lg", "kind": "log", "ok": True, "findings": []})
        open(self.p("lg", "junk"), "w").close()
        doc = json.loads(self.fails(1, ["container", "check", "--json", "lg"]).stdout)
        self.assertEqual((doc["kind"], doc["ok"], len(doc["findings"])), ("log", False, 1), doc)
        self.assertIn("junk", doc["findings"][0])
        # Not a container: the plain kind has no check (the one "not supported"
        # sentence, src/tools/cmd_container_kind.c) as the error member, exit 1.
        open(self.p("plain"), "w").close()
        r = self.fails(1, ["container", "check", "--json", "plain"],
                       ["plain is not a container", "check is not supported by this kind"])
        doc = json.loads(r.stdout)
        self.assertEqual((doc["path"], doc["kind"], doc["ok"], doc["findings"]),
                         ("plain", None, False, []), doc)
        self.assertEqual(r.stderr, "ostio container check: %s\n" % doc["error"])

    def test_json_where_help_says(self):
        """Each container subcommand's usage shows [--json] exactly when it takes
        --json, and `ostio container --help` names exactly those."""
        top = self.ok("container", "--help").stdout
        takes = []
        for sub in ("create", "ls", "stat", "check", "flatten", "map", "recover", "compact"):
            usage = self.ok("container", sub, "--help").stdout.splitlines()[0]
            r = self.run_ostio("container", sub, "--json")
            refused = r.returncode == 2 and "--json does not apply" in r.stderr
            self.assertEqual("[--json]" in usage, not refused,
                             "%s: usage %r, --json refused: %s" % (sub, usage, refused))
            if not refused:
                takes.append(sub)
        self.assertEqual(takes, ["ls", "stat", "check"])
        self.assertIn("ls, stat and check take --json", top)
        self.assertNotIn("Every command takes --json", self.ok("--help").stdout)

    def test_check_bad_manifests(self):
        self.ok("container", "create", "c", "--objects", "2", "--stripe-size", "64k")
        path = self.p("c", "ostio.manifest")
        good = self.read("c", "ostio.manifest")
        os.chmod(path, 0o644)
        cases = [
            (good.replace(b"objects 2", b"objects 3"), "checksum mismatch"),
            (sealed(verify_sealed(good).replace("object 1 obj.0001", "object 1 ../victim")),
             "\"../victim\""),
            (sealed(verify_sealed(good).replace("ostio-container 1", "ostio-container 2")),
             "upgrade ostio"),
            (sealed(verify_sealed(good).replace("objects 2", "objects 0")),
             "objects \"0\""),
            (b"hello\n", "not a container manifest"),
        ]
        for raw, needle in cases:
            with open(path, "wb") as f:
                f.write(raw)
            self.fails(1, ["container", "check", "c"], [needle])
            self.fails(1, ["container", "stat", "c"], [needle])
        self.assertFalse(os.path.exists(self.p("victim")))

    def test_cut_object_is_lost_data(self):
        """Issue 13: an object cut short in a clean container is found by check
        and flatten fails; it never reads back as zeros."""
        self.ok("container", "create", "c", "--objects", "4", "--stripe-size", "64k")
        size = 20 * 65536 + 7   # the last byte is in object 0; object 1 holds 5 stripes
        self.fill("c", 4, 65536, size, state="clean")
        self.ok("container", "check", "c")
        os.truncate(self.p("c", "obj.0001"), 1000)
        self.fails(1, ["container", "check", "c"],
                   ["object obj.0001 is shorter", "326680 bytes are lost, from logical offset "
                    "66536", "truncate -s 327680 c/obj.0001"])
        self.fails(1, ["container", "flatten", "c", "out"], ["obj.0001", "are lost"])
        self.fails(1, ["container", "stat", "c"], ["obj.0001"])
        # Accepting the loss as check says: zeros there, check clean.
        os.truncate(self.p("c", "obj.0001"), 327680)
        self.ok("container", "check", "c")
        self.ok("container", "flatten", "c", "out2")
        self.assertEqual(os.path.getsize(self.p("out2")), size)

    # -- flatten ----------------------------------------------------------------

    def flatten_and_compare(self, prefix, k, s, size, holes, *extra):
        self.ok("container", "create", "c", "--objects", str(k), "--stripe-size", str(s))
        data = self.fill("c", k, s, size, holes)
        self.ok(*(list(prefix) + ["container", "flatten", "c", "out"] + list(extra)),
                timeout=60)
        self.assertEqual(os.path.getsize(self.p("out")), size)
        self.assertEqual(self.read("out"), data)
        return data

    def test_flatten_serial(self):
        self.flatten_and_compare([], 3, 65536, 11 * 65536 + 999, (2, 5), "--chunk", "192k")

    def test_flatten_two_ranks(self):
        mpiexec = os.environ.get("OSTIO_TEST_MPIEXEC")
        if not mpiexec:
            self.skipTest("OSTIO_TEST_MPIEXEC not set")
        # run_ostio prefixes the binary; call mpiexec through subprocess instead
        self.ok("container", "create", "c", "--objects", "7", "--stripe-size", "64k")
        size = 20 * 65536 + 5
        data = self.fill("c", 7, 65536, size, (0, 9))
        r = subprocess.run([mpiexec, "-n", "2", common.OSTIO, "container", "flatten", "c", "out",
                            "--chunk", "256k"], cwd=self.tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.read("out"), data)

    def test_flatten_errors(self):
        self.ok("container", "create", "c", "--objects", "2", "--stripe-size", "64k")
        open(self.p("out"), "w").close()
        self.fails(1, ["container", "flatten", "c", "out"], ["exists"])
        self.fails(1, ["container", "flatten", "missing", "out2"], ["missing"])
        self.fails(2, ["container", "flatten", "c"], ["expected PATH and OUT"])

    # -- getstripe, map -----------------------------------------------------------

    def test_getstripe_and_map(self):
        self.ok("container", "create", "c", "--objects", "3", "--stripe-size", "64k")
        r = self.ok("getstripe", "c")
        fields, objects = parse_getstripe_text(r.stdout)
        self.assertEqual(fields["ostio_source"], "container")
        self.assertEqual((fields["lmm_stripe_count"], fields["lmm_stripe_size"]), ("3", "65536"))
        self.assertEqual(objects, [(0, 0), (1, 1), (2, 2)])
        arr = self.json_of("getstripe", "--json", "c")
        self.assertEqual(arr[0]["type"], "container")
        r = self.ok("map", "c", "60000", "200000")
        pieces, lines = parse_map_text(r.stdout)
        self.assertEqual(pieces, ref_pieces([(0, None, 65536, [0, 1, 2])], 60000, 200000))
        self.assertIn("object 2 is the file c/obj.0002", r.stdout)
        doc = self.json_of("map", "--json", "c", "0", "1")
        self.assertEqual(doc["object_files"], ["obj.0000", "obj.0001", "obj.0002"])

    # -- usage ----------------------------------------------------------------------

    def test_usage(self):
        self.fails(2, ["container"], ["expected a subcommand"])
        self.fails(2, ["container", "shrink", "c"], ["unknown subcommand 'shrink'"])
        self.fails(2, ["container", "create"], ["expected one PATH"])
        self.fails(2, ["container", "create", "c", "--objects", "0"], ["--objects"])
        self.fails(2, ["container", "ls", "--objects", "3", "c"], ["--objects"])
        self.fails(1, ["container", "create", "c", "--objects", "2001"], ["1 to 2000"])
        self.fails(1, ["container", "create", "c", "--stripe-size", "4k"],
                          ["multiple of 64 KiB"])
        self.assertFalse(os.path.exists(self.p("c")))
        self.ok("container", "create", "c")
        self.fails(1, ["container", "create", "c"], ["exists"])
        open(self.p("plain"), "w").close()
        self.fails(1, ["container", "stat", "plain"], ["not a container"])
        self.assertTrue(self.ok("container", "--help").stdout.startswith("Usage: ostio container"))
        for sub in ("create", "ls", "stat", "check", "flatten"):
            out = self.ok("container", sub, "--help").stdout
            self.assertTrue(out.startswith("Usage: ostio container " + sub), out)
        self.assertIn("container", self.ok("--help").stdout)


if __name__ == "__main__":
    sys.exit(common.main())
