/* ostio hints: the effective hints for a path, as a job would get them with
 * no MPI_Info: defaults overridden by matching OSTIO_HINTS entries. */
#include <getopt.h>
#include <string.h>

#include "engine/strategy.h"
#include "hints/hints.h"
#include "tools/cli.h"

#define CMD "hints"

static const char *help =
  "Usage: ostio hints [--json] [PATH]\n\n"
  "Lists every hint ostio knows with its effective value for PATH (default\n"
  "\"file\"): the defaults, overridden by the entries of the OSTIO_HINTS\n"
  "environment variable whose pattern matches PATH. Hints given explicitly are\n"
  "marked. Bad values in OSTIO_HINTS are reported as they would be at open.\n"
  "ostio_strategy lists the strategies this build has (its registry).\n"
  "Unknown keys that look meant for ostio (romio_*, cb_*, striping_*, or close\n"
  "to a known key) are listed after the table with the nearest known name:\n"
  "they are ignored, as ROMIO does; an unknown ostio_* key is an error.\n\n"
  "OSTIO_HINTS syntax (as MPICH_MPIIO_HINTS): PATTERN:KEY=VALUE[:KEY=VALUE...]\n"
  "entries separated by commas, e.g.\n"
  "  OSTIO_HINTS='*.dat:cb_nodes=4:striping_factor=8,/scratch/*:cb_buffer_size=32m'\n\n"
  "Options:\n"
  "  --json      machine-readable output\n"
  "  -h, --help  show this help\n";

/* The strategies, as `ostio_strategy` accepts them: registry order. */
static void put_strategies(int json)
{
  for (int i = 0, n = 0; i < ostio__strategy_count(); i++) {
    const ostio__strategy *s = ostio__strategy_at(i);
    if (!s) continue;
    if (json) printf("%s", n++ ? ", " : ""), json_string(stdout, s->name);
    else printf("%s%s", n++ ? ", " : "", s->name);
  }
}

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
  if (rc == 0) rc = ostio__strategy_open(&h, NULL);
  if (rc < 0) return cli_lib_error(CMD, rc);
  if (json) printf("{\"path\": "), json_string(stdout, path), printf(", \"hints\": {");
  for (int i = 0; i < ostio__hints_count(); i++) {
    char val[512];
    const char *key = ostio__hints_key(i);
    ostio__hints_format(&h, i, val, sizeof val);
    int given = ostio__hints_given(&h, key);
    const char *why = ostio__hints_no_effect(key);
    if (json) {
      printf("%s", i ? ", " : "");
      json_string(stdout, key);
      printf(": {\"value\": ");
      json_string(stdout, val);
      printf(", \"given\": %s, \"effect\": %s", given ? "true" : "false", why ? "false" : "true");
      if (why) printf(", \"note\": "), json_string(stdout, why);
      if (!strcmp(key, "ostio_strategy")) printf(", \"accepted\": ["), put_strategies(1), printf("]");
      printf("}");
    } else {
      printf("%-28s %s%s", key, val, given ? "   (from OSTIO_HINTS)" : "");
      if (why) printf("   (accepted, no effect: %s)", why);
      if (!strcmp(key, "ostio_strategy")) printf("   (one of: "), put_strategies(0), printf(")");
      printf("\n");
    }
  }
  if (json) {
    printf("}, \"unknown\": [");
    for (int i = 0; i < h.nunknown && i < OSTIO__HINTS_NUNKNOWN; i++) {
      printf("%s{\"key\": ", i ? ", " : "");
      json_string(stdout, h.unknown[i].key);
      printf(", \"suggestion\": ");
      if (h.unknown[i].suggestion[0]) json_string(stdout, h.unknown[i].suggestion);
      else printf("null");
      printf("}");
    }
    printf("], \"unknown_more\": %d}\n", h.unknown_more);
    return CLI_OK;
  }
  for (int i = 0; i < h.nunknown && i < OSTIO__HINTS_NUNKNOWN; i++) {
    if (h.unknown[i].suggestion[0])
      printf("unknown hint %s: did you mean %s?\n", h.unknown[i].key, h.unknown[i].suggestion);
    else
      printf("unknown hint %s: no known hint is close (ignored)\n", h.unknown[i].key);
  }
  if (h.unknown_more > 0)
    printf("(%d more unknown hint%s not listed)\n", h.unknown_more, h.unknown_more == 1 ? "" : "s");
  return CLI_OK;
}
