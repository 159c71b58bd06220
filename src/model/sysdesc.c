/* System descriptions (sysdesc.h): one table of keys drives the parser,
 * the check of a filled struct and the lists in error messages. Keys carry
 * their unit in the name (MBps = 10^6 bytes per second, us = microseconds);
 * the struct holds SI units. docs/model.md, "System descriptions", documents
 * every key and must follow this table. */
#include "model/sysdesc.h"

#include "core/error.h"
#include "model/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FORMAT_VERSION 1
#define NOT_STORED ((size_t)-1)
#define MBPS 1e6                   /* bytes per second in one MB/s      */
#define US 1e-6                    /* seconds in one microsecond        */

typedef enum { K_VERSION, K_STR, K_I64, K_INT, K_F64, K_BOOL } kind;

typedef struct field {
  const char *key;                 /* the JSON key                              */
  const char *member;              /* the struct member (for ostio__sys_check)  */
  kind kind;
  size_t off, cap;                 /* where in the struct; strings: buffer size */
  double scale;                    /* key unit -> struct unit                   */
  double lo, hi;                   /* accepted range in key units (strings:
                                    * length in bytes)                          */
  int lo_open;                     /* 1: more than lo, lo itself refused        */
  int required;
  double dflt;                     /* optional keys: default in key units       */
  const char *unit;                /* the key's unit, for messages              */
  const char *what;                /* what it is, for messages                  */
} field;

#define OFF(m) offsetof(ostio__sys, m)
#define BW(key_, m, req, what_)                                                   \
  {.key = key_, .member = #m, .kind = K_F64, .off = OFF(m), .scale = MBPS, .lo = 0,  \
   .hi = 1e9, .lo_open = 1, .required = req, .unit = "MB/s", .what = what_}
#define TIME(key_, m, what_)                                                      \
  {.key = key_, .member = #m, .kind = K_F64, .off = OFF(m), .scale = US, .lo = 0,    \
   .hi = 1e7, .required = 1, .unit = "us", .what = what_}

static const field fields[] = {
  {.key = "ostio_system", .member = NULL, .kind = K_VERSION, .off = NOT_STORED, .scale = 1,
   .lo = FORMAT_VERSION, .hi = FORMAT_VERSION, .required = 1, .unit = "format version",
   .what = "the format version of the description"},
  {.key = "name", .member = "name", .kind = K_STR, .off = OFF(name),
   .cap = sizeof(((ostio__sys *)0)->name), .lo = 1, .hi = 63, .required = 1,
   .unit = "bytes", .what = "the system's name, printed in reports"},
  {.key = "source", .member = "source", .kind = K_STR, .off = OFF(source),
   .cap = sizeof(((ostio__sys *)0)->source), .lo = 0, .hi = 511, .required = 0,
   .unit = "bytes", .what = "where the numbers come from"},
  {.key = "nodes", .member = "nodes", .kind = K_I64, .off = OFF(nodes), .scale = 1, .lo = 1,
   .hi = 1e7, .required = 1, .unit = "nodes", .what = "compute nodes"},
  {.key = "ranks_per_node", .member = "ranks_per_node", .kind = K_INT,
   .off = OFF(ranks_per_node), .scale = 1, .lo = 1, .hi = 65536, .required = 1,
   .unit = "ranks", .what = "MPI ranks per node"},
  {.key = "cores_per_node", .member = "cores_per_node", .kind = K_INT,
   .off = OFF(cores_per_node), .scale = 1, .lo = 0, .hi = 65536, .required = 0, .dflt = 0,
   .unit = "cores", .what = "cores that run the node's ranks (0: at least one per rank)"},
  {.key = "sched_quantum_us", .member = "sched_quantum", .kind = K_F64,
   .off = OFF(sched_quantum), .scale = US, .lo = 0, .hi = 1e7, .required = 0, .dflt = 0,
   .unit = "us", .what = "a collective synchronisation's cost per extra rank per core when "
                         "ranks outnumber cores (the scheduler's time slice)"},
  BW("nic_bw_MBps", nic_bw, 1, "one node's link into the network"),
  BW("client_bw_MBps", client_bw, 0,
     "what one process moves through its file system client (default: nic_bw_MBps)"),
  TIME("net_latency_us", net_latency, "one message between two ranks"),
  {.key = "net_bw_MBps", .member = "net_bw", .kind = K_F64, .off = OFF(net_bw),
   .scale = MBPS, .lo = 0, .hi = 1e9, .required = 0, .dflt = 0, .unit = "MB/s",
   .what = "the network's aggregate cap (0: none)"},
  {.key = "oss_count", .member = "noss", .kind = K_INT, .off = OFF(noss), .scale = 1,
   .lo = 1, .hi = 1e6, .required = 1, .unit = "servers", .what = "object storage servers"},
  {.key = "osts_per_oss", .member = "osts_per_oss", .kind = K_INT, .off = OFF(osts_per_oss),
   .scale = 1, .lo = 1, .hi = 1024, .required = 1, .unit = "targets",
   .what = "object storage targets behind each server"},
  BW("oss_bw_MBps", oss_bw, 1, "one server's network link"),
  BW("ost_bw_MBps", ost_bw, 1, "one target, large sequential requests"),
  TIME("ost_req_us", ost_req, "a target's service time per request besides its bytes"),
  {.key = "rpc_bytes", .member = "rpc_bytes", .kind = K_I64, .off = OFF(rpc_bytes),
   .scale = 1, .lo = 4096, .hi = 4294967296.0, .required = 0, .dflt = 1048576,
   .unit = "bytes", .what = "the largest request a client sends"},
  {.key = "client_rpcs_in_flight", .member = "rpcs_in_flight", .kind = K_INT,
   .off = OFF(rpcs_in_flight), .scale = 1, .lo = 0, .hi = 256, .required = 0, .dflt = 8,
   .unit = "requests",
   .what = "requests one client keeps in flight at once (Lustre's max_rpcs_in_flight; "
           "1: one at a time, as liblustre; 0: not limited)"},
  TIME("lock_grant_us", lock_grant, "an uncontended extent lock granted"),
  TIME("lock_conflict_us", lock_conflict,
       "a conflicting lock request: callback, the holder's flush and cancel, the grant"),
  {.key = "lock_expand", .member = "lock_expand", .kind = K_BOOL, .off = OFF(lock_expand),
   .scale = 1, .lo = 0, .hi = 1, .required = 0, .dflt = 1, .unit = "true or false",
   .what = "an uncontended lock covers the whole object"},
  {.key = "mds_ops_per_s", .member = "mds_rate", .kind = K_F64, .off = OFF(mds_rate),
   .scale = 1, .lo = 0, .hi = 1e12, .lo_open = 1, .required = 1, .unit = "ops/s",
   .what = "opens or creates the metadata server completes per second"},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

int64_t ostio__sys_nost(const ostio__sys *s)
{
  return s ? (int64_t)s->noss * s->osts_per_oss : 0;
}

/* ---- messages ------------------------------------------------------- */

static void key_list(char *buf, size_t cap, int required_only)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < NFIELDS && used < cap; i++) {
    if (required_only && !fields[i].required) continue;
    int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", fields[i].key);
    if (n < 0) break;
    used += (size_t)n;
  }
}

