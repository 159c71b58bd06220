#!/usr/bin/env python3
"""suite-cmp.py A B: are two files the same size and bytes?

Prints the size and exits 0 when they are; otherwise prints what differs
("size 10 vs 12", "@1234": the first differing offset) and exits 1. Only the
data extents of either file are read (SEEK_DATA/SEEK_HOLE), so sparse files of
terabytes compare in the time their data takes. Used by scripts/suite-lib.sh.
"""
import os
import sys


def extents(fd, size):
    out, off = [], 0
    while off < size:
        try:
            d = os.lseek(fd, off, os.SEEK_DATA)
        except OSError:
            break
        h = os.lseek(fd, d, os.SEEK_HOLE)
        out.append((d, h))
        off = h
    return out


def main():
    fa, fb = (os.open(p, os.O_RDONLY) for p in sys.argv[1:3])
    sa, sb = os.fstat(fa).st_size, os.fstat(fb).st_size
    size = min(sa, sb)
    pos = 0
    for s, e in sorted(extents(fa, size) + extents(fb, size)):
        s = max(s, pos)
        e = min(e, size)
        while s < e:
            n = min(e - s, 1 << 20)
            x, y = os.pread(fa, n, s), os.pread(fb, n, s)
            if x != y:
                i = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]),
                         min(len(x), len(y)))
                print(f"@{s + i}" + (f" size {sb} vs {sa}" if sa != sb else ""))
                return 1
            s += n
        pos = max(pos, e)
    if sa != sb:
        print(f"size {sb} vs {sa}")
        return 1
    print(sa)
    return 0


if __name__ == "__main__":
    sys.exit(main())
