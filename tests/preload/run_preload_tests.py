#!/usr/bin/env python3
"""Real programs under libostio-preload.so, compared with the same programs on
a plain directory.

Each workflow (a short bash script: cp, cat, md5sum, dd, tar, sort, python3,
a C program, an MPI program, ...) runs once in a plain directory without the
preload (the reference) and once per container kind in a directory listed in
OSTIO_PRELOAD_PATHS with LD_PRELOAD=<libostio-preload.so>:

  log       OSTIO_HINTS unset (log is the preload's default kind)
  striped   OSTIO_HINTS="*:ostio_container=striped:ostio_objects=3:striping_unit=65536"
  staged    OSTIO_HINTS="*:ostio_container=log:ostio_stage_dir=<WORK>/stage": log
            containers whose logs a process writes to a stage directory and
            drains at its last close (docs/staging.md); at the end nothing may
            be left staged
  outside   LD_PRELOAD set, but the run directory is NOT a preload path (it is
            a sibling whose name extends the preload directory's name, the
            prefix trap): everything must behave as without the preload and
            no container may appear

Every (kind, workflow) pair gives these checks, each reported by name:

  output      the script's transcript (stdout and stderr, exit status) equals
              the reference's, paths replaced by <DIR>, <OUT>, <SRC>
  listing     `find -printf '%y %P %s'` through the preload equals the
              reference: containers list as regular files with their size
  content     md5sum of every regular file of the reference, through the
              preload
  on-disk     (without the preload) every regular file of the reference is
              a container directory of the expected kind (ostio.manifest),
              and nothing else lies in the run directory; for `outside`,
              every file is a plain file
  ostio-check `ostio container check` finds no problem in each container
  extra       workflow-specific checks (the MPI ones: each rank's data log)

plus `startup/*` checks (broken OSTIO_PRELOAD_PATHS / OSTIO_HINTS: programs
still run normally). Exit 0 when every check passed, 1 otherwise, 77 (SKIP)
when the preload library target does not exist (--preload NOTARGET).
"""
import argparse
import difflib
import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
STRIPED_HINTS = "*:ostio_container=striped:ostio_objects=3:striping_unit=65536"

# --------------------------------------------------------------------------
# Inputs (plain files in SRC, made once; sizes are not multiples of 4 KiB)

SIZES = {"rand.bin": 5 * 2**20 + 12345, "rand2.bin": 2**20 + 999, "big.bin": 17 * 2**20 + 4097}


def make_inputs(src):
    os.makedirs(src)
    rng = random.Random(20240607)
    for name, n in SIZES.items():
        with open(os.path.join(src, name), "wb") as f:
            f.write(rng.randbytes(n))
    open(os.path.join(src, "empty.bin"), "wb").close()
    words = ["alpha", "bravo", "needle", "delta", "echo", "foxtrot", "golf", "hotel"]
    lines = []
    for i in range(60000):
        w = words[rng.randrange(len(words))]
        lines.append(f"{rng.randrange(10**9):09d} {w} {i} ZZ{rng.randrange(10**6)} "
                     f"{'x' * rng.randrange(40)}\n")
    with open(os.path.join(src, "text.txt"), "w") as f:
        f.writelines(lines)
    # A sparse file made with the real tools: truncate and dd seek/notrunc.
    sp = os.path.join(src, "sparse.bin")
    r2 = os.path.join(src, "rand2.bin")
    cmds = [
        ["truncate", "-s", str(9 * 2**20 + 1), sp],
        ["dd", f"if={r2}", f"of={sp}", "iflag=count_bytes", "oflag=seek_bytes",
         f"seek={2**20 + 7}", "count=100003", "conv=notrunc", "status=none"],
        ["dd", f"if={r2}", f"of={sp}", "iflag=skip_bytes,count_bytes", "oflag=seek_bytes",
         "skip=5000", f"seek={6 * 2**20}", "count=5000", "conv=notrunc", "status=none"],
        ["dd", f"if={r2}", f"of={sp}", "iflag=count_bytes", "oflag=seek_bytes",
         f"seek={8 * 2**20 - 3}", "count=10", "conv=notrunc", "status=none"],
    ]
    for c in cmds:
        subprocess.run(c, check=True)
    with open(sp, "rb") as f:
        if len(f.read()) != 9 * 2**20 + 1:
            raise SystemExit("sparse input has the wrong size")
    # A tree and its tar archive (for tar x).
    tree = os.path.join(src, "tree")
    os.makedirs(os.path.join(tree, "sub", "deeper"))
    shutil.copyfile(os.path.join(src, "rand2.bin"), os.path.join(tree, "r2.bin"))
    shutil.copyfile(os.path.join(src, "text.txt"), os.path.join(tree, "sub", "t.txt"))
    shutil.copyfile(sp, os.path.join(tree, "sub", "deeper", "s.bin"))
    open(os.path.join(tree, "sub", "empty"), "wb").close()
    subprocess.run(["tar", "cSf", os.path.join(src, "tree.tar"), "-C", src, "tree"], check=True)
    with open(os.path.join(src, "romio-nocb"), "w") as f:
        f.write("romio_cb_write disable\nromio_cb_read disable\n")


# --------------------------------------------------------------------------
# Workflows: bash scripts run with cwd = the run directory. $SRC holds the
# inputs, $OUT is a plain scratch directory of this run, $PL_POSIX,
# $PL_PYTHON, $PL_MPI, $PY, $MPIEXEC, $NP are set. stderr goes to stdout.

W = []


def wf(name, script, mpi=False, extra=None, plain=()):
    W.append({"name": name, "script": script, "mpi": mpi, "extra": extra, "plain": set(plain)})


