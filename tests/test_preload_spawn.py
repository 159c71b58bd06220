#!/usr/bin/env python3
"""Issue 27: the preload with threads that write and fsync log containers
while other threads start programs and rename the containers, staged
(ostio_stage_dir) and not. A case runs one workload process under
libostio-preload.so (tests/preload/spawn_workload.py, CPython, or
tests/preload/pl_spawn.c, C) on a new container; it must see every pwrite
and fsync succeed and read every chunk back through its own fd. Then, for
every case: `ostio container check` finds nothing, a fresh process reads the
exact size and every acknowledged byte, no renamed name is left, and the
stage directory holds nothing (the writer drained at its last close).

Cases:
  py-subprocess  CPython subprocess.run(["true"]) (vfork, close_fds) in a loop
  py-pool        a ThreadPoolExecutor of four running subprocess.run
  py-spawn       os.posix_spawn
  c-spawn        posix_spawn from C, one thread
  c-pool         posix_spawnp from C, four threads
  c-vfork        vfork from C; the child closes and dup2s the container fd
  rename         fsync while a thread renames the container away and back
                 (and a case renamed once after open: reads under the new name),
                 through the preload (C and CPython) and by raw system calls
  stress         all of the above at once, in C and in CPython
Each case runs plain and staged.

Usage: test_preload_spawn.py --preload LIB --cli OSTIO --prog PL_SPAWN
       [--cases a,b,...] [--rounds N] [--chunks N] [--chunk BYTES]
       [--writers N] [--workdir DIR]
--rounds repeats the case list (the stress test: hundreds of rounds by hand).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOAD = os.path.join(HERE, "preload", "spawn_workload.py")

CASES = {
    "py-subprocess": [("py", "subprocess")],
    "py-pool": [("py", "pool")],
    "py-spawn": [("py", "posix_spawn")],
    "c-spawn": [("c", "spawn")],
    "c-pool": [("c", "pool")],
    "c-vfork": [("c", "vfork")],
    "rename": [("c", "rename"), ("c", "rawrename"), ("py", "rename"), ("py", "renamed")],
    "stress": [("c", "spawn,pool,vfork,rename,rawrename"),
               ("py", "subprocess,pool,posix_spawn,rename")],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preload", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--cases", default="py-subprocess,py-pool,py-spawn,c-spawn,c-pool,c-vfork")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--chunks", type=int, default=40)
    ap.add_argument("--chunk", type=int, default=4096)
    ap.add_argument("--writers", type=int, default=2)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    cases = a.cases.split(",")
    for c in cases:
        if c not in CASES:
            print("unknown case %s; known: %s" % (c, ", ".join(CASES)), file=sys.stderr)
            return 2
    top = tempfile.mkdtemp(prefix="ostio-spawn-", dir=a.workdir)
    prefix = os.path.join(top, "pl")
    stage = os.path.join(top, "stage")
    os.mkdir(prefix)
    os.mkdir(stage)
    base = dict(os.environ, LD_PRELOAD=a.preload, OSTIO_PRELOAD_PATHS=prefix)
    base.pop("OSTIO_HINTS", None)
    staged_env = dict(base, OSTIO_HINTS="*:ostio_container=log:ostio_stage_dir=" + stage)
    runs = failures = 0
    t0 = time.time()
    n = 0
    for rnd in range(a.rounds):
        for case in cases:
            for staged in (False, True):
                for lang, modes in CASES[case]:
                    n += 1
                    ctr = os.path.join(prefix, "c%d" % n)
                    env = staged_env if staged else base
                    what = "round %d %s %s %s %s" % (rnd, case, "staged" if staged else "plain",
                                                     lang, modes)
                    args = [ctr, str(a.chunks), str(a.chunk), str(a.writers), modes]
                    cmd = [a.prog] + args if lang == "c" else [sys.executable, WORKLOAD] + args
                    errs = []
                    try:
                        r = subprocess.run(cmd, env=env, capture_output=True, text=True,
                                           timeout=300)
                        if r.returncode != 0:
                            errs.append("workload exit %d: %s%s" % (r.returncode, r.stdout,
                                                                    r.stderr))
                    except subprocess.TimeoutExpired:
                        errs.append("workload timed out")
                    chk = subprocess.run([a.cli, "container", "check", ctr],
                                         capture_output=True, text=True)
                    if chk.returncode != 0:
                        errs.append("check: %s%s" % (chk.stdout, chk.stderr))
                    ver = subprocess.run([a.prog, "--verify", ctr, str(a.chunks), str(a.chunk),
                                          str(a.writers)], env=base, capture_output=True,
                                         text=True)
                    if ver.returncode != 0:
                        errs.append("read back: %s%s" % (ver.stdout, ver.stderr))
                    if os.path.exists(ctr + ".mv"):
                        errs.append("%s.mv left behind" % ctr)
                    left = os.listdir(stage)
                    if left:
                        errs.append("stage directory not empty: %s" % " ".join(sorted(left)[:10]))
                        for e in left:
                            shutil.rmtree(os.path.join(stage, e), ignore_errors=True)
                    runs += 1
                    if errs:
                        failures += 1
                        print("FAIL %s:\n  %s" % (what, "\n  ".join(e.strip() for e in errs)))
                    else:
                        shutil.rmtree(ctr, ignore_errors=True)
    dt = time.time() - t0
    print("test_preload_spawn: %d runs (%d rounds of %s), %d failed, %.1f s"
          % (runs, a.rounds, ",".join(cases), failures, dt))
    if not a.keep and failures == 0:
        shutil.rmtree(top, ignore_errors=True)
    elif failures:
        print("work directory kept: %s" % top)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
