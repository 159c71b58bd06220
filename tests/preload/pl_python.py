#!/usr/bin/env python3
"""pl_python.py DIR OUTDIR SRCFILE: Python file I/O on files in DIR, printing a
deterministic transcript (lines starting with '#' are information, not
compared). run_preload_tests.py runs it on a plain directory and, under
LD_PRELOAD=libostio-preload.so, on a directory of OSTIO_PRELOAD_PATHS.

open/read/write/seek/tell/readinto in binary and text modes, append, r+,
truncate, os.open/os.read/os.write/os.pread/os.pwrite/os.lseek/os.fstat,
os.stat, os.listdir, os.scandir, os.rename/os.replace/os.remove,
shutil.copyfile both ways (sendfile inside, with its fallback), and mmap and
os.copy_file_range (served correctly, or refused cleanly)."""
import errno
import hashlib
import mmap
import os
import shutil
import stat
import sys


def md5(b):
    return hashlib.md5(b).hexdigest()


def say(*a):
    print(*a, flush=True)


def err(e):
    return errno.errorcode.get(e.errno, str(e.errno))


def filemd5(p):
    with open(p, "rb") as f:
        return md5(f.read())


def main():
    if len(sys.argv) != 4 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    d, out, src = (os.path.abspath(a) for a in sys.argv[1:])
    os.chdir(d)
    with open(src, "rb") as f:
        data = f.read()
    say("source", len(data), md5(data))

    say("== open/write/read/seek/tell/readinto")
    with open("py1.bin", "wb") as f:
        for i, n in enumerate((1, 4095, 65537, 1000003, 7, 300000)):
            say("write", n, f.write(data[i * 7:i * 7 + n]), "tell", f.tell())
    with open("py1.bin", "rb") as f:
        b = f.read()
        say("read all", len(b), md5(b))
        say("seek", f.seek(65536), "read 10", f.read(10).hex())
        say("seek end -5", f.seek(-5, os.SEEK_END), f.read().hex())
        say("seek cur", f.seek(-1000, os.SEEK_CUR), f.tell())
        buf = bytearray(70000)
        f.seek(12345)
        say("readinto", f.readinto(buf), md5(buf), "tell", f.tell())
        mv = memoryview(buf)[100:200]
        say("readinto view", f.readinto(mv), md5(buf))
    with open("py1.bin", "rb", buffering=0) as f:
        say("raw read 100000", len(f.read(100000)), "raw tell", f.tell())
        say("raw readall", len(f.readall()))
    with open("py1.bin", "ab") as f:
        say("append tell", f.tell(), "write", f.write(b"appended"), "tell", f.tell())
    with open("py1.bin", "r+b") as f:
        f.seek(1000)
        f.write(b"OVERWRITE")
        say("r+ truncate", f.truncate(500000), "tell", f.tell())
        f.seek(0, os.SEEK_END)
        say("r+ end", f.tell())
        f.seek(600000)
        f.write(b"past-end")
        say("r+ size after write past end", f.tell())
    say("py1 md5", filemd5("py1.bin"), "size", os.path.getsize("py1.bin"))

    say("== text mode")
    with open("py2.txt", "w", encoding="utf-8") as f:
        for i in range(3000):
            f.write(f"{i:05d} \u00e9t\u00e9 {i * 7919 % 10007}\n")
    with open("py2.txt", encoding="utf-8") as f:
        lines = f.readlines()
        say("lines", len(lines), lines[1234].rstrip(), "tell", f.tell())
        f.seek(0)
        say("readline", f.readline().rstrip())
        for _ in range(10):
            f.readline()
        pos = f.tell()
        say("line 12", f.readline().rstrip())
        f.seek(pos)
        say("line 12 again", f.readline().rstrip())
    with open("py2.txt", "a", encoding="utf-8") as f:
        print("last line", file=f)
    say("py2 md5", filemd5("py2.txt"))

    say("== os-level calls")
    fd = os.open("py3.bin", os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o644)
    say("os.write", os.write(fd, data[:123457]))
    say("os.lseek cur", os.lseek(fd, 0, os.SEEK_CUR), "end", os.lseek(fd, -7, os.SEEK_END))
    say("os.read", os.read(fd, 100).hex())
    say("os.pwrite", os.pwrite(fd, b"pw" * 1000, 50000))
    say("os.pread", md5(os.pread(fd, 10000, 49000)))
    say("os.ftruncate")
    os.ftruncate(fd, 99999)
    st = os.fstat(fd)
    say("os.fstat", stat.S_ISREG(st.st_mode), st.st_size)
    fd2 = os.dup(fd)
    os.lseek(fd, 10, os.SEEK_SET)
    say("dup shares offset", os.lseek(fd2, 0, os.SEEK_CUR))
    os.close(fd2)
    with os.fdopen(os.dup(fd), "rb") as f:
        say("fdopen read", len(f.read()))
    try:
        os.open("py3.bin", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        say("O_EXCL: opened")
    except OSError as e:
        say("O_EXCL:", err(e))
    try:
        open("py3.bin", "x")
        say("mode x: opened")
    except OSError as e:
        say("mode x:", err(e))
    try:
        open("missing.bin", "rb")
    except OSError as e:
        say("missing:", err(e))
    try:
        os.listdir("py3.bin")
    except OSError as e:
        say("listdir on a file:", err(e))
    os.close(fd)
    say("py3 md5", filemd5("py3.bin"))

    say("== stat, listdir, scandir")
    st = os.stat("py1.bin")
    say("stat py1", stat.S_ISREG(st.st_mode), stat.S_ISDIR(st.st_mode), st.st_size)
    say("isfile", os.path.isfile("py1.bin"), "isdir", os.path.isdir("py1.bin"),
        "exists", os.path.exists("py1.bin"), "getsize", os.path.getsize("py2.txt"))
    say("lstat size", os.lstat("py3.bin").st_size)
    os.utime("py3.bin", (1000000000, 1500000000))
    say("utime", os.stat("py3.bin").st_mtime)

    say("== shutil.copyfile (sendfile) both ways, rename, remove")
    shutil.copyfile(src, "py4.bin")
    say("copy in", filemd5("py4.bin"))
    shutil.copyfile("py4.bin", os.path.join(out, "py4.out"))
    say("copy out", filemd5(os.path.join(out, "py4.out")))
    shutil.copyfile("py4.bin", "py5.bin")
    say("copy within", filemd5("py5.bin"))
    shutil.copy2("py1.bin", "py6.bin")
    say("copy2", filemd5("py6.bin"), int(os.stat("py6.bin").st_mtime) == int(os.stat("py1.bin").st_mtime))
    os.rename("py5.bin", "py7.bin")
    say("rename", os.path.exists("py5.bin"), os.path.getsize("py7.bin"))
    os.replace("py7.bin", "py6.bin")
    say("replace", os.path.exists("py7.bin"), filemd5("py6.bin"))
    os.remove("py4.bin")
    say("remove", os.path.exists("py4.bin"))
    os.mkdir("sub")
    with open("sub/in.bin", "wb") as f:
        f.write(data[:4097])
    os.rename("py3.bin", "sub/moved.bin")
    say("moved", sorted(os.listdir("sub")))

    say("== mmap and copy_file_range: served or refused cleanly")
    with open("py1.bin", "rb") as f:
        want = f.read()
        try:
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            ok = m[:] == want
            m.close()
            say("# mmap: served")
            say("mmap read:", "consistent" if ok else "WRONG DATA")
        except OSError as e:
            say("# mmap: refused", err(e))
            say("mmap read:", "consistent" if e.errno in (errno.ENODEV, errno.EACCES, errno.EINVAL,
                                                           errno.ENOTSUP, errno.EPERM, errno.ENOSYS)
                else "refused with " + err(e))
    if hasattr(os, "copy_file_range"):
        with open(os.path.join(out, "cfr.out"), "wb") as g:
            g.write(b"d" * 1000)
        fi = os.open("py1.bin", os.O_RDONLY)
        fo = os.open(os.path.join(out, "cfr.out"), os.O_WRONLY)
        done, e2 = 0, None
        try:
            while done < 200000:
                n = os.copy_file_range(fi, fo, 200000 - done, 4099 + done, 10 + done)
                if n == 0:
                    break
                done += n
        except OSError as e:
            e2 = e
        os.close(fi)
        os.close(fo)
        got = open(os.path.join(out, "cfr.out"), "rb").read()
        if e2 is None:
            ok = got[:10] == b"d" * 10 and got[10:200010] == want[4099:204099] and len(got) == 200010
            say("# copy_file_range: served", done)
        else:
            ok = done == 0 and got == b"d" * 1000 and e2.errno in (
                errno.ENOSYS, errno.ENOTTY, errno.ENOTSUP, errno.EINVAL, errno.EBADF, errno.EXDEV,
                errno.ETXTBSY, errno.EPERM, errno.EACCES)
            say("# copy_file_range: refused", err(e2))
        say("copy_file_range:", "consistent" if ok else "INCONSISTENT")

    say("== listing")
    for e in sorted(os.scandir("."), key=lambda e: e.name):
        kind = "file" if e.is_file() else "dir" if e.is_dir() else "other"
        say("scandir", e.name, kind, e.stat().st_size if kind == "file" else "-")
    say("listdir", sorted(os.listdir(".")))
    for root, dirs, files in os.walk("."):
        say("walk", root, sorted(dirs), sorted(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
