/* A described cluster for `ostio model` / `ostio advise` (issue 18): the
 * clients, the network, the object storage servers and targets, Lustre's
 * extent locks and the metadata server, as numbers in SI units (bytes per
 * second, seconds). Loaded from a JSON system description
 * (docs/model.md, "System descriptions"; shipped ones in systems/). Pure:
 * no MPI, no I/O beyond reading the description. */
#ifndef OSTIO_MODEL_SYSDESC_H
#define OSTIO_MODEL_SYSDESC_H

#include <stddef.h>
#include <stdint.h>

typedef struct ostio__sys {
  char name[64];
  char source[512];        /* where the numbers come from (paper, measurement) */
  /* clients */
  int64_t nodes;           /* compute nodes                                    */
  int ranks_per_node;      /* MPI ranks per node                               */
  int cores_per_node;      /* cores running them; 0: at least one per rank     */
  double sched_quantum;    /* s: what one collective synchronisation costs per
                            * extra rank per core when ranks outnumber cores
                            * (the scheduler's time slice; 0: nothing)        */
  double nic_bw;           /* bytes/s: one node's link into the network        */
  double client_bw;        /* bytes/s: what one process moves through its file
                            * system client (copies, RPC generation)          */
  double net_latency;      /* s: one message between two ranks                */
  double net_bw;           /* bytes/s: the network's aggregate cap (0: none)   */
  /* servers */
  int noss;                /* object storage servers                           */
  int osts_per_oss;        /* targets behind each                              */
  double oss_bw;           /* bytes/s: one server's network link               */
  double ost_bw;           /* bytes/s: one target, large sequential requests   */
  double ost_req;          /* s: service time per request besides its bytes    */
  int64_t rpc_bytes;       /* largest request a client sends (bytes)           */
  int rpcs_in_flight;      /* requests one client keeps in flight at once
                            * (Lustre's max_rpcs_in_flight, 8; 1: one at a
                            * time, as liblustre); 0: not limited (structs
                            * filled by hand)                                  */
  /* LDLM extent locks */
  double lock_grant;       /* s: an uncontended lock granted                   */
  double lock_conflict;    /* s: a conflicting request: callback to the holder,
                            * its flush and cancel, the new grant             */
  int lock_expand;         /* 1: an uncontended lock covers the whole object   */
  /* metadata */
  double mds_rate;         /* opens or creates per second                      */
} ostio__sys;

/* Total targets: noss * osts_per_oss. */
int64_t ostio__sys_nost(const ostio__sys *s);

/* Parses a JSON system description (text of len bytes). Unknown keys,
 * missing required keys, wrong types and values out of range fail with
 * OSTIO_EINVAL and a detail naming the key, what was found and what is
 * accepted (and the line). Optional keys get the documented defaults. */
int ostio__sys_parse(const char *text, size_t len, ostio__sys *out);
/* Reads and parses a file; OSTIO_EIO with a detail when it cannot be read. */
int ostio__sys_load(const char *path, ostio__sys *out);
/* Checks a filled struct (the parser calls it) against the ranges of
 * docs/model.md: bandwidths and rates > 0 (net_bw may be 0: no cap), times
 * >= 0, counts >= 1, rpc_bytes 4 KiB - 4 GiB, lock_expand 0 or 1, strings
 * NUL-terminated; OSTIO_EINVAL with a detail naming the field and its key. */
int ostio__sys_check(const ostio__sys *s);

#endif
