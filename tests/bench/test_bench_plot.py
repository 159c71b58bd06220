#!/usr/bin/env python3
"""scripts/bench-plot.py on real ostio-bench JSON: a bar chart (PNG of the
requested pixel size, ratio labels need mpiio), an SVG, a sweep over two
documents, and usage errors (exit status 2). Exit 77 (skipped) when matplotlib
is not installed for this Python nor for /usr/bin/python3.

usage: test_bench_plot.py MPIEXEC NUMPROC_FLAG NP OSTIO_BENCH BENCH_PLOT_PY
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

mpiexec, npflag, np, exe, plot = sys.argv[1:6]
failed = 0


def check(ok, what):
    global failed
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failed += 1


def has_matplotlib(py):
    return os.path.exists(py) and subprocess.run(
        [py, "-c", "import matplotlib"], capture_output=True).returncode == 0


py = next((p for p in (sys.executable, "/usr/bin/python3") if has_matplotlib(p)), None)
if py is None:
    print("SKIP: matplotlib is not installed (apt-get install python3-matplotlib)")
    sys.exit(77)


def bench(args, js):
    p = subprocess.run([mpiexec, npflag, np, exe] + args + ["--json", js], capture_output=True,
                       text=True, timeout=120)
    check(p.returncode == 0, f"ostio-bench {' '.join(args[-4:])}: exit {p.returncode}"
          + (f" {p.stderr[-300:]}" if p.returncode else ""))


def plot_run(args):
    return subprocess.run([py, plot] + args, capture_output=True, text=True, timeout=120)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


tmp = tempfile.mkdtemp(prefix="ostio-bench-plot-")
try:
    j1, j2 = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.json")
    common = ["-a", "ostio:even,mpiio", "-c", "-i", "2", "--warmup", "0", "-o",
              os.path.join(tmp, "f"), "-p", "strided", "-s", "8"]
    bench(common + ["-t", "4k", "-b", "4k"], j1)
    bench(common + ["-t", "16k", "-b", "16k"], j2)

    out = os.path.join(tmp, "bars.png")
    p = plot_run([j1, "-o", out, "--size", "4x3", "--dpi", "50", "--stat", "max"])
    check(p.returncode == 0, f"bars: exit {p.returncode} {p.stderr[-300:]}")
    check(png_size(out) == (200, 150), f"bars: PNG 200 x 150 pixels (got {png_size(out)})")
    check(os.path.exists(out) and os.path.getsize(out) > 1000, "bars: PNG not empty")

    out = os.path.join(tmp, "two.svg")
    p = plot_run([j1, j2, "--labels", "4k,16k", "--phase", "write", "-o", out])
    check(p.returncode == 0, f"svg: exit {p.returncode} {p.stderr[-300:]}")
    with open(out) as f:
        svg = f.read()
    check("<svg" in svg, "svg: an SVG document")
    check("ROMIO" in svg, "svg: the mpiio bar is labelled")

    out = os.path.join(tmp, "sweep.png")
    p = plot_run(["--sweep", "auto", j1, j2, "-o", out, "--size", "6x4", "--dpi", "40"])
    check(p.returncode != 0 and "transfer" in p.stderr,
          f"sweep auto: two keys differ (block, transfer), named: {p.stderr.strip()}")
    p = plot_run(["--sweep", "transfer", j1, j2, "-o", out, "--size", "6x4", "--dpi", "40"])
    check(p.returncode == 0, f"sweep: exit {p.returncode} {p.stderr[-300:]}")
    check(png_size(out) == (240, 160), f"sweep: PNG 240 x 160 pixels (got {png_size(out)})")

    for args, what in (([j1], "no -o"), ([j1, "-o", os.path.join(tmp, "x.jpg")], "bad extension"),
                       ([j1, "-o", out, "--stat", "best"], "bad --stat"),
                       ([j1, "-o", out, "--labels", "a,b"], "labels count"), ([], "no file")):
        p = plot_run(args)
        check(p.returncode == 2 and "bench-plot:" in p.stderr, f"usage error ({what}): exit 2")
    bad = os.path.join(tmp, "bad.json")
    with open(bad, "w") as f:
        f.write('{"format": "other"}')
    p = plot_run([bad, "-o", out])
    check(p.returncode == 1 and "not an ostio-bench" in p.stderr, "not an ostio-bench document: 1")
    p = plot_run(["--help"])
    check(p.returncode == 0 and "--sweep" in p.stdout and "--stat" in p.stdout, "--help")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failed else 0)
