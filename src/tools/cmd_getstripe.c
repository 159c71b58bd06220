/* ostio getstripe: the layout of files and directories, printed like
 * `lfs getstripe` (plain lmm_* fields for one component, lcm/lcme for PFL). */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "hints/hints.h"
#include "container/layout_sources.h"
#include "tools/cli.h"

static const char *help =
  "Usage: ostio getstripe [--json] PATH...\n\n"
  "Shows the stripe layout of each PATH, modelled on `lfs getstripe`: stripe\n"
  "count, stripe size, stripe offset (first OST), pattern and the OST of each\n"
  "object; PFL files list each component. For a directory it shows the default\n"
  "that new files inherit. The layout comes from Lustre when PATH is on Lustre,\n"
  "from ceph.file.layout / ceph.dir.layout on CephFS (with object_size: Ceph's\n"
  "object sets; a directory without its own default shows the one its files\n"
  "get, marked inherited), else from the emulated user.ostio.layout record\n"
  "(the file's own, or its directory's), else from striping hints in\n"
  "OSTIO_HINTS, else the defaults.\n"
  "A striped container (ostio container --help) shows its own layout: one\n"
  "object file per object, ostio_source: container.\n\n"
  "Options:\n"
  "  --json      print one JSON array with an object per PATH\n"
  "  -h, --help  show this help\n";

static void print_md(const ostio__comp *c, const char *ind)
{
  printf("%slmm_stripe_count:  %" PRId32 "\n", ind, c->stripe_count);
  printf("%slmm_stripe_size:   %" PRId64 "\n", ind, c->stripe_size);
  if (c->object_size > 0) printf("%sobject_size:       %" PRId64 "\n", ind, c->object_size);
  printf("%slmm_pattern:       %s\n", ind, pattern_name(c->pattern));
  printf("%slmm_stripe_offset: %" PRId32 "\n", ind, c->first_ost);
  if (c->pool[0]) printf("%slmm_pool:          %s\n", ind, c->pool);
  if (!c->osts) return;
  printf("%slmm_objects:\n", ind);
  for (int32_t k = 0; k < c->stripe_count; k++)
    printf("%s- %" PRId32 ": { l_ost_idx: %" PRId32 " }\n", ind, k, c->osts[k]);
}

static void print_text(const char *path, const ostio_layout *l, int is_dir)
{
  printf("%s\n", path);
  const char *origin = is_dir && l->inherited ? " (directory default, inherited from a parent "
                                                "or the file system's)"
                       : is_dir ? " (directory default)"
                       : l->inherited ? " (inherited from the directory default)" : "";
  if (l->ncomp == 1 && l->comp[0].end == OSTIO_EOF) {
    printf("ostio_source:      %s%s\n", l->source, origin);
    print_md(&l->comp[0], "");
    return;
  }
  printf("  lcm_entry_count:   %d\n", l->ncomp);
  printf("  ostio_source:      %s%s\n", l->source, origin);
  for (int i = 0; i < l->ncomp; i++) {
    const ostio__comp *c = &l->comp[i];
    printf("    lcme_id:             %d\n", i + 1);
    printf("    lcme_flags:          %s\n", c->instantiated ? "init" : "0");
    printf("    lcme_extent.e_start: %" PRId64 "\n", c->start);
    if (c->end == OSTIO_EOF) printf("    lcme_extent.e_end:   EOF\n");
    else printf("    lcme_extent.e_end:   %" PRId64 "\n", c->end);
    print_md(c, "      ");
  }
}

int cmd_getstripe(int argc, char **argv)
{
  static const struct option opts[] = {
    {"json", no_argument, NULL, OPT_JSON}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  int json = 0, c, status = CLI_OK, first = 1;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == OPT_JSON) json = 1;
    else if (c == 'h') { fputs(help, stdout); return CLI_OK; }
    else return cli_bad_option("getstripe", argv);
  }
  if (optind >= argc) return cli_usage_error("getstripe", "no PATH given");
  if (json) printf("[");
  for (int i = optind; i < argc; i++) {
    const char *path = argv[i];
    ostio__hints h;
    ostio_layout *l = NULL;
    struct stat st;
    char why[200];
    const char *refused = cli_no_layout(path, why, sizeof why);
    int rc = refused ? OSTIO_ENOTSUP : ostio__hints_resolve_env(path, &h);
    if (rc == 0) rc = ostio__layout_resolve(path, &h, &l);
    if (refused) {
      status = cli_runtime_error("getstripe", "%s: %s", path, refused);
      ostio__fail(rc, "%s: %s", path, refused); /* the JSON entry's error */
    } else if (rc < 0) {
      status = cli_lib_error("getstripe", rc);
    }
    if (rc < 0) {
      if (json) {
        printf("%s{\"path\": ", first ? "" : ", ");
        json_string(stdout, path);
        printf(", \"error\": ");
        json_string(stdout, ostio_last_error());
        printf("}");
        first = 0;
      }
      continue;
    }
    int is_ctr = !strcmp(l->source, "container");
    int is_dir = !is_ctr && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
    if (json) {
      printf("%s{\"path\": ", first ? "" : ", ");
      json_string(stdout, path);
      printf(", \"type\": \"%s\", \"layout\": ",
             is_ctr ? "container" : is_dir ? "directory" : "file");
      json_layout(stdout, l);
      printf("}");
    } else {
      if (!first) printf("\n");
      print_text(path, l, is_dir);
    }
    first = 0;
    ostio__layout_destroy(l);
  }
  if (json) printf("]\n");
  return status;
}