wf("cp_in", r'''
cp "$SRC/rand.bin" a.bin; echo "cp rand rc=$?"
cp "$SRC/big.bin" big.bin; echo "cp big rc=$?"
cp "$SRC/text.txt" t.txt; echo "cp text rc=$?"
cp "$SRC/empty.bin" e.bin; echo "cp empty rc=$?"
''')
wf("cp_out", r'''
cp "$SRC/rand.bin" a.bin && cp "$SRC/big.bin" big.bin
cp a.bin "$OUT/a.out"; echo "cp out rc=$?"; cmp "$SRC/rand.bin" "$OUT/a.out" && echo same
cp big.bin "$OUT/big.out"; echo "cp out rc=$?"; cmp "$SRC/big.bin" "$OUT/big.out" && echo same
cp -p a.bin "$OUT/p.out"; echo "cp -p rc=$?"; cmp a.bin "$OUT/p.out" && echo same
[ "$(stat -c %Y a.bin)" = "$(stat -c %Y "$OUT/p.out")" ] && echo "cp -p kept the mtime"
''')
wf("cp_reflink", r'''
cp --reflink=auto "$SRC/rand.bin" r.bin; echo "reflink in rc=$?"
cp --reflink=auto r.bin "$OUT/r.out"; echo "reflink out rc=$?"
cp --reflink=auto r.bin r2.bin; echo "reflink within rc=$?"
cmp "$SRC/rand.bin" "$OUT/r.out" && echo same
''')
wf("cp_sparse", r'''
cp "$SRC/sparse.bin" s.bin; echo "cp rc=$?"
cp --sparse=always "$SRC/sparse.bin" s2.bin; echo "cp always rc=$?"
cp --sparse=never "$SRC/sparse.bin" s3.bin; echo "cp never rc=$?"
cp s.bin "$OUT/s.out"; cp --sparse=always s2.bin "$OUT/s2.out"; cp s3.bin s4.bin
cmp "$SRC/sparse.bin" "$OUT/s.out" && cmp "$SRC/sparse.bin" "$OUT/s2.out" && echo same
''')
wf("cp_overwrite", r'''
cp "$SRC/rand.bin" a.bin; cp "$SRC/rand2.bin" a.bin; echo "cp over rc=$?"; stat -c %s a.bin
cp a.bin b.bin; cp -f "$SRC/text.txt" b.bin; echo "cp -f rc=$?"
cp "$SRC/big.bin" c.bin; cp "$SRC/empty.bin" c.bin; stat -c %s c.bin
cp "$SRC/rand2.bin" d.bin; cp "$SRC/big.bin" d.bin; stat -c %s d.bin
''')
wf("cat", r'''
cp "$SRC/text.txt" t.txt; cp "$SRC/rand.bin" a.bin
cat t.txt | md5sum
cat a.bin t.txt | md5sum
cat -n t.txt | tail -n 3
cat a.bin | cat > c.bin; echo "rc=$?"
''')
wf("redirect_out", r'''
cat "$SRC/rand.bin" > r.bin; echo "cat > rc=$?"
head -c 1234567 "$SRC/big.bin" > hb.bin; echo "head > rc=$?"
seq 1 100000 > seq.txt
printf 'builtin printf %s\n' one two > builtin.txt
/usr/bin/printf 'external printf %s\n' one two > external.txt
{ echo first; cat "$SRC/rand2.bin"; echo last; } > group.bin
cat "$SRC/rand2.bin" > r.bin; echo "cat > existing rc=$?"; stat -c %s r.bin
''')
wf("redirect_append", r'''
cp "$SRC/text.txt" t.txt
cat "$SRC/rand2.bin" >> t.txt; echo "rc=$?"
echo tail >> t.txt
seq 1 1000 >> t.txt
seq 1 10 >> new.txt; seq 11 20 >> new.txt
exec 7>>t.txt; echo "via fd 7" >&7; cat "$SRC/rand2.bin" >&7; exec 7>&-
stat -c %s t.txt new.txt
''')
wf("redirect_in", r'''
cp "$SRC/rand.bin" a.bin; cp "$SRC/text.txt" t.txt
md5sum < a.bin
wc -c < a.bin
wc -l < t.txt
(read -r line; echo "read: $line"; cat | md5sum) < t.txt
{ head -c 1000 > /dev/null; md5sum; } < a.bin
{ dd bs=4096 count=3 status=none > /dev/null; cat | wc -c; } < a.bin
exec 6< a.bin; head -c 10 <&6 | od -An -tx1; head -c 10 <&6 | od -An -tx1; exec 6<&-
''')
wf("md5sum_sha256sum", r'''
cp "$SRC/rand.bin" a.bin; cp "$SRC/text.txt" t.txt; cp "$SRC/big.bin" big.bin
cp "$SRC/sparse.bin" s.bin
md5sum a.bin t.txt big.bin s.bin
sha256sum a.bin t.txt big.bin s.bin
md5sum a.bin t.txt > sums.md5; md5sum -c sums.md5
''')
wf("grep", r'''
cp "$SRC/text.txt" t.txt; cp "$SRC/rand2.bin" r.bin
grep -c needle t.txt
grep -n 'needle 7' t.txt | head -n 20
grep -b -o 'ZZ[0-9]*' t.txt | tail -n 5
grep -l needle t.txt r.bin
grep -c needle t.txt t.txt
grep needle t.txt > g.txt; wc -l < g.txt
grep -rc needle . | LC_ALL=C sort
''')
wf("head_tail", r'''
cp "$SRC/rand.bin" a.bin; cp "$SRC/text.txt" t.txt
head -c 1000001 a.bin | md5sum
head -n 37 t.txt | md5sum
head -c -12345 a.bin | md5sum
tail -c 777777 a.bin | md5sum
tail -c +4097 a.bin | md5sum
tail -n 23 t.txt
tail -c 5 t.txt | od -An -c
''')
wf("wc", r'''
cp "$SRC/rand.bin" a.bin; cp "$SRC/text.txt" t.txt; cp "$SRC/empty.bin" e.bin
wc a.bin t.txt e.bin
wc -c a.bin
wc -l < t.txt
wc -m -L t.txt
''')
wf("sort", r'''
cp "$SRC/text.txt" t.txt
sort t.txt | md5sum
sort -o s.txt t.txt; echo "rc=$?"
sort -r -k2 t.txt > r.txt
cp t.txt u.txt; sort -o u.txt u.txt; cmp u.txt s.txt && echo "in place ok"
sort -m s.txt s.txt | md5sum
sort -u -k2,2 t.txt | wc -l
sort -S 200K -T . t.txt -o ext.txt; echo "external sort rc=$?"; cmp ext.txt s.txt && echo same
''')
wf("cmp", r'''
cp "$SRC/rand.bin" a.bin; cp a.bin m.bin
printf 'X' | dd of=m.bin bs=1 seek=3000001 conv=notrunc status=none
cmp a.bin "$SRC/rand.bin"; echo "rc=$?"
cmp a.bin m.bin; echo "rc=$?"
cmp -l a.bin m.bin
cp "$SRC/rand2.bin" short.bin; cmp a.bin short.bin; echo "rc=$?"
cmp -i 1000:1000 a.bin a.bin; echo "rc=$?"
''')
wf("dd_bs", r'''
dd if="$SRC/rand.bin" of=a.bin bs=4096 status=noxfer
dd if="$SRC/rand.bin" of=b.bin bs=1M status=noxfer
dd if="$SRC/rand.bin" of=c.bin bs=65537 status=noxfer
dd if="$SRC/rand.bin" of=d.bin ibs=1000 obs=7777 status=noxfer
dd if="$SRC/text.txt" of=u.txt conv=ucase,fsync status=noxfer
''')
wf("dd_seek", r'''
dd if="$SRC/rand2.bin" of=s.bin bs=1M seek=3 status=noxfer
dd if="$SRC/rand2.bin" of=s2.bin bs=4096 seek=1000 count=10 status=noxfer
dd if=/dev/zero of=z.bin bs=1 count=0 seek=5000001 status=noxfer
stat -c '%n %s' s.bin s2.bin z.bin
''')
wf("dd_notrunc", r'''
cp "$SRC/rand.bin" a.bin
dd if="$SRC/rand2.bin" of=a.bin bs=65537 skip=3 seek=5 count=4 conv=notrunc status=noxfer
dd if="$SRC/text.txt" of=a.bin bs=1000 seek=100 count=50 conv=notrunc status=noxfer
dd if="$SRC/rand2.bin" of=a.bin bs=1 seek=5255220 count=20 conv=notrunc status=noxfer
dd if="$SRC/rand2.bin" of=a.bin bs=4096 count=2 oflag=append conv=notrunc status=noxfer
stat -c %s a.bin
''')
wf("dd_trunc", r'''
cp "$SRC/rand.bin" a.bin
dd if="$SRC/rand2.bin" of=a.bin bs=4096 seek=10 count=3 status=noxfer
stat -c %s a.bin
cp "$SRC/rand.bin" b.bin
dd if="$SRC/rand2.bin" of=b.bin bs=1000 seek=7000 count=1 status=noxfer
stat -c %s b.bin
''')
wf("dd_skip", r'''
cp "$SRC/big.bin" b.bin
dd if=b.bin of="$OUT/x" bs=7777 skip=11 status=noxfer; md5sum < "$OUT/x"
# dd's report goes to a file: in a pipe it would race md5sum's line in the transcript
dd if=b.bin bs=1M skip=3 count=2 status=noxfer 2>"$OUT/dd.err" | md5sum; cat "$OUT/dd.err"
dd if=b.bin iflag=skip_bytes,count_bytes skip=1234567 count=99999 status=noxfer 2>"$OUT/dd.err" | md5sum
cat "$OUT/dd.err"
cp "$SRC/rand.bin" c.bin
dd if=b.bin of=c.bin bs=100000 skip=7 seek=3 count=20 conv=notrunc,sparse status=noxfer
''')
wf("tar_c", r'''
mkdir d d/sub
cp "$SRC/rand.bin" d/a.bin; cp "$SRC/text.txt" d/sub/t.txt
cp "$SRC/sparse.bin" d/sub/s.bin; cp "$SRC/empty.bin" d/e.bin
tar cf "$OUT/d.tar" d; echo "tar c rc=$?"
tar tvf "$OUT/d.tar" | awk '{print $1, $3, $6}'
mkdir "$OUT/x"; tar xf "$OUT/d.tar" -C "$OUT/x"; echo "tar x rc=$?"
(cd "$OUT/x" && find . -type f | LC_ALL=C sort | xargs md5sum)
tar cSf "$OUT/s.tar" d/sub/s.bin; echo "tar cS rc=$?"
tar tvf "$OUT/s.tar" | awk '{print $3, $6}'
tar xOf "$OUT/s.tar" | md5sum
tar cf - d | tar tf - | LC_ALL=C sort
''')
wf("tar_x", r'''
tar xf "$SRC/tree.tar"; echo "tar x rc=$?"
mkdir y; tar xSf "$SRC/tree.tar" -C y; echo "tar xS rc=$?"
tar cf - tree | (mkdir z && tar xf - -C z); echo "round trip rc=$?"
tar cf "$OUT/tree2.tar" tree; tar df "$OUT/tree2.tar"; echo "tar d rc=$?"
''')
wf("python", r'''
"$PY" "$PL_PYTHON" . "$OUT" "$SRC/rand2.bin"; echo "rc=$?"
''')
wf("posix_c", r'''
"$PL_POSIX" . "$OUT"; echo "rc=$?"
''')
wf("stat_ls_find", r'''
cp "$SRC/rand.bin" a.bin; cp "$SRC/text.txt" t.txt; mkdir sub; cp "$SRC/rand2.bin" sub/r.bin
stat -c '%n %F %s' a.bin t.txt sub/r.bin sub
stat -L -c '%n %F %s' a.bin
ls -l a.bin t.txt | awk '{print $1, $5, $9}'
ls -1F
ls -R
ls -la | awk 'NR > 1 {print substr($1, 1, 1), $NF}' | LC_ALL=C sort
find . -type f | LC_ALL=C sort
find . -type d | LC_ALL=C sort
find . -size +1000k | LC_ALL=C sort
find . -newer "$SRC/empty.bin" -type f | LC_ALL=C sort
test -f a.bin && echo "test -f"; test -d a.bin || echo "not test -d"; test -s a.bin && echo "test -s"
du --apparent-size -b a.bin t.txt
''')
wf("truncate_touch", r'''
cp "$SRC/rand.bin" a.bin; cp "$SRC/text.txt" t.txt
truncate -s 1000 a.bin; stat -c %s a.bin
truncate -s +5000 a.bin; stat -c %s a.bin
truncate -s 12345678 t.txt; stat -c %s t.txt
truncate -s 0 t.txt; stat -c %s t.txt
touch n.bin; stat -c '%F %s' n.bin
: > z.bin; stat -c '%F %s' z.bin
touch -d @1500000000 a.bin; stat -c '%Y' a.bin
truncate -s 3M new.bin; stat -c '%F %s' new.bin
''')
wf("mv_rm", r'''
cp "$SRC/rand.bin" a.bin; cp "$SRC/text.txt" t.txt; cp "$SRC/rand2.bin" c.bin
mv t.txt m.txt; echo "mv rc=$?"
mkdir sub; mv m.txt sub/; mv a.bin sub/b.bin; ls -R
cp "$SRC/rand2.bin" d.bin; mv -f d.bin c.bin; echo "mv over rc=$?"
rm c.bin; echo "rm rc=$?"; ls
rm c.bin; echo "rm again rc=$?"
mkdir -p x/y; cp "$SRC/rand2.bin" x/y/f.bin; cp "$SRC/rand2.bin" x/g.bin
rm -r x; echo "rm -r rc=$?"; ls
mv sub sub2; ls -R
rmdir sub2; echo "rmdir non-empty rc=$?"
rm -rf sub2; echo "rm -rf rc=$?"; ls
cp "$SRC/rand2.bin" keep.bin; rm -i keep.bin < /dev/null; ls
''')
wf("symlink", r'''
cp "$SRC/rand2.bin" a.bin
ln -s a.bin link.bin
md5sum link.bin; stat -L -c '%F %s' link.bin; stat -c '%F' link.bin
cat link.bin | wc -c
readlink link.bin
''')
wf("existing_plain", r'''
# a plain file made before the preload ran (the driver creates plain.bin
# here first, without the preload): read, appended to, copied
md5sum plain.bin; stat -c '%F %s' plain.bin
cat "$SRC/rand2.bin" >> plain.bin; md5sum plain.bin
cp plain.bin copy.bin
''', plain=("plain.bin",))


