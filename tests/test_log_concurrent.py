#!/usr/bin/env python3
"""Many processes write one log container and close at about the same time
(issue 13, item 1): preloaded `dd` processes and library writers
(log_conc_writer, ostio_open on MPI_COMM_SELF) each write one block. After
every round: `ostio container check` finds nothing, the clean size record
holds the exact size, and the bytes read back are every writer's.

Usage: test_log_concurrent.py --preload LIB --cli OSTIO --writer EXE
       [--rounds N] [--seed S] [--workdir DIR]
"""
import argparse
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile

BLOCK = 65536


def sealed_fields(path):
    """The size record's lines as a dict (the checksum is the CLI's job)."""
    with open(path, "rb") as f:
        lines = f.read().decode().splitlines()
    out = {"version": lines[0]}
    for ln in lines[1:]:
        k, _, v = ln.partition(" ")
        out[k] = v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preload", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--writer", required=True)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1313)
    ap.add_argument("--workdir", default=None)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    top = tempfile.mkdtemp(prefix="ostio-conc-", dir=a.workdir)
    prefix = os.path.join(top, "pl")
    os.mkdir(prefix)
    env_pl = dict(os.environ, LD_PRELOAD=a.preload, OSTIO_PRELOAD_PATHS=prefix)
    env_lib = dict(os.environ)
    env_lib.pop("LD_PRELOAD", None)
    blocks = {}
    for v in range(1, 256):
        p = os.path.join(top, "b%d" % v)
        with open(p, "wb") as f:
            f.write(bytes([v]) * BLOCK)
        blocks[v] = p
    failures = 0
    for rnd in range(a.rounds):
        ctr = os.path.join(prefix, "f%d" % rnd)
        nproc = 2 + rnd % 7                    # 2..8 writers
        kinds = [rng.choice(("dd", "dd", "lib")) for _ in range(nproc)]
        if rnd % 5 == 0:
            kinds = ["dd"] * nproc             # the reproduction
        if rnd % 5 == 1:
            kinds = ["lib"] * min(nproc, 3)
        vals = [1 + (rnd * 8 + i) % 255 for i in range(len(kinds))]
        procs = []
        for i, kind in enumerate(kinds):
            if kind == "dd":
                cmd = ["dd", "if=" + blocks[vals[i]], "of=" + ctr, "bs=%d" % BLOCK,
                       "count=1", "seek=%d" % i, "conv=notrunc", "status=none"]
                procs.append(subprocess.Popen(cmd, env=env_pl, stderr=subprocess.PIPE))
            else:
                cmd = [a.writer, ctr, str(i * BLOCK), str(BLOCK), str(vals[i])]
                procs.append(subprocess.Popen(cmd, env=env_lib, stderr=subprocess.PIPE))
        errs = []
        for i, p in enumerate(procs):
            _, err = p.communicate(timeout=120)
            if p.returncode != 0:
                errs.append("%s writer %d: exit %d: %s" % (kinds[i], i, p.returncode,
                                                           err.decode(errors="replace")))
        what = "round %d (%s)" % (rnd, " ".join(kinds))
        if errs:
            print("FAIL %s: %s" % (what, "; ".join(errs)))
            failures += 1
            continue
        chk = subprocess.run([a.cli, "container", "check", ctr], capture_output=True,
                             text=True)
        want_size = len(kinds) * BLOCK
        rec = sealed_fields(os.path.join(ctr, "ostio.size"))
        if chk.returncode != 0:
            print("FAIL %s: check: %s%s" % (what, chk.stdout, chk.stderr))
            failures += 1
        elif rec.get("state") != "clean" or rec.get("size") != str(want_size):
            print("FAIL %s: size record %r, want clean %d" % (what, rec, want_size))
            failures += 1
        out = os.path.join(top, "flat")
        fl = subprocess.run([a.cli, "container", "flatten", ctr, out], capture_output=True,
                            text=True)
        want = hashlib.md5(b"".join(bytes([v]) * BLOCK for v in vals)).hexdigest()
        got = hashlib.md5(open(out, "rb").read()).hexdigest() if fl.returncode == 0 else None
        if got != want:
            print("FAIL %s: flattened bytes md5 %s, want %s (%s)" % (what, got, want,
                                                                    fl.stderr.strip()))
            failures += 1
        if os.path.exists(out):
            os.unlink(out)
        if failures > 5:
            break
        if rnd % 50 == 49:
            print("round %d: %d failures so far" % (rnd + 1, failures), flush=True)
    shutil.rmtree(top, ignore_errors=True)
    print("%d rounds, %d failures (seed %d)" % (a.rounds, failures, a.seed))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
