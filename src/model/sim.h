/* The simulator of `ostio model` (issue 18): turns the traffic of one
 * collective call (traffic.h) into time on a described cluster (sysdesc.h).
 * A flow-level model: every resource is a server of known capacity, a phase
 * lasts as long as its busiest resource (or its longest lone path), and the
 * phases run one after the other. Pure: no MPI, no I/O, no global state.
 * Work O(flows + ranks + OSTs); memory in docs/model-sim.md, "Cost".
 *
 * Formulas (every time in seconds, every rate in bytes/s; s = the system):
 *
 *   time      = t_meta + t_exchange + t_io_phase
 *   bandwidth = bytes / time            (0 when time is 0)
 *
 * Metadata:   t_meta = opens / mds_rate.
 *
 * Exchange (two-phase, before the I/O). Rank i sits on node i / ranks_per_node.
 * Per node n:  S_n, R_n = bytes its ranks send, receive;
 *              node_n = max(S_n, R_n) / nic_bw + max_{i on n} send_msgs_i * net_latency
 *   t_exchange = max(max_n node_n, max(sum S, sum R) / net_bw)   (net_bw 0: no cap)
 *                + syncs * (k - 1) * sched_quantum   when k = ranks_per_node /
 *                  cores_per_node > 1 (each collective synchronisation waits
 *                  for descheduled ranks; syncs from the traffic)
 *
 * I/O. A flow (client c, OST o, object j, B bytes, q requests) is cut into
 * RPCs of at most rpc_bytes, its q requests taken as equal as integers allow:
 *   rpcs = m * ceil((B/q + 1) / rpc_bytes) + (q - m) * ceil((B/q) / rpc_bytes),
 *   m = B mod q                                   (integer division)
 * Locks (LDLM extent locks, one lock domain per object j). For object j with
 * requests R_j in total, r_{j,c} of them by client c, k_j distinct clients:
 *   lock_expand 1: grants_j = 1, conflicts_j = R_j - sum_c r_{j,c}^2 / R_j
 *     (k_j = 1 gives 0; k_j clients with equal shares give R_j (k_j-1)/k_j:
 *     the expected number of changes of holder when the requests interleave
 *     at random, each a callback, flush, cancel and new grant)
 *   lock_expand 0: grants_j = R_j, conflicts_j = 0 (each request locks its
 *     own extent; the clients' extents are disjoint, so locks are compatible)
 *   lock_j = grants_j * lock_grant + conflicts_j * lock_conflict, serialized
 *   at the object's OST.
 * Resource loads (the time each resource is busy):
 *   OST o:     bytes_o / ost_bw + rpcs_o * ost_req + sum_{j on o} lock_j
 *   OSS v:     sum of bytes_o over its OSTs (o / osts_per_oss == v) / oss_bw
 *   client c:  bytes_c / client_bw
 *   NIC n:     bytes of the ranks of node n / nic_bw
 *   network:   bytes / net_bw                           (net_bw 0: none)
 * Lone path of group g = the flows of one client to one object, with
 * bytes_g, rpcs_g, r_g = its requests:
 *   path_g = wait_g + bytes_g / bw_min + rpcs_g * ost_req
 *   bw_min = min(client_bw, nic_bw, oss_bw, ost_bw, net_bw if > 0)
 *   wait_g = lock_grant + r_g (1 - r_g / R_j) lock_conflict   (lock_expand 1)
 *          = r_g * lock_grant                                 (lock_expand 0)
 * Serial path of client c (when rpcs_in_flight > 0): a client keeps at most
 * rpcs_in_flight requests outstanding, each waiting for its lock and its
 * transfer, across all the objects it writes:
 *   serial_c = sum_{g of c} path_g / rpcs_in_flight
 *   t_io_phase = max(every resource load, every path_g, every serial_c)
 *                                                            (0 without flows)
 *
 * The I/O phase is split, in this order, into
 *   t_io    = min(t_io_phase, max_g (bytes_g / bw_min + rpcs_g * ost_req)):
 *             the transfer of the longest lone path, without locks
 *   t_lock  = min(t_io_phase - t_io, lock part of the critical element: the
 *             sum of lock_j of a critical OST, wait_g of a critical path,
 *             0 for a link)
 *   t_queue = t_io_phase - t_io - t_lock: waiting for other flows at the
 *             shared resources (OSTs, OSS links, NICs, clients, network).
 * The bottleneck is the critical element of the longest phase (the
 * metadata server, the exchange's node NIC, its message latency or the
 * network, or the I/O phase's critical element; on ties the first in the
 * order OST, OSS, NIC, client, network, path). */