def data_logs(ctr):
    """[(relative name, size)] of a log container's data logs, on disk."""
    out = []
    for hd in sorted(os.listdir(ctr)):
        if hd.startswith("hostdir.") and os.path.isdir(os.path.join(ctr, hd)):
            for f in sorted(os.listdir(os.path.join(ctr, hd))):
                if f.startswith("data."):
                    out.append((f"{hd}/{f}", os.path.getsize(os.path.join(ctr, hd, f))))
    return out


def every_rank_wrote(np_):
    def check(kind, rundir):
        if kind != "log":
            return None
        logs = data_logs(os.path.join(rundir, "m.bin"))
        nonempty = [n for n, s in logs if s > 0]
        msg = f"data logs {logs}"
        if len(nonempty) < np_:
            return False, f"{len(nonempty)} non-empty data logs, expected one per rank ({np_}): {msg}"
        return True, msg
    return check


def report_logs(kind, rundir):
    if kind != "log":
        return None
    return True, f"(default hints: ROMIO's aggregators write) data logs {data_logs(os.path.join(rundir, 'm.bin'))}"


# ROMIO's two-phase collective write lets only its aggregators write (one
# per node by default: here rank 0 alone). To make every process write its
# own data without changing the program, ROMIO's own hints file turns
# collective buffering off (ROMIO_HINTS=file with "romio_cb_write disable").
wf("mpi_np2_default", r'''
"$MPIEXEC" $NPFLAG 2 "$PL_MPI" m.bin; echo "rc=$?"
''', mpi=True, extra=report_logs)
wf("mpi_np2_cb_disable", r'''
ROMIO_HINTS="$SRC/romio-nocb" "$MPIEXEC" $NPFLAG 2 "$PL_MPI" m.bin; echo "rc=$?"
''', mpi=True, extra=every_rank_wrote(2))
wf("mpi_np4_cb_disable", r'''
ROMIO_HINTS="$SRC/romio-nocb" "$MPIEXEC" $NPFLAG 4 "$PL_MPI" m.bin 48; echo "rc=$?"
''', mpi=True, extra=every_rank_wrote(4))

