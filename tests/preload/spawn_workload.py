"""Issue 27, run by tests/test_preload_spawn.py under libostio-preload.so:
threads write and fsync a container while other threads start programs
(CPython's subprocess: vfork + close_fds; a thread pool; os.posix_spawn)
and rename it. The same chunks as tests/preload/pl_spawn.c: writer w writes
chunk k at (k * WRITERS + w) * CHUNK, every byte 1 + (w * 131 + k * 29) % 255.

Usage: python3 spawn_workload.py CTR CHUNKS CHUNK WRITERS MODES
  MODES (comma-separated): subprocess, pool, posix_spawn, rename, renamed (the
  container renamed once after open, back before close), none.
Exit 0 when every write and fsync succeeded and every chunk reads back
exactly through the writing fd; 1 with the failures on stderr."""
import concurrent.futures
import os
import subprocess
import sys
import threading

failures = []
lock = threading.Lock()
done = threading.Event()
counts = {"spawned": 0, "renamed": 0}


def fail(msg):
    with lock:
        failures.append(msg)


def val(w, k):
    return 1 + (w * 131 + k * 29) % 255


def writer(fd, w, chunks, chunk, nw):
    for k in range(chunks):
        try:
            n = os.pwrite(fd, bytes([val(w, k)]) * chunk, (k * nw + w) * chunk)
            if n != chunk:
                fail("writer %d chunk %d: pwrite wrote %d" % (w, k, n))
            os.fsync(fd)
        except OSError as e:
            fail("writer %d chunk %d: %s" % (w, k, e))


def run_true():
    r = subprocess.run(["true"], close_fds=True)
    if r.returncode != 0:
        fail("subprocess true: exit %d" % r.returncode)
    with lock:
        counts["spawned"] += 1


def spawner():
    while not done.is_set():
        run_true()


def pool():
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        while not done.is_set():
            for f in [ex.submit(run_true) for _ in range(8)]:
                f.result()


def posix_spawner():
    path = "/bin/true" if os.path.exists("/bin/true") else "/usr/bin/true"
    while not done.is_set():
        pid = os.posix_spawn(path, ["true"], os.environ)
        _, st = os.waitpid(pid, 0)
        if st != 0:
            fail("posix_spawn true: status %d" % st)
        with lock:
            counts["spawned"] += 1


def renamer(ctr):
    # Counted without the lock: a loop that takes the lock at every rename
    # starves the main thread's fail() (Python's locks are not fair).
    n = 0
    while not done.is_set():
        for a, b in ((ctr, ctr + ".mv"), (ctr + ".mv", ctr)):
            try:
                os.rename(a, b)
                n += 1
            except OSError as e:
                fail("rename %s -> %s: %s" % (a, b, e))
    with lock:
        counts["renamed"] += n


def check(fd, chunks, chunk, nw, how):
    size = os.fstat(fd).st_size
    if size != chunks * nw * chunk:
        fail("%s: size %d, expected %d" % (how, size, chunks * nw * chunk))
    bad = 0
    for k in range(chunks):
        for w in range(nw):
            b = os.pread(fd, chunk, (k * nw + w) * chunk)
            if b != bytes([val(w, k)]) * chunk:
                bad += 1
                if bad <= 5:
                    fail("%s: writer %d chunk %d: %d bytes read, first 0x%02x, expected 0x%02x"
                         % (how, w, k, len(b), b[0] if b else 0, val(w, k)))
    if bad:
        fail("%s: %d of %d chunks wrong" % (how, bad, chunks * nw))


def main():
    ctr, chunks, chunk, nw, modes = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                     int(sys.argv[4]), sys.argv[5].split(","))
    fd = os.open(ctr, os.O_RDWR | os.O_CREAT, 0o644)
    helpers = []
    for m in modes:
        if m == "subprocess":
            helpers.append(threading.Thread(target=spawner))
        elif m == "pool":
            helpers.append(threading.Thread(target=pool))
        elif m == "posix_spawn":
            helpers.append(threading.Thread(target=posix_spawner))
        elif m == "rename":
            helpers.append(threading.Thread(target=renamer, args=(ctr,)))
        elif m == "renamed":
            pass  # below: the writes, fsyncs and reads all under the new name
        elif m != "none":
            print("spawn_workload: unknown mode %s" % m, file=sys.stderr)
            return 2
    if "renamed" in modes:  # staged (if so) under the old name, reloaded under the new
        os.pwrite(fd, bytes([val(0, 0)]) * chunk, 0)
        os.fsync(fd)
        os.rename(ctr, ctr + ".mv")
    for t in helpers:
        t.start()
    ws = [threading.Thread(target=writer, args=(fd, w, chunks, chunk, nw)) for w in range(nw)]
    for t in ws:
        t.start()
    for t in ws:
        t.join()
    check(fd, chunks, chunk, nw, "own fd, before the helpers stop")
    done.set()
    for t in helpers:
        t.join()
    check(fd, chunks, chunk, nw, "own fd")
    if "renamed" in modes:
        os.rename(ctr + ".mv", ctr)
    try:
        os.close(fd)
    except OSError as e:
        fail("close: %s" % e)
    print("spawn_workload: %d chunks x %d writers, %d programs started, %d renames, %d failures"
          % (chunks, nw, counts["spawned"], counts["renamed"], len(failures)))
    for f in failures[:20]:
        print("spawn_workload: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
