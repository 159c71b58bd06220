/* ostio map: which stripes, objects and OSTs an extent of a file touches,
 * with the offset inside each object. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "container/container.h"
#include "core/error.h"
#include "hints/hints.h"
#include "container/layout_sources.h"
#include "tools/cli.h"

#define CMD "map"

static const char *help =
  "Usage: ostio map [--json] [--max-pieces N] PATH OFFSET LENGTH\n\n"
  "Splits the extent [OFFSET, OFFSET+LENGTH) of PATH at stripe and component\n"
  "boundaries and shows, for each piece, its stripe, object, OST and the offset\n"
  "inside the object; then a summary per object. OFFSET and LENGTH accept the\n"
  "suffixes k, m, g, t. PATH need not exist if OSTIO_HINTS gives its striping;\n"
  "otherwise its layout is read as `ostio getstripe` does. For a striped\n"
  "container the objects are its object files, named in the summary.\n"
  "With object sets (Ceph, object_size in `ostio getstripe`) the `object` of a\n"
  "piece is its column (stripe mod stripe count, the stream ostio's strategies\n"
  "group by) and object_offset the offset in that column; the columns\n"
  "ceph_object and ceph_offset give the exact object number and the offset in\n"
  "it, and on CephFS the JSON names the RADOS object (INODEHEX.%08x).\n\n"
  "Options:\n"
  "  --max-pieces N  list at most N pieces (default 64; 0 lists all)\n"
  "  --json          machine-readable output\n"
  "  -h, --help      show this help\n";

/* The per-object summary and the piece count, by arithmetic per stripe
 * period (ostio__layout_summary): bounded work whatever LENGTH is. */
static int summarise(const ostio_layout *l, int64_t off, int64_t len, ostio__objspan **out,
                     size_t *n, int64_t *npieces)
{
  size_t cap = 0;
  for (int i = 0; i < l->ncomp; i++) cap += (size_t)l->comp[i].stripe_count;
  ostio__objspan *s = calloc(cap ? cap : 1, sizeof *s);
  if (!s) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  int rc = ostio__layout_summary(l, off, len, npieces, s, cap, n);
  if (rc < 0) {
    free(s);
    return rc;
  }
  *out = s;
  return 0;
}

static int parse_extent(const char *what, const char *arg, int64_t *v)
{
  int rc = ostio__parse_size(arg, v);
  if (rc == 0) return 0;
  return cli_usage_error(CMD, "%s '%s': expected a non-negative byte count such as 4096, "
                         "1m or 5g", what, arg);
}