/* "accepted: ..." for a numeric field, in the units given by scale (1: key units). */
static void range_text(const field *f, double scale, const char *unit, char *buf, size_t cap)
{
  if (f->kind == K_BOOL) snprintf(buf, cap, "true or false");
  else if (f->lo == f->hi) snprintf(buf, cap, "%.15g", f->lo * scale);
  else
    snprintf(buf, cap, "%s %.15g %s %.15g %s", f->lo_open ? "more than" : "from",
             f->lo * scale, f->lo_open ? "and at most" : "to", f->hi * scale, unit);
}

/* "null", "a boolean", "an integer", ...: what a value is, for messages. */
static const char *type_phrase(ostio__json_type t)
{
  switch (t) {
  case OSTIO__JSON_NULL: return "null";
  case OSTIO__JSON_BOOL: return "a boolean";
  case OSTIO__JSON_INT: return "an integer";
  case OSTIO__JSON_DOUBLE: return "a number with a fraction or exponent";
  case OSTIO__JSON_STRING: return "a string";
  case OSTIO__JSON_ARRAY: return "an array";
  case OSTIO__JSON_OBJECT: return "an object";
  }
  return "unknown";
}

static const char *expected_type(const field *f)
{
  switch (f->kind) {
  case K_STR: return "a string";
  case K_BOOL: return "true or false";
  case K_F64: return "a number";
  default: return "an integer";
  }
}

static int fail_type(const field *f, const ostio__json *v)
{
  char r[160];
  range_text(f, 1, f->unit, r, sizeof r);
  return ostio__fail(OSTIO_EINVAL, "system description line %d column %d: key \"%s\" is %s; "
                     "expected %s (%s)%s%s", v->line, v->col, f->key, type_phrase(v->type),
                     expected_type(f), f->what, f->kind == K_BOOL ? "" : ", accepted: ",
                     f->kind == K_BOOL ? "" : r);
}

static int fail_range(const field *f, const ostio__json *v, double x)
{
  char r[160];
  range_text(f, 1, f->unit, r, sizeof r);
  return ostio__fail(OSTIO_EINVAL, "system description line %d column %d: key \"%s\" is %.15g; "
                     "accepted: %s (%s)", v->line, v->col, f->key, x, r, f->what);
}

