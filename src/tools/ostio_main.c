/* ostio: command-line tool. One table of subcommands; each lives in its own
 * cmd_*.c file. */
#include <stdio.h>
#include <string.h>

#include "ostio.h"
#include "tools/cli.h"

static const cli_command commands[] = {
  {.name = "getstripe", .summary = "show the stripe layout of files and directories",
   .run = cmd_getstripe},
  {.name = "setstripe", .summary = "create a file with a layout, or set a directory default",
   .run = cmd_setstripe},
  {.name = "map", .summary = "show which stripes, objects and OSTs an extent touches",
   .run = cmd_map},
  {.name = "hints", .summary = "list the effective hints for a path (OSTIO_HINTS applied)",
   .run = cmd_hints},
  {.name = "container",
   .summary = "striped and log containers: create, ls, stat, check, flatten, map, recover, compact",
   .run = cmd_container},
  {.name = "stage", .summary = "status and drain of log containers staged on node-local storage",
   .run = cmd_stage},
  {.name = "model", .summary = "predict a pattern's bandwidth per strategy on a described cluster",
   .run = cmd_model},
  {.name = "advise", .summary = "recommend strategy, striping, aggregators and container kind",
   .run = cmd_advise},
  {.name = "report", .summary = "one-page job summary of a statistics JSON: text, PNG, HTML",
   .run = cmd_report},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
  fprintf(f, "Usage: ostio COMMAND [OPTIONS] [ARGS]\n"
             "       ostio COMMAND --help\n\n"
             "OST-aware parallel I/O toolkit, version %s.\n\nCommands:\n",
          ostio_version_string());
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\nEvery command takes --help. getstripe, setstripe, map, hints,\n"
             "container ls|stat|check and stage status take --json for machine-readable\n"
             "output.\n"
             "Exit status: 0 success, 1 runtime error, 2 usage error.\n");
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return CLI_OK;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("ostio %s\n", ostio_version_string());
    return CLI_OK;
  }
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "ostio: unknown command '%s'; commands are:", argv[1]);
  for (size_t i = 0; i < NCOMMANDS; i++) fprintf(stderr, " %s", commands[i].name);
  fprintf(stderr, ". Try 'ostio --help'.\n");
  return CLI_USAGE;
}