#ifndef OSTIO_MODEL_SIM_H
#define OSTIO_MODEL_SIM_H

#include <stdint.h>

#include "model/sysdesc.h"
#include "model/traffic.h"


typedef enum ostio__sim_res {
  OSTIO__SIM_NONE = 0,     /* nothing to do: time 0                            */
  OSTIO__SIM_OST,          /* I/O: an OST (index: the OST)                     */
  OSTIO__SIM_OSS,          /* I/O: an OSS link (index: the OSS)                */
  OSTIO__SIM_NIC,          /* I/O: a node's NIC (index: the node)              */
  OSTIO__SIM_CLIENT,       /* I/O: a process's file system client (the rank)   */
  OSTIO__SIM_NETWORK,      /* I/O: the network's aggregate cap                 */
  OSTIO__SIM_PATH,         /* I/O: one client's lone path (index: the rank)    */
  OSTIO__SIM_SERIAL,       /* I/O: one client's requests, rpcs_in_flight at a
                            * time (index: the rank)                           */
  OSTIO__SIM_EXCH_NIC,     /* exchange: a node's NIC bytes (index: the node)   */
  OSTIO__SIM_EXCH_LATENCY, /* exchange: a rank's messages (index: the rank)    */
  OSTIO__SIM_EXCH_NETWORK, /* exchange: the network's aggregate cap            */
  OSTIO__SIM_MDS,          /* metadata: the opens                              */
  OSTIO__SIM_EXCH_SYNC     /* exchange: synchronisations of ranks that outnumber
                            * their cores                                     */
} ostio__sim_res;

/* What one OST saw. */
typedef struct ostio__sim_ost {
  int64_t bytes;
  int64_t rpcs;            /* requests after cutting at rpc_bytes              */
  int64_t grants;          /* uncontended lock grants                          */
  int64_t clients;         /* distinct clients                                 */
  int64_t objects;         /* distinct objects (lock domains)                  */
  double conflicts;        /* expected conflicting lock requests               */
  double lock;             /* s: grants and conflicts served here              */
  double busy;             /* s: its load (formula above)                      */
} ostio__sim_ost;

typedef struct ostio__sim_result {
  double time;             /* s                                                */
  double bandwidth;        /* bytes / time, bytes/s                            */
  /* the time split: t_meta + t_exchange + t_io + t_lock + t_queue == time     */
  double t_meta, t_exchange;
  double t_io_phase;       /* t_io + t_lock + t_queue                          */
  double t_io, t_lock, t_queue;
  int64_t bytes;           /* through the file system: sum of flows' bytes     */
  int64_t requests;        /* as given                                         */
  int64_t rpcs;            /* after cutting at rpc_bytes                       */
  int64_t grants;
  double conflicts;        /* expected lock conflicts, all objects             */
  int64_t objects;         /* distinct objects                                 */
  int64_t shared_objects;  /* objects written by two clients or more           */
  int64_t exchange_bytes;  /* max(sum sent, sum received)                      */
  int64_t max_osts_per_client;
  int64_t max_clients_per_ost;
  ostio__sim_res bottleneck_kind;
  int64_t bottleneck_index; /* -1 when the kind has no index                   */
  char bottleneck[64];     /* e.g. "ost 3", "oss link 1", "exchange: nic of node 0" */
  int64_t nost;
  ostio__sim_ost *ost;     /* nost entries, owned: ostio__sim_result_free      */
} ostio__sim_result;

/* Simulates t on s into r (r is overwritten; free it with
 * ostio__sim_result_free whatever the outcome). OSTIO_EINVAL with a detail
 * for a NULL argument, a system value out of range, a flow naming a client
 * outside [0, nranks) or an OST outside [0, nost), bytes < 1, requests < 1
 * or above its bytes, an object on two OSTs, negative exchange numbers,
 * more ranks than the system holds, or sums that overflow int64;
 * OSTIO_ENOMEM when the scratch cannot be allocated. */
int ostio__sim_run(const ostio__sys *s, const ostio__traffic *t, ostio__sim_result *r);

/* Frees what ostio__sim_run allocated in r; safe on a zeroed or freed r. */
void ostio__sim_result_free(ostio__sim_result *r);

#endif