/* ---- parsing -------------------------------------------------------- */

static int in_range(const field *f, double x)
{
  return (f->lo_open ? x > f->lo : x >= f->lo) && x <= f->hi;
}

static int set_string(const field *f, const ostio__json *v, ostio__sys *s)
{
  const char *str = v->u.str.s;
  size_t len = v->u.str.len;
  if ((double)len < f->lo || (double)len > f->hi)
    return ostio__fail(OSTIO_EINVAL, "system description line %d column %d: key \"%s\" has "
                       "%zu bytes; accepted: %.0f to %.0f bytes (%s)", v->line, v->col, f->key,
                       len, f->lo, f->hi, f->what);
  for (size_t i = 0; i < len; i++)
    if (str[i] == '\0' || (f->off == OFF(name) && (unsigned char)str[i] < 0x20))
      return ostio__fail(OSTIO_EINVAL, "system description line %d column %d: key \"%s\" "
                         "holds control character 0x%02X; accepted: printable text", v->line,
                         v->col, f->key, (unsigned char)str[i]);
  memcpy((char *)s + f->off, str, len + 1);
  return 0;
}

/* An integer value (already checked against the range) into its field. */
static void store_int(const field *f, int64_t i, ostio__sys *s)
{
  if (f->kind == K_I64) {
    memcpy((char *)s + f->off, &i, sizeof i);
  } else if (f->kind == K_INT || f->kind == K_BOOL) {
    int n = (int)i;
    memcpy((char *)s + f->off, &n, sizeof n);
  }
}

static int set_field(const field *f, const ostio__json *v, ostio__sys *s)
{
  if (f->kind == K_STR) {
    if (v->type != OSTIO__JSON_STRING) return fail_type(f, v);
    return set_string(f, v, s);
  }
  if (f->kind == K_BOOL) {
    if (v->type != OSTIO__JSON_BOOL) return fail_type(f, v);
    store_int(f, v->u.b, s);
    return 0;
  }
  if (f->kind == K_F64) {
    if (v->type != OSTIO__JSON_INT && v->type != OSTIO__JSON_DOUBLE) return fail_type(f, v);
    double x = v->type == OSTIO__JSON_INT ? (double)v->u.i : v->u.d;
    if (!in_range(f, x)) return fail_range(f, v, x);
    double si = x * f->scale;
    memcpy((char *)s + f->off, &si, sizeof si);
    return 0;
  }
  if (v->type != OSTIO__JSON_INT) return fail_type(f, v);      /* K_I64, K_INT, K_VERSION */
  if (!in_range(f, (double)v->u.i)) return fail_range(f, v, (double)v->u.i);
  store_int(f, v->u.i, s);
  return 0;
}

static const field *find_field(const char *key, size_t len)
{
  for (size_t i = 0; i < NFIELDS; i++)
    if (strlen(fields[i].key) == len && memcmp(fields[i].key, key, len) == 0) return &fields[i];
  return NULL;
}

static int fail_unknown(const ostio__json_member *m)
{
  char keys[1024];
  key_list(keys, sizeof keys, 0);
  return ostio__fail(OSTIO_EINVAL, "system description line %d column %d: unknown key \"%.64s\"; "
                     "accepted keys: %s (docs/model.md, \"System descriptions\")", m->line,
                     m->col, m->key, keys);
}

static int fail_missing(const field *f)
{
  char keys[1024];
  key_list(keys, sizeof keys, 1);
  return ostio__fail(OSTIO_EINVAL, "system description: missing required key \"%s\" (%s: "
                     "%s%s%s); required keys: %s", f->key, f->what, expected_type(f),
                     f->kind == K_STR ? "" : ", ", f->kind == K_STR ? "" : f->unit, keys);
}

/* Optional keys left out: their defaults (client_bw: nic_bw). */
static void set_default(const field *f, ostio__sys *s)
{
  if (f->off == OFF(client_bw)) {
    s->client_bw = s->nic_bw;
  } else if (f->kind == K_F64) {
    double si = f->dflt * f->scale;
    memcpy((char *)s + f->off, &si, sizeof si);
  } else if (f->kind != K_STR) {
    store_int(f, (int64_t)f->dflt, s);
  }                                 /* strings: empty, as zeroed */
}