# Start-up problems: the program runs on plain paths and must behave as
# without the preload whatever the environment says.
SMOKE = r'''
cp "$SRC/rand2.bin" a.bin; echo "cp rc=$?"
cat a.bin | md5sum; md5sum a.bin; sort "$SRC/text.txt" | md5sum
"$PY" -c 'import os; print(sorted(os.listdir(".")), os.path.getsize("a.bin"))'
ls
'''

# --------------------------------------------------------------------------


class Result:
    def __init__(self):
        self.lock = threading.Lock()
        self.rows = []  # (name, ok, detail)

    def add(self, name, ok, detail=""):
        with self.lock:
            self.rows.append((name, ok, detail))


def run(cmd, cwd, env, timeout):
    """(rc, output) of a command; output is stdout+stderr; rc None on timeout."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode("utf-8", "replace") + f"\n[timed out after {timeout} s]"


def normalize(text, subs):
    for a, b in subs:
        text = text.replace(a, b)
    return text


def step_of(lines, i):
    """The script line or '==' heading nearest before line i of a transcript."""
    for j in range(min(i, len(lines) - 1), -1, -1):
        if lines[j].startswith(("== ", "+ ")):
            return lines[j]
    return None


def compare(ref, got, ignore_hash=False):
    """None when equal, else a short description of the differences."""
    a = ref.splitlines()
    b = got.splitlines()
    if ignore_hash:
        a = [x for x in a if not x.startswith("#")]
        b = [x for x in b if not x.startswith("#")]
    if a == b:
        return None
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    steps = []
    for tag, i1, _i2, _j1, _j2 in sm.get_opcodes():
        if tag != "equal":
            s = step_of(a, i1)
            if s and s not in steps:
                steps.append(s)
    diff = list(difflib.unified_diff(a, b, "reference (plain directory)", "under the preload",
                                     n=1, lineterm=""))
    if len(diff) > 150:
        diff = diff[:150] + [f"... ({len(diff) - 150} more diff lines)"]
    head = "first difference in step: " + steps[0] if steps else ""
    return "\n".join(([head] if head else []) + diff)


class Suite:
    def __init__(self, args):
        self.a = args
        self.res = Result()
        self.work = tempfile.mkdtemp(prefix="ostio-preload-", dir=args.workdir)
        self.src = os.path.join(self.work, "src")
        self.stage = os.path.join(self.work, "stage")
        self.py = os.path.realpath(sys.executable)
        self.ref = {}

    def env(self, kind, out, extra=None):
        e = {k: v for k, v in os.environ.items()
             if not (k.startswith("OSTIO_") or k.startswith("ROMIO_") or k == "LD_PRELOAD")}
        e.update(LC_ALL="C", TZ="UTC", SRC=self.src, OUT=out, PY=self.py,
                 PL_POSIX=self.a.posix, PL_MPI=self.a.mpi, PL_PYTHON=os.path.join(HERE, "pl_python.py"),
                 MPIEXEC=self.a.mpiexec, NPFLAG=self.a.np_flag, ROMIO_FSTYPE_FORCE="ufs:",
                 OMPI_MCA_rmaps_base_oversubscribe="1")
        if kind != "plain":
            e["LD_PRELOAD"] = self.a.preload
            e["OSTIO_PRELOAD_PATHS"] = os.path.join(self.work, "ctr-" + kind)
            if kind == "outside":
                e["OSTIO_PRELOAD_PATHS"] = os.path.join(self.work, "pre")
            if kind == "striped":
                e["OSTIO_HINTS"] = STRIPED_HINTS
            if kind == "staged":
                e["OSTIO_HINTS"] = "*:ostio_container=log:ostio_stage_dir=" + self.stage
        if extra:
            e.update(extra)
        return e

    def rundir(self, kind, name):
        root = {"plain": "plain", "log": "ctr-log", "striped": "ctr-striped", "outside": "pre2",
                "staged": "ctr-staged"}[kind]
        return os.path.join(self.work, root, name)

    def execute(self, w, kind):
        """Run a workflow; returns dict(output, listing, content, files, dirs) normalized."""
        d = self.rundir(kind, w["name"])
        out = os.path.join(self.work, "out", kind, w["name"])
        os.makedirs(d)
        os.makedirs(out)
        if w["name"] == "existing_plain":
            shutil.copyfile(os.path.join(self.src, "rand.bin"), os.path.join(d, "plain.bin"))
        env = self.env(kind, out)
        # Each script line is echoed ("+ line") so a difference names its step.
        lines = [ln for ln in w["script"].strip().splitlines() if ln.strip() and not ln.startswith("#")]
        script = "exec 2>&1\n" + "\n".join(f"echo {sh_quote('+ ' + ln)}\n{ln}" for ln in lines)
        t0 = time.time()
        rc, text = run(["bash", "-c", script], d, env, self.a.timeout)
        dt = time.time() - t0
        subs = [(d, "<DIR>"), (out, "<OUT>"), (self.src, "<SRC>"), (self.work, "<WORK>")]
        r = {"output": normalize(text, subs) + f"[exit {rc}]\n", "secs": dt, "dir": d}
        rc2, listing = run(["find", ".", "-mindepth", "1", "-printf", "%y %P %s\n"], d, env, 60)
        rows = []
        for ln in listing.splitlines():
            parts = ln.split(" ")
            if parts[0] == "d":
                parts = parts[:-1]  # a directory's size is the file system's business
            rows.append(" ".join(parts))
        r["listing"] = "\n".join(sorted(rows)) + f"\n[find exit {rc2}]\n"
        r["files"] = sorted(ln[2:].rsplit(" ", 1)[0] for ln in rows if ln.startswith("f "))
        r["dirs"] = sorted(ln.split(" ", 1)[1] for ln in rows if ln.startswith("d "))
        r["links"] = sorted(ln[2:].rsplit(" ", 1)[0] for ln in rows if ln.startswith("l "))
        r["env"] = env
        tdir = os.path.join(self.work, "transcripts", kind)
        os.makedirs(tdir, exist_ok=True)
        with open(os.path.join(tdir, w["name"] + ".txt"), "w") as fh:
            fh.write(r["output"] + "---- listing\n" + r["listing"])
        return r

    def content(self, kind, r, files):
        if not files:
            return "(no files)\n"
        rc, text = run(["md5sum", "--"] + files, r["dir"], r["env"], 120)
        return text + f"[md5sum exit {rc}]\n"

    def on_disk(self, kind, d, files, dirs, plain):
        """Problems found on disk (without the preload) and the containers."""
        problems, ctrs = [], []
        expect_kind = {"log": "log", "striped": "striped", "staged": "log"}.get(kind)
        for f in files:
            p = os.path.join(d, f)
            if kind == "outside" or f in plain:
                if not (os.path.isfile(p) and not os.path.islink(p)):
                    problems.append(f"{f}: should be a plain file, is "
                                    + ("a directory (a container?)" if os.path.isdir(p) else "missing"))
                continue
            if os.path.islink(p):
                continue  # a symbolic link to a container
            man = os.path.join(p, "ostio.manifest")
            if not os.path.isdir(p) or not os.path.isfile(man):
                problems.append(f"{f}: not a container on disk ("
                                + ("a plain file" if os.path.isfile(p) else "missing") + ")")
                continue
            ctrs.append(f)
            with open(man, errors="replace") as fh:
                text = fh.read()
            if f"\nkind {expect_kind}\n" not in text:
                problems.append(f"{f}: manifest is not kind {expect_kind}")
            elif kind == "striped" and "\nobjects 3\n" not in text:
                problems.append(f"{f}: striped manifest without 'objects 3' (OSTIO_HINTS ignored?)")
        # Nothing else in the run directory (stray temporary files, ...).
        expected = set(files) | set(dirs)
        for root, dnames, fnames in os.walk(d):
            rel = os.path.relpath(root, d)
            keep = []
            for n in dnames + fnames:
                relp = n if rel == "." else os.path.join(rel, n)
                if relp in ctrs:
                    continue
                if relp not in expected:
                    problems.append(f"stray entry on disk: {relp}")
                elif n in dnames:
                    keep.append(n)
            dnames[:] = keep
        return problems, ctrs

    def ostio_check(self, d, ctrs):
        bad = []
        for c in ctrs:
            rc, text = run([self.a.cli, "container", "check", c], d, self.env("plain", d), 60)
            if rc != 0:
                bad.append(f"{c}: exit {rc}: {text.strip()}")
        return bad

    def one(self, w, kind):
        name = f"{kind}/{w['name']}"
        if w["mpi"] and self.a.no_mpi:
            return
        ref = self.ref[w["name"]]
        r = self.execute(w, kind)
        ign = w["name"] in ("posix_c", "python")
        d = compare(ref["output"], r["output"], ignore_hash=ign)
        self.res.add(f"{name}: output", d is None, d or "", )
        d = compare(ref["listing"], r["listing"])
        self.res.add(f"{name}: listing", d is None, d or "")
        d = compare(ref["content"], self.content(kind, r, ref["files"]))
        self.res.add(f"{name}: content", d is None, d or "")
        problems, ctrs = self.on_disk(kind, r["dir"], ref["files"], ref["dirs"] + ref["links"],
                                      w["plain"])
        self.res.add(f"{name}: on-disk", not problems, "\n".join(problems))
        if kind != "outside":
            bad = self.ostio_check(r["dir"], ctrs)
            self.res.add(f"{name}: ostio-check ({len(ctrs)} containers)", not bad, "\n".join(bad))
        if w["extra"] and kind != "outside":
            got = w["extra"](kind, r["dir"])
            if got is not None:
                self.res.add(f"{name}: extra", got[0], got[1])
        if self.a.verbose:
            print(f"  {name}: {r['secs']:.2f} s", flush=True)

    def reference(self, w):
        r = self.execute(w, "plain")
        r["content"] = self.content("plain", r, r["files"])
        self.ref[w["name"]] = r
        if not r["output"].endswith("[exit 0]\n"):
            self.res.add(f"reference/{w['name']}", False,
                         "the workflow failed on the plain directory (a test bug):\n" + r["output"][-2000:])

    def startup(self):
        """Broken environments: programs on plain paths behave as without the preload."""
        long_paths = ":".join(f"/nonexistent/{i:04d}/" + "x" * 200 for i in range(40))
        regular = os.path.join(self.src, "empty.bin")
        pre = os.path.join(self.work, "pre")
        # (name, environment, refused): a refused OSTIO_PRELOAD_PATHS prints one
        # warning line per process naming the variable, and the library is
        # disabled (docs/preload.md, "Start-up").
        cases = [
            ("paths_unset", {"OSTIO_PRELOAD_PATHS": None}, False),
            ("paths_empty", {"OSTIO_PRELOAD_PATHS": ""}, False),
            ("paths_garbage", {"OSTIO_PRELOAD_PATHS": "/nonexistent/dir:relative/dir:::"}, True),
            ("paths_regular_file", {"OSTIO_PRELOAD_PATHS": regular}, True),
            ("paths_root", {"OSTIO_PRELOAD_PATHS": "/"}, True),
            ("paths_root_spelled", {"OSTIO_PRELOAD_PATHS": pre + ":" + self.work + "/../../../../../../../../.."}, True),
            ("paths_relative", {"OSTIO_PRELOAD_PATHS": "pre"}, True),
            ("paths_empty_entry", {"OSTIO_PRELOAD_PATHS": pre + ":"}, True),
            ("paths_nonexistent", {"OSTIO_PRELOAD_PATHS": pre + "/does-not-exist"}, True),
            ("paths_too_many_long", {"OSTIO_PRELOAD_PATHS": long_paths}, True),
            ("hints_broken", {"OSTIO_HINTS": "*:=4,garbage"}, False),
            ("hints_unknown_kind", {"OSTIO_HINTS": "*:ostio_container=bogus"}, False),
        ]
        ref = None
        for cname, extra, refused in cases:
            d = os.path.join(self.work, "startup", cname)
            os.makedirs(d)
            if ref is None:
                rd = os.path.join(self.work, "startup-ref")
                os.makedirs(rd)
                rc, t = run(["bash", "-c", SMOKE], rd, self.env("plain", rd), 60)
                ref = normalize(t, [(rd, "<DIR>")]) + f"[exit {rc}]\n"
            env = self.env("outside", d)
            env["OSTIO_PRELOAD_PATHS"] = os.path.join(self.work, "pre")
            for k, v in extra.items():
                if v is None:
                    env.pop(k, None)
                else:
                    env[k] = v
            rc, t = run(["bash", "-c", SMOKE], d, env, 60)
            warns = [ln for ln in t.splitlines() if ln.startswith("ostio-preload:")]
            t = "".join(ln + "\n" for ln in t.splitlines() if not ln.startswith("ostio-preload:"))
            diff = compare(ref, normalize(t, [(d, "<DIR>")]) + f"[exit {rc}]\n")
            if refused:
                good = warns and all(w == warns[0] for w in warns) and \
                    warns[0].startswith("ostio-preload: OSTIO_PRELOAD_PATHS") and "disabled" in warns[0]
                self.res.add(f"startup/{cname}: refused with one warning line per process", bool(good),
                             "\n".join(warns[:3]) or "no warning on stderr")
            elif warns:
                diff = (diff or "") + "\nunexpected warnings:\n" + "\n".join(warns[:3])
            dirs = [n for n in os.listdir(d) if os.path.isdir(os.path.join(d, n))]
            if dirs:
                diff = (diff or "") + f"\ncontainers (directories) appeared: {dirs}"
            self.res.add(f"startup/{cname}: plain paths unaffected", diff is None, diff or "")
        # Broken hints when creating inside a preload directory: a clean error
        # or a correct file, never a crash or wrong bytes.
        for cname, hints in (("hints_broken_inside", "*:=4,garbage"),
                             ("hints_unknown_kind_inside", "*:ostio_container=bogus")):
            d = os.path.join(self.work, "ctr-log", "startup-" + cname)
            os.makedirs(d)
            env = self.env("log", d)
            env["OSTIO_HINTS"] = hints
            rc, t = run(["bash", "-c", 'cp "$SRC/rand2.bin" a.bin; echo "cp rc=$?"; md5sum a.bin'],
                        d, env, 60)
            want = hashlib.md5(open(os.path.join(self.src, "rand2.bin"), "rb").read()).hexdigest()
            crashed = rc is None or re.search(r"rc=(1[2-9][0-9]|13[0-9])", t) or "core dumped" in t
            ok_copy = "cp rc=0" in t and want in t
            ok_refused = re.search(r"cp rc=[1-9]", t) and not os.path.isfile(os.path.join(d, "a.bin"))
            ok = not crashed and (ok_copy or ok_refused)
            self.res.add(f"startup/{cname}: cp into a preload directory fails cleanly or works",
                         bool(ok), ("copied correctly\n" if ok_copy else "refused\n" if ok else "") + t)

    def paths(self):
        """The path rule (docs/preload.md, "Which paths"): the preload serves the
        file the kernel would open, resolving symlinks before "..", relative
        paths against the cwd or the dirfd, and /proc/self/fd links. Every case
        checks bytes on disk (md5) of the file the kernel names and of every
        container that must stay untouched."""
        rand2 = os.path.join(self.src, "rand2.bin")
        rand = os.path.join(self.src, "rand.bin")
        md5_of = lambda path: hashlib.md5(open(path, "rb").read()).hexdigest()
        want2, want1 = md5_of(rand2), md5_of(rand)

        def setup(case):
            base = os.path.join(self.work, "paths", case)
            P, O = os.path.join(base, "P"), os.path.join(base, "O")
            os.makedirs(os.path.join(O, "sub"))
            os.makedirs(P)
            env = self.env("plain", base)
            env.update(LD_PRELOAD=self.a.preload, OSTIO_PRELOAD_PATHS=P, P=P, O=O)
            return base, P, O, env

        def sh(script, cwd, env):
            rc, t = run(["bash", "-c", script], cwd, env, 60)
            return rc, t

        def ctr_md5(path, env):
            """md5 of a container read through the preload, None when it is not one."""
            if not os.path.isfile(os.path.join(path, "ostio.manifest")):
                return None
            rc, t = run(["md5sum", path], os.path.dirname(path), env, 60)
            return t.split()[0] if rc == 0 and t else None

        def check(case, cond, detail):
            self.res.add(f"paths/{case}", bool(cond), detail)

        # 1. PREFIX/lnk/../c.dat with lnk -> O/sub: the kernel's file is O/c.dat.
        for case, how in (("dotdot_symlink_dd", 'dd if="$SRC/rand2.bin" of="$P/lnk/../c.dat" status=none'),
                          ("dotdot_symlink_cwd", 'cd "$P" && dd if="$SRC/rand2.bin" of=lnk/../c.dat status=none'),
                          ("dotdot_symlink_dirfd",
                           '"$PY" -c \'import os,sys\nd=os.open(os.environ["P"],os.O_RDONLY)\n'
                           'f=os.open("lnk/../c.dat",os.O_WRONLY|os.O_CREAT|os.O_TRUNC,0o644,dir_fd=d)\n'
                           'os.write(f,open(os.environ["SRC"]+"/rand2.bin","rb").read())\'')):
            base, P, O, env = setup(case)
            os.symlink(os.path.join(O, "sub"), os.path.join(P, "lnk"))
            with open(os.path.join(O, "c.dat"), "w") as f:
                f.write("the plain file the user named\n")
            rc, t = sh('cp "$SRC/rand.bin" "$P/c.dat" && ' + how + '; echo "rc=$?"', base, env)
            got_o = md5_of(os.path.join(O, "c.dat"))
            got_c = ctr_md5(os.path.join(P, "c.dat"), env)
            check(case + ": the file the kernel names holds the data", got_o == want2 and "rc=0" in t,
                  f"O/c.dat md5 {got_o}, want {want2}\n{t}")
            check(case + ": the container PREFIX/c.dat is unchanged", got_c == want1,
                  f"container md5 {got_c}, want {want1}")

        # 2. A symlink to a container: rm and mv onto it act on the link only;
        #    reading through it reads the container; O_NOFOLLOW refuses it.
        base, P, O, env = setup("symlink_final")
        os.symlink("c.dat", os.path.join(P, "s"))
        os.symlink("c.dat", os.path.join(P, "s2"))
        os.symlink("c.dat", os.path.join(P, "s3"))
        rc, t = sh('cp "$SRC/rand.bin" "$P/c.dat"\n'
                   'md5sum < "$P/s" | cut -d" " -f1\n'
                   '"$PY" -c \'import os,sys\ntry:\n os.open(sys.argv[1],os.O_RDONLY|os.O_NOFOLLOW)\n print("nofollow opened")\n'
                   'except OSError as e:\n print("nofollow", e.strerror)\' "$P/s3"\n'
                   'rm "$P/s"; echo "rm rc=$?"\n'
                   'echo plain > "$O/x"; mv "$O/x" "$P/s2"; echo "mv rc=$?"\n', base, env)
        got_c = ctr_md5(os.path.join(P, "c.dat"), env)
        check("symlink_final: read through a symlink to a container", t.startswith(want1 + "\n"), t)
        check("symlink_final: O_NOFOLLOW on a symlink is ELOOP", "nofollow Too many levels of symbolic links" in t, t)
        check("symlink_final: rm of a symlink removes the link only",
              "rm rc=0" in t and not os.path.lexists(os.path.join(P, "s")) and got_c == want1,
              f"container md5 {got_c}, want {want1}; link exists: {os.path.lexists(os.path.join(P, 's'))}\n{t}")
        s2 = os.path.join(P, "s2")
        check("symlink_final: mv onto a symlink replaces the link only",
              "mv rc=0" in t and os.path.isfile(s2) and not os.path.islink(s2) and got_c == want1,
              f"container md5 {got_c}, want {want1}; s2 is a link: {os.path.islink(s2)}\n{t}")

        # 3. New names through symlinks inside the prefix: the container is
        #    created where the kernel would create the file.
        base, P, O, env = setup("symlink_create")
        os.makedirs(os.path.join(P, "real"))
        os.symlink("real", os.path.join(P, "lnkdir"))
        os.symlink("real/target.dat", os.path.join(P, "dangling"))
        rc, t = sh('cp "$SRC/rand2.bin" "$P/lnkdir/new.dat"; echo "cp rc=$?"\n'
                   'cat "$SRC/rand2.bin" > "$P/dangling"; echo "redirect rc=$?"\n', base, env)
        a = ctr_md5(os.path.join(P, "real", "new.dat"), env)
        b = ctr_md5(os.path.join(P, "real", "target.dat"), env)
        check("symlink_create: new name in a symlinked directory is a container there", a == want2,
              f"real/new.dat md5 {a}, want {want2}\n{t}")
        check("symlink_create: through a dangling symlink the target is created", b == want2
              and os.path.islink(os.path.join(P, "dangling")), f"real/target.dat md5 {b}, want {want2}\n{t}")

        # 4. /proc/self/fd and /dev/std*: the same container, never its manifest.
        base, P, O, env = setup("procfd")
        rc, t = sh('cp "$SRC/rand.bin" "$P/c.dat"\n'
                   'md5sum /dev/stdin < "$P/c.dat" | cut -d" " -f1\n'
                   'stat -L -c "stat %s" /dev/stdin < "$P/c.dat"\n'
                   '"$PY" -c \'import os; print("statx", os.stat("/proc/self/fd/0").st_size)\' < "$P/c.dat"\n'
                   'bash -c "echo hello > /dev/stdout" > "$P/d.dat"; echo "stdout rc=$?"\n'
                   '"$PY" -c \'import os\nd=os.open(os.environ["P"],os.O_RDONLY)\n'
                   'open("/proc/self/fd/%d/n.dat" % d,"wb").write(open(os.environ["SRC"]+"/rand2.bin","rb").read())\'\n'
                   'echo "fdpath rc=$?"\n', base, env)
        check("procfd: md5sum /dev/stdin < container reads the container", t.startswith(want1 + "\n"), t)
        size1 = os.path.getsize(rand)
        check("procfd: stat of /dev/stdin and /proc/self/fd/0 on a container is the container's",
              f"stat {size1}\n" in t and f"statx {size1}\n" in t, t)
        d = ctr_md5(os.path.join(P, "d.dat"), env)
        want_hello = hashlib.md5(b"hello\n").hexdigest()
        check("procfd: > /dev/stdout on a container writes the container", d == want_hello and "stdout rc=0" in t,
              f"d.dat md5 {d}, want {want_hello}\n{t}")
        n = ctr_md5(os.path.join(P, "n.dat"), env)
        check("procfd: /proc/self/fd/DIRFD/name creates a container", n == want2, f"n.dat md5 {n}\n{t}")

        # 5. Names longer than the kernel's limits: an error or a plain file,
        #    never a crash; the data is where the kernel put it.
        base, P, O, env = setup("long")
        rc, t = sh('"$PY" -c \'import os,errno\nos.chdir(os.environ["P"])\n'
                   'try:\n open("x"*300,"wb")\nexcept OSError as e: print("name", errno.errorcode[e.errno])\n'
                   'try:\n open(os.environ["P"]+"/"+"d/"*2100+"f","wb")\nexcept OSError as e: print("path", errno.errorcode[e.errno])\n'
                   'for i in range(30): os.mkdir("d"*200); os.chdir("d"*200)\n'
                   'open("deep.dat","wb").write(b"deep")\nprint(open("deep.dat","rb").read())\'; echo "rc=$?"', base, env)
        check("long: ENAMETOOLONG and a deep cwd, no crash",
              "name ENAMETOOLONG" in t and "path ENAMETOOLONG" in t and "b'deep'" in t and "rc=0" in t, t)

    def main(self):
        t0 = time.time()
        make_inputs(self.src)
        for root in ("ctr-log", "ctr-striped", "ctr-staged", "pre", "pre2", "plain", "startup"):
            os.makedirs(os.path.join(self.work, root), exist_ok=True)
        sel = [w for w in W if re.search(self.a.only, w["name"])]
        kinds = [k for k in self.a.kinds.split(",") if k]
        with ThreadPoolExecutor(self.a.jobs) as ex:
            list(ex.map(self.reference, sel))
            if not self.a.reference_only:
                jobs = [(w, k) for w in sel for k in kinds]
                futs = [ex.submit(self.one, w, k) for w, k in jobs]
                if re.search(self.a.only, "startup"):
                    futs.append(ex.submit(self.startup))
                if re.search(self.a.only, "paths"):
                    futs.append(ex.submit(self.paths))
                if "staged" in kinds and re.search(self.a.only, "staged"):
                    futs.append(ex.submit(self.staged_kill))
                for f in futs:
                    f.result()
        if "staged" in kinds and not self.a.reference_only:
            left = [os.path.join(r, n) for r, _, fs in os.walk(self.stage) for n in fs
                    if "kill" not in r]
            self.res.add("staged: nothing left staged after the workflows", not left,
                         "\n".join(left[:5]))
        return time.time() - t0

    def staged_kill(self):
        """A process killed (SIGKILL) after writing and fsync through the preload:
        its logs stay staged (a stage record in the container, the bytes in the
        stage directory); `ostio stage drain` brings them; then the container
        reads back as written and `container check` passes."""
        d = os.path.join(self.work, "ctr-staged", "kill")
        os.makedirs(d)
        stage = os.path.join(self.stage, "kill")
        env = self.env("staged", d, {"OSTIO_PRELOAD_PATHS": d,
                                     "OSTIO_HINTS": "*:ostio_container=log:ostio_stage_dir=" + stage})
        script = ("import os\n"
                  "data = open(os.environ['SRC'] + '/rand.bin', 'rb').read()\n"
                  "fd = os.open('k.bin', os.O_WRONLY | os.O_CREAT, 0o644)\n"
                  "os.write(fd, data)\n"
                  "os.fsync(fd)\n"
                  "os.kill(os.getpid(), 9)\n")
        rc, text = run([self.py, "-c", script], d, env, 120)
        plain = self.env("plain", d)
        records = [n for _, _, fs in os.walk(os.path.join(d, "k.bin")) for n in fs
                   if n.startswith("stage.")]
        staged = sum(os.path.getsize(os.path.join(r, n)) for r, _, fs in os.walk(stage)
                     for n in fs if n.startswith("data."))
        want = os.path.getsize(os.path.join(self.src, "rand.bin"))
        self.res.add("staged/kill: killed writer left staged", rc == -9 and len(records) == 1
                     and staged == want, f"exit {rc}, records {records}, staged {staged} of {want}")
        rc1, _ = run([self.a.cli, "container", "check", "k.bin"], d, plain, 60)
        rc2, t2 = run([self.a.cli, "stage", "drain", "--quiet", "k.bin"], d, plain, 120)
        rc3, t3 = run([self.a.cli, "container", "check", "k.bin"], d, plain, 60)
        self.res.add("staged/kill: check 1, drain 0, check 0", (rc1, rc2, rc3) == (1, 0, 0),
                     f"{rc1} {rc2} {rc3}: {t2} {t3}")
        rc4, t4 = run(["cmp", os.path.join(self.src, "rand.bin"), "k.bin"], d, env, 60)
        self.res.add("staged/kill: the drained container reads back as written", rc4 == 0, t4)


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preload", required=True,
                    help="path of libostio-preload.so; NOTARGET when the CMake target does not exist (SKIP)")
    ap.add_argument("--cli", required=True, help="the ostio command-line tool")
    ap.add_argument("--posix", required=True, help="the pl_posix test program")
    ap.add_argument("--mpi", required=True, help="the pl_mpi_nto1 test program")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--workdir", default=None, help="where the temporary directory goes (default: TMPDIR)")
    ap.add_argument("--kinds", default="log,striped,outside,staged",
                    help="comma-separated subset of log,striped,outside,staged")
    ap.add_argument("--only", default="", help="regular expression: run only workflows whose name matches")
    ap.add_argument("--list", action="store_true", help="list the workflows and exit")
    ap.add_argument("--reference-only", action="store_true",
                    help="run only the plain-directory half (no preload needed)")
    ap.add_argument("--no-mpi", action="store_true", help="leave out the MPI workflows")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="workflows run at once (default 2)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per workflow script")
    ap.add_argument("-k", "--keep", action="store_true", help="keep the work directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every check, not only failures")
    a = ap.parse_args()
    if a.list:
        for w in W:
            print(w["name"])
        print("startup")
        print("paths")
        return 0
    if not a.reference_only:
        if a.preload == "NOTARGET":
            print("SKIP: the CMake target ostio_preload (libostio-preload.so) does not exist")
            return SKIP
        if not os.path.isfile(a.preload):
            print(f"FAIL: the preload library {a.preload} does not exist (the target exists: not built?)")
            return 1
        a.preload = os.path.abspath(a.preload)
    for attr in ("cli", "posix", "mpi"):
        setattr(a, attr, os.path.abspath(getattr(a, attr)))
    s = Suite(a)
    print(f"work directory {s.work}", flush=True)
    try:
        secs = s.main()
    finally:
        if not a.keep:
            shutil.rmtree(s.work, ignore_errors=True)
    rows = sorted(s.res.rows, key=lambda r: r[0])
    fails = [r for r in rows if not r[1]]
    for name, ok, detail in rows:
        if ok and not a.verbose:
            continue
        print(f"{'PASS' if ok else 'FAIL'} {name}")
        if detail and (not ok or a.verbose):
            for ln in detail.splitlines():
                print("     " + ln)
    print(f"{len(rows) - len(fails)} of {len(rows)} checks passed, {len(fails)} failed, {secs:.1f} s"
          + ("" if a.keep else "") + (f" (kept {s.work})" if a.keep else ""))
    if fails:
        print("failed: " + ", ".join(r[0] for r in fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
