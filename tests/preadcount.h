/* Counts this process's pread calls on files whose path contains a
 * watched string (preadcount.c): the test program defines pread and
 * pread64, so the library linked into it (statically, as the tests link
 * it) reaches these first; each forwards to the next definition (dlsym
 * RTLD_NEXT). How many system reads a sieved read makes is what it saves
 * (docs/collective.md, "Sieved reads"). */
#ifndef OSTIO_TEST_PREADCOUNT_H
#define OSTIO_TEST_PREADCOUNT_H

/* Starts counting preads on descriptors whose path (/proc/self/fd) contains
 * part (NULL: stop); resets the counts. */
void pc_watch(const char *part);
/* preads of watched files since pc_watch, and the bytes they returned. */
long pc_calls(void);
long long pc_bytes(void);

#endif
