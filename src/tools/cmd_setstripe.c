/* ostio setstripe: create a file with a layout, give one to an empty file,
 * or set a directory's default; options follow `lfs setstripe`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hints/hints.h"
#include "container/layout_sources.h"
#include "tools/cli.h"

static const char *help =
  "Usage: ostio setstripe [-E END] -c COUNT [-S SIZE] [-i FIRST] [-o LIST] [-p POOL]\n"
  "                       [--object-size SIZE] [-E END ...] [--json] PATH\n"
  "       ostio setstripe -C COUNT -o LIST [-S SIZE] PATH       (overstriping)\n\n"
  "Creates PATH as an empty file with the given layout, gives the layout to PATH\n"
  "when it is an existing empty file, or sets the default layout of directory\n"
  "PATH for files created in it later. A file that holds data is refused, as on\n"
  "Lustre, where a layout cannot change once objects exist. On Lustre the layout\n"
  "is set through the Lustre interface; elsewhere it is kept in the emulated\n"
  "user.ostio.layout extended attribute, and objects without -o get the OSTs\n"
  "FIRST, FIRST+1, ... (FIRST from -i, else 0), as files created by ostio_open\n"
  "with striping hints do. On CephFS the layout is Ceph's (ceph.file.layout,\n"
  "ceph.dir.layout): stripe unit -S, stripe count -c, object size --object-size\n"
  "(default: 4 MiB rounded up to a multiple of -S); Ceph places the objects, so\n"
  "-i, -o and -C do not apply there. Stripe sizes are multiples of 64 KiB (65536\n"
  "bytes) from 64k to 4194240k, as `lfs setstripe` and Ceph require, unless\n"
  "--emulated.\n\n"
  "Options (they apply to the current component):\n"
  "  -c, --stripe-count N      objects to stripe over (1..2000)\n"
  "  -C, --overstripe-count N  objects, allowed to share OSTs (overstriping)\n"
  "  -S, --stripe-size SIZE    bytes per stripe, suffixes k, m, g (default 1m)\n"
  "  -i, --stripe-index N      OST of the first object (default: any on Lustre,\n"
  "                            0 elsewhere)\n"
  "  -o, --ost LIST            OSTs of the objects in order, e.g. 0,2-4\n"
  "  -p, --pool NAME           OST pool name\n"
  "  --object-size SIZE       bytes per object (Ceph's object sets: once each of\n"
  "                            the COUNT objects holds SIZE bytes, the next COUNT\n"
  "                            objects start); a multiple of the stripe size;\n"
  "                            not on Lustre, whose objects are unbounded\n"
  "  -E, --component-end END   start a PFL component that ends at END (a size, or\n"
  "                            -1 / eof for end of file); later components inherit\n"
  "                            unspecified settings from the previous one\n"
  "  --emulated                allow any stripe size from 1 byte: the layout is an\n"
  "                            emulated one, for testing (off Lustre only; Lustre\n"
  "                            refuses such sizes anyway)\n"
  "  --json                    print the resulting layout as JSON\n"
  "  -h, --help                show this help\n\n"
  "Examples:\n"
  "  ostio setstripe -c 4 -S 1m /scratch/run           (directory default)\n"
  "  ostio setstripe -E 64m -c 1 -E eof -c 8 -S 4m big.dat\n";

#define CMD "setstripe"
#define OPT_EMULATED (OPT_JSON + 100)
#define OPT_OBJECT_SIZE (OPT_JSON + 101)

typedef struct {
  int64_t end, size, object_size;
  int32_t count, first, nosts;
  int over, have_count, have_size, have_first;
  char pool[OSTIO__POOL_MAX + 1];
  int32_t *osts;
} spec;

static int parse_count(const char *arg, const char *what, int32_t *out)
{
  int64_t v;
  if (ostio__parse_int(arg, &v) < 0 || v == 0 || v > OSTIO_MAX_STRIPE_COUNT || v < -1)
    return cli_usage_error(CMD, "%s '%s': expected 1..%d", what, arg, OSTIO_MAX_STRIPE_COUNT);
  if (v == -1)
    return cli_usage_error(CMD, "%s -1 (every OST) is not supported yet: give a number "
                           "1..%d", what, OSTIO_MAX_STRIPE_COUNT);
  *out = (int32_t)v;
  return 0;
}

/* Turns the specs into components; OST lists are made explicit off Lustre. */
static int build(spec *specs, int n, int lustre, int ceph, int emulated, ostio_layout *l)
{
  int64_t start = 0;
  for (int i = 0; i < n; i++) {
    spec *s = &specs[i];
    if (i > 0) { /* inherit what was not given */
      if (!s->have_count) { s->count = specs[i - 1].count; s->over = specs[i - 1].over; }
      if (!s->have_size) s->size = specs[i - 1].size;
      if (!s->object_size) s->object_size = specs[i - 1].object_size;
      if (!s->pool[0]) memcpy(s->pool, specs[i - 1].pool, sizeof s->pool);
    }
    if (s->osts && s->have_count && s->count != s->nosts && !s->over)
      return cli_usage_error(CMD, "-o lists %d OSTs but the stripe count is %d", (int)s->nosts,
                             (int)s->count);
    if (s->osts && !s->have_count) s->count = s->nosts;
    if (ceph && (s->osts || s->have_first || s->over))
      return cli_usage_error(CMD, "%s on CephFS: Ceph places objects by CRUSH, not on chosen "
                             "OSTs; give -c, -S and --object-size", s->osts ? "-o" :
                             s->over ? "-C" : "-i");
    ostio__comp c = {.start = start, .end = s->end, .stripe_size = s->size,
                     .object_size = s->object_size,
                     .stripe_count = s->count, .first_ost = s->have_first ? s->first : -1,
                     .pattern = OSTIO_PATTERN_RAID0 | (s->over ? OSTIO_PATTERN_OVERSTRIPING : 0)};
    memcpy(c.pool, s->pool, sizeof c.pool);
    if (!emulated) {
      char what[64] = "stripe size";
      if (n > 1) snprintf(what, sizeof what, "component %d: stripe size", i + 1);
      if ((ceph ? ostio__check_stripe_align(s->size, what, "Ceph")
                : ostio__check_lustre_stripe_size(s->size, what)) < 0)
        return cli_usage_error(CMD, ceph ? "%s" : "%s; --emulated accepts any size from 1 "
                               "byte, for an emulated layout (testing)", ostio_last_error());
    }
    /* Without -o, Lustre chooses the OSTs; off Lustre the emulated source
     * numbers them from FIRST (ostio__layout_emulated_osts), as it does for
     * the files ostio_open creates. */
    int32_t *osts = NULL;
    if (s->over && !s->osts && !lustre)
      return cli_usage_error(CMD, "overstriping off Lustre needs -o LIST to say which OSTs "
                             "the %d objects share", (int)s->count);
    if (s->osts) {
      osts = malloc(sizeof(int32_t) * (size_t)c.stripe_count);
      if (!osts) return cli_runtime_error(CMD, "out of memory");
      for (int32_t k = 0; k < c.stripe_count; k++) osts[k] = s->osts[k % s->nosts];
      c.osts = osts;
      c.first_ost = osts[0];
      c.instantiated = 1;
    }
    int rc = ostio__layout_add(l, &c);
    free(osts);
    if (rc < 0) return cli_lib_error(CMD, rc);
    start = s->end;
  }
  int rc = ostio__layout_validate(l);
  if (rc == 0 && ceph) rc = ostio__check_ceph_layout(l, "CephFS");
  return rc < 0 ? cli_usage_error(CMD, "%s", ostio_last_error()) : 0;
}