int cmd_map(int argc, char **argv)
{
  static const struct option opts[] = {
    {"json", no_argument, NULL, OPT_JSON}, {"max-pieces", required_argument, NULL, OPT_MAX_PIECES},
    {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  int json = 0, c, status = CLI_OK;
  int64_t maxp = 64, off, len;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == OPT_JSON) json = 1;
    else if (c == 'h') { fputs(help, stdout); return CLI_OK; }
    else if (c == OPT_MAX_PIECES) {
      if (ostio__parse_int(optarg, &maxp) < 0 || maxp < 0)
        return cli_usage_error(CMD, "--max-pieces '%s': expected a number >= 0", optarg);
    } else return cli_bad_option(CMD, argv);
  }
  if (argc - optind != 3) return cli_usage_error(CMD, "expected PATH OFFSET LENGTH");
  const char *path = argv[optind];
  if (parse_extent("offset", argv[optind + 1], &off) || parse_extent("length", argv[optind + 2], &len))
    return CLI_USAGE;
  if (len > INT64_MAX - off)
    return cli_usage_error(CMD, "offset + length is past 2^63-1 bytes");

  ostio__hints h;
  ostio_layout *l = NULL;
  ostio__ctr *ctr = NULL;
  ostio__objspan *objs = NULL;
  size_t nobj = 0;
  struct stat st;
  char why[200];
  const char *refused = cli_no_layout(path, why, sizeof why);
  if (refused) return cli_runtime_error(CMD, "%s: %s", path, refused);
  int rc = ostio__hints_resolve_env(path, &h);
  /* A path that does not exist yet is mapped with the striping it would be
   * created with, when OSTIO_HINTS gives one. */
  if (rc == 0 && stat(path, &st) < 0 && errno == ENOENT &&
      ostio__hints_give_striping(&h))
    h.ostio_layout_source = OSTIO__SRC_HINTS;
  if (rc == 0) rc = ostio__layout_resolve(path, &h, &l);
  int64_t npieces = 0;
  if (rc == 0) rc = summarise(l, off, len, &objs, &nobj, &npieces);
  /* A container: name the object file each object is. */
  if (rc == 0 && !strcmp(l->source, "container")) rc = ostio__ctr_open(path, 0, &ctr);
  if (rc < 0) { status = cli_lib_error(CMD, rc); goto done; }

  /* Object sets: the exact object of each piece too; on CephFS, named as
   * RADOS names it (the inode number in hex, the object number). */
  int objsets = 0;
  for (int i = 0; i < l->ncomp; i++) objsets |= l->comp[i].object_size > 0;
  int rados_names = objsets && !strcmp(l->source, "ceph") && stat(path, &st) == 0 &&
                    S_ISREG(st.st_mode);
  ostio__piece_iter it = {0};
  ostio_piece p;
  int64_t listed = 0, limit = maxp && maxp < npieces ? maxp : npieces;
  ostio__piece_iter_init(&it, l, off, len);
  if (json) {
    printf("{\"path\": ");
    json_string(stdout, path);
    printf(", \"offset\": %" PRId64 ", \"length\": %" PRId64 ", \"layout\": ", off, len);
    json_layout(stdout, l);
    printf(", \"pieces\": [");
  } else {
    printf("%s: extent %" PRId64 "+%" PRId64 ", %s layout\n", path, off, len, l->source);
    printf("%16s %12s %5s %12s %7s %6s %16s", "file_offset", "length", "comp", "stripe",
           "object", "ost", "object_offset");
    if (objsets) printf(" %12s %12s", "ceph_object", "ceph_offset");
    printf("\n");
  }
  /* Only the pieces listed are walked; the totals came from the summary. */
  while (listed < limit && ostio__piece_iter_next(&it, &p) == 1) {
    int64_t objno, objoff;
    ostio__piece_object(l, &p, &objno, &objoff);
    listed++;
    if (json) {
      printf("%s{\"file_offset\": %" PRId64 ", \"length\": %" PRId64 ", \"component\": %d"
             ", \"stripe\": %" PRId64 ", \"object\": %d, \"ost\": %d, \"object_offset\": %" PRId64,
             listed > 1 ? ", " : "", p.file_offset, p.length, p.component, p.stripe, p.object,
             p.ost, p.object_offset);
      if (objsets) printf(", \"ceph_object\": %" PRId64 ", \"ceph_offset\": %" PRId64, objno, objoff);
      if (objsets && rados_names)
        printf(", \"ceph_object_name\": \"%llx.%08llx\"", (unsigned long long)st.st_ino,
               (unsigned long long)objno);
      printf("}");
    } else {
      printf("%16" PRId64 " %12" PRId64 " %5d %12" PRId64 " %7d %6d %16" PRId64, p.file_offset,
             p.length, p.component, p.stripe, p.object, p.ost, p.object_offset);
      if (objsets) printf(" %12" PRId64 " %12" PRId64, objno, objoff);
      printf("\n");
    }
  }
  if (json) {
    printf("], \"pieces_total\": %" PRId64 ", \"pieces_listed\": %" PRId64 ", \"objects\": [",
           npieces, listed);
    for (size_t i = 0; i < nobj; i++)
      printf("%s{\"component\": %d, \"object\": %d, \"ost\": %d, \"pieces\": %" PRId64
             ", \"bytes\": %" PRId64 ", \"object_start\": %" PRId64 ", \"object_end\": %" PRId64 "}",
             i ? ", " : "", objs[i].component, objs[i].object, objs[i].ost, objs[i].pieces,
             objs[i].bytes, objs[i].first_objoff, objs[i].last_objend);
    if (ctr) {
      printf("], \"object_files\": [");
      for (int32_t i = 0; i < ctr->m.nobjects; i++)
        printf("%s\"%s\"", i ? ", " : "", ctr->m.names[i]);
    }
    printf("]}\n");
  } else {
    if (listed < npieces)
      printf("... %" PRId64 " more pieces (use --max-pieces 0 to list all)\n", npieces - listed);
    printf("%" PRId64 " piece%s over %zu object%s:\n", npieces, npieces == 1 ? "" : "s", nobj,
           nobj == 1 ? "" : "s");
    for (size_t i = 0; i < nobj; i++)
      printf("  comp %d object %d ost %d: %" PRId64 " piece%s, %" PRId64
             " bytes, object range [%" PRId64 ", %" PRId64 ")\n",
             objs[i].component, objs[i].object, objs[i].ost, objs[i].pieces,
             objs[i].pieces == 1 ? "" : "s", objs[i].bytes, objs[i].first_objoff,
             objs[i].last_objend);
    for (size_t i = 0; ctr && i < nobj; i++)
      printf("  object %d is the file %s/%s\n", objs[i].object, path,
             ctr->m.names[objs[i].object]);
  }
done:
  ostio__ctr_close(&ctr, 0);
  free(objs);
  ostio__layout_destroy(l);
  return status;
}
