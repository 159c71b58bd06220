/* Counts this process's open calls on one path (opencount.c): the test
 * program defines open, open64, openat, openat64 and the fortified
 * __open_2 family, so the library linked into it (statically, as the tests
 * link it) and MPI alike reach these first; each forwards to the next
 * definition (dlsym RTLD_NEXT). Which ranks open a file is what CephFS and
 * Lustre charge for (docs/collective.md, "Deferred open"). */
#ifndef OSTIO_TEST_OPENCOUNT_H
#define OSTIO_TEST_OPENCOUNT_H

/* Starts counting opens whose path ends with suffix (NULL: stop); resets
 * the count. */
void oc_watch(const char *suffix);
/* Opens of the watched path since oc_watch (successful or not). */
long oc_count(void);
/* Descriptors this process holds on path now (/proc/self/fd), or -1 when
 * /proc cannot be read. */
int oc_held(const char *path);

#endif