static int apply(const char *path, ostio_layout *want, int json)
{
  struct stat st;
  int is_dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
  ostio_layout *got = NULL;
  /* create() reads the layout back itself; a directory is read back here. */
  int rc = is_dir ? ostio__layout_set_dir_default(path, want)
                  : ostio__layout_create(path, NULL, want, 0666, &got);
  if (rc == 0 && is_dir) rc = ostio__layout_resolve(path, NULL, &got);
  if (rc < 0) return cli_lib_error(CMD, rc);
  if (json) {
    printf("{\"path\": ");
    json_string(stdout, path);
    printf(", \"type\": \"%s\", \"layout\": ", is_dir ? "directory" : "file");
    json_layout(stdout, got);
    printf("}\n");
  } else {
    printf("%s: %s %d component%s, %s layout\n", path,
           is_dir ? "directory default set:" : "layout set:", got->ncomp,
           got->ncomp == 1 ? "" : "s", got->source);
  }
  ostio__layout_destroy(got);
  return CLI_OK;
}

int cmd_setstripe(int argc, char **argv)
{
  static const struct option opts[] = {
    {"stripe-count", required_argument, NULL, 'c'},
    {"overstripe-count", required_argument, NULL, 'C'},
    {"stripe-size", required_argument, NULL, 'S'},
    {"stripe-index", required_argument, NULL, 'i'},
    {"ost", required_argument, NULL, 'o'},
    {"pool", required_argument, NULL, 'p'},
    {"component-end", required_argument, NULL, 'E'},
    {"emulated", no_argument, NULL, OPT_EMULATED},
    {"object-size", required_argument, NULL, OPT_OBJECT_SIZE},
    {"json", no_argument, NULL, OPT_JSON},
    {"help", no_argument, NULL, 'h'},
    {0, 0, 0, 0}};
  spec specs[OSTIO_MAX_COMPONENTS];
  int n = 0, json = 0, emulated = 0, pfl = 0, c, status = CLI_OK;
  int32_t ostbuf[OSTIO_MAX_COMPONENTS][64];
  ostio_layout *l = NULL;
  memset(specs, 0, sizeof specs);
  specs[0] = (spec){.end = OSTIO_EOF, .size = OSTIO__DEFAULT_STRIPE_SIZE, .count = 1};
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "c:C:S:i:o:p:E:h", opts, NULL)) != -1) {
    spec *s = &specs[n];
    int64_t v;
    switch (c) {
    case 'h': fputs(help, stdout); return CLI_OK;
    case OPT_JSON: json = 1; break;
    case OPT_EMULATED: emulated = 1; break;
    case 'c': case 'C':
      if (parse_count(optarg, c == 'c' ? "stripe count" : "overstripe count", &s->count))
        return CLI_USAGE;
      s->have_count = 1;
      s->over = c == 'C';
      break;
    case 'S':
      if (ostio__parse_size(optarg, &v) < 0 || v < 1 || v > OSTIO__STRIPE_SIZE_MAX)
        return cli_usage_error(CMD, "stripe size '%s': expected a size from 1 to 4g-1 such as "
                               "1048576, 1m or 64k", optarg);
      s->size = v;
      s->have_size = 1;
      break;
    case OPT_OBJECT_SIZE:
      if (ostio__parse_size(optarg, &v) < 0 || v < 1 || v > OSTIO__STRIPE_SIZE_MAX)
        return cli_usage_error(CMD, "object size '%s': expected a size from 1 to 4g-1 that is "
                               "a multiple of the stripe size, such as 4m", optarg);
      s->object_size = v;
      break;
    case 'i':
      if (ostio__parse_int(optarg, &v) < 0 || v < -1 || v > 65535)
        return cli_usage_error(CMD, "stripe index '%s': expected -1 (any) or 0..65535", optarg);
      s->first = (int32_t)v;
      s->have_first = v >= 0;
      break;
    case 'o':
      if (ostio__parse_ost_list(optarg, ostbuf[n], 64, &s->nosts) < 0)
        return cli_usage_error(CMD, "OST list '%s': expected indices and ranges such as "
                               "0,2-4 (at most 64 entries)", optarg);
      s->osts = ostbuf[n];
      break;
    case 'p':
      if (!ostio__valid_pool_name(optarg))
        return cli_usage_error(CMD, "pool name '%s': expected 1..%d of letters, digits, "
                               "'_', '-' and '.'", optarg, OSTIO__POOL_MAX);
      memcpy(s->pool, optarg, strlen(optarg) + 1);
      break;
    case 'E': {
      int64_t end;
      if (!strcmp(optarg, "-1") || !strcmp(optarg, "eof") || !strcmp(optarg, "EOF")) end = OSTIO_EOF;
      else if (ostio__parse_size(optarg, &end) < 0 || end < 1)
        return cli_usage_error(CMD, "component end '%s': expected a size such as 64m, or -1 / "
                               "eof", optarg);
      if (pfl) {
        if (++n >= OSTIO_MAX_COMPONENTS)
          return cli_usage_error(CMD, "at most %d components", OSTIO_MAX_COMPONENTS);
      } else if (s->have_count || s->have_size || s->have_first || s->osts || s->pool[0] ||
                 s->object_size) {
        return cli_usage_error(CMD, "with -E, give each component's options after its -E");
      }
      pfl = 1;
      specs[n].end = end;
      break;
    }
    default:
      return cli_bad_option(CMD, argv);
    }
  }
  n++;
  if (optind != argc - 1)
    return cli_usage_error(CMD, optind >= argc ? "no PATH given" : "give exactly one PATH");
  if (!(l = ostio__layout_new())) return cli_runtime_error(CMD, "out of memory");
  const char *path = argv[optind];
  status = build(specs, n, ostio__path_is_lustre(path), ostio__path_is_ceph(path) == 1, emulated,
                 l);
  if (status == CLI_OK) status = apply(path, l, json);
  ostio__layout_destroy(l);
  return status;
}