static int fill(const ostio__json *root, ostio__sys *s)
{
  unsigned char seen[NFIELDS] = {0};
  if (root->type != OSTIO__JSON_OBJECT)
    return ostio__fail(OSTIO_EINVAL, "system description line %d column %d: the document is "
                       "%s; expected an object of keys (docs/model.md, \"System "
                       "descriptions\")", root->line, root->col, type_phrase(root->type));
  for (size_t i = 0; i < root->u.obj.n; i++) {
    const ostio__json_member *m = &root->u.obj.m[i];
    const field *f = find_field(m->key, m->keylen);
    if (!f) return fail_unknown(m);
    int rc = set_field(f, &m->value, s);
    if (rc < 0) return rc;
    seen[f - fields] = 1;
  }
  for (size_t i = 0; i < NFIELDS; i++)         /* required first: a default may use one */
    if (!seen[i] && fields[i].required) return fail_missing(&fields[i]);
  for (size_t i = 0; i < NFIELDS; i++)
    if (!seen[i]) set_default(&fields[i], s);
  return 0;
}

int ostio__sys_parse(const char *text, size_t len, ostio__sys *out)
{
  ostio__json *root = NULL;
  ostio__sys s;
  if (!out) return ostio__fail(OSTIO_EINVAL, "ostio__sys_parse: NULL result");
  memset(&s, 0, sizeof s);
  int rc = ostio__json_parse(text, len, &root);
  if (rc == 0) rc = fill(root, &s);
  if (rc == 0) rc = ostio__sys_check(&s);
  if (rc == 0) *out = s;
  ostio__json_free(root);
  return rc;
}

/* ---- the check of a filled struct ------------------------------------ */

static int check_field(const field *f, const ostio__sys *s)
{
  const char *base = (const char *)s + f->off;
  double x;
  if (f->kind == K_STR) {
    if (strnlen(base, f->cap) == f->cap)        /* an empty name is the parser's concern */
      return ostio__fail(OSTIO_EINVAL, "system description: field %s (key \"%s\") is not "
                         "NUL-terminated; accepted: at most %.0f bytes", f->member, f->key, f->hi);
    return 0;
  }
  if (f->kind == K_F64) {
    memcpy(&x, base, sizeof x);
  } else if (f->kind == K_I64) {
    int64_t i;
    memcpy(&i, base, sizeof i);
    x = (double)i;
  } else {
    int i;
    memcpy(&i, base, sizeof i);
    x = i;
  }
  if (isfinite(x) && (f->lo_open ? x > f->lo * f->scale : x >= f->lo * f->scale) &&
      x <= f->hi * f->scale)
    return 0;
  char r[160];
  const char *unit = f->scale == MBPS ? "B/s" : f->scale == US ? "s" : f->unit;
  range_text(f, f->scale, unit, r, sizeof r);
  return ostio__fail(OSTIO_EINVAL, "system description: field %s (key \"%s\") is %.15g; "
                     "accepted: %s (%s)", f->member, f->key, x, r, f->what);
}

int ostio__sys_check(const ostio__sys *s)
{
  if (!s) return ostio__fail(OSTIO_EINVAL, "ostio__sys_check: NULL system");
  for (size_t i = 0; i < NFIELDS; i++) {
    if (fields[i].off == NOT_STORED) continue;
    int rc = check_field(&fields[i], s);
    if (rc < 0) return rc;
  }
  return 0;
}

/* ---- files ---------------------------------------------------------- */

/* The whole of fd into a new buffer, at most OSTIO__JSON_MAX_BYTES + 1 bytes
 * (one more than accepted, so the parser names the limit). 0 or an errno. */
static int read_all(int fd, char **out, size_t *outlen)
{
  size_t cap = 65536, len = 0;
  char *buf = malloc(cap);
  if (!buf) return ENOMEM;
  for (;;) {
    if (len == cap) {
      if (cap > OSTIO__JSON_MAX_BYTES) break;
      char *nb = realloc(buf, cap * 2);
      if (!nb) { free(buf); return ENOMEM; }
      buf = nb;
      cap *= 2;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { int e = errno; free(buf); return e; }
    if (n == 0) break;
    len += (size_t)n;
  }
  *out = buf;
  *outlen = len;
  return 0;
}

int ostio__sys_load(const char *path, ostio__sys *out)
{
  char *text = NULL;
  size_t len = 0;
  if (!path || !out) return ostio__fail(OSTIO_EINVAL, "ostio__sys_load: NULL argument");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ostio__fail(OSTIO_EIO, "system description %s cannot be opened: %s", path,
                       strerror(errno));
  int e = read_all(fd, &text, &len);
  close(fd);
  if (e == ENOMEM) return ostio__fail(OSTIO_ENOMEM, "system description %s: out of memory", path);
  if (e) return ostio__fail(OSTIO_EIO, "system description %s cannot be read: %s", path,
                            strerror(e));
  int rc = ostio__sys_parse(text, len, out);
  free(text);
  if (rc < 0) {
    char detail[1536];
    snprintf(detail, sizeof detail, "%s", ostio_last_error());
    return ostio__fail(rc, "%s: %s", path, detail);
  }
  return 0;
}
