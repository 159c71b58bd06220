/* ostio hints: the effective hints for a path, as a job would get them with
 * no MPI_Info: defaults overridden by matching OSTIO_HINTS entries. */
#include <getopt.h>
#include <string.h>

#include "hints/hints.h"
#include "tools/cli.h"

#define CMD "hints"

static const char *help =
  "Usage: ostio hints [--json] [PATH]\n\n"
  "Lists every hint ostio knows with its effective value for PATH (default\n"
  "\"file\"): the defaults, overridden by the entries of the OSTIO_HINTS\n"
  "environment variable whose pattern matches PATH. Hints given explicitly are\n"
  "marked. Bad values in OSTIO_HINTS are reported as they would be at open.\n\n"
  "OSTIO_HINTS syntax (as MPICH_MPIIO_HINTS): PATTERN:KEY=VALUE[:KEY=VALUE...]\n"
  "entries separated by commas, e.g.\n"
  "  OSTIO_HINTS='*.dat:cb_nodes=4:striping_factor=8,/scratch/*:cb_buffer_size=32m'\n\n"
  "Options:\n"
  "  --json      machine-readable output\n"
  "  -h, --help  show this help\n";

int cmd_hints(int argc, char **argv)
{
  static const struct option opts[] = {
    {"json", no_argument, NULL, OPT_JSON}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  int json = 0, c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (c == OPT_JSON) json = 1;
    else if (c == 'h') { fputs(help, stdout); return CLI_OK; }
    else return cli_bad_option(CMD, argv);
  }
  if (argc - optind > 1) return cli_usage_error(CMD, "give at most one PATH");
  const char *path = optind < argc ? argv[optind] : "file";
  ostio__hints h;
  int rc = ostio__hints_resolve_env(path, &h);
  if (rc < 0) return cli_lib_error(CMD, rc);
  if (json) printf("{\"path\": "), json_string(stdout, path), printf(", \"hints\": {");
  for (int i = 0; i < ostio__hints_count(); i++) {
    char val[512];
    const char *key = ostio__hints_key(i);
    ostio__hints_format(&h, i, val, sizeof val);
    int given = ostio__hints_given(&h, key);
    if (json) {
      printf("%s", i ? ", " : "");
      json_string(stdout, key);
      printf(": {\"value\": ");
      json_string(stdout, val);
      printf(", \"given\": %s}", given ? "true" : "false");
    } else {
      printf("%-28s %s%s\n", key, val, given ? "   (from OSTIO_HINTS)" : "");
    }
  }
  if (json) printf("}}\n");
  return CLI_OK;
}
