/* Shared pieces of the ostio command-line tool. Exit status: 0 ok,
 * 1 runtime error, 2 usage error; messages go to stderr and name the path. */
#ifndef OSTIO_TOOLS_CLI_H
#define OSTIO_TOOLS_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "layout/layout.h"

enum { CLI_OK = 0, CLI_ERROR = 1, CLI_USAGE = 2 };
/* getopt values of long-only options: outside char range, so that
 * cli_bad_option can tell them from short letters. */
enum { OPT_JSON = 256, OPT_MAX_PIECES };

typedef struct cli_command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);   /* argv[0] is the command name */
} cli_command;

int cmd_getstripe(int argc, char **argv);
int cmd_setstripe(int argc, char **argv);
int cmd_map(int argc, char **argv);
int cmd_hints(int argc, char **argv);
int cmd_container(int argc, char **argv);
int cmd_stage(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* "ostio CMD: " + message on stderr; returns CLI_USAGE or CLI_ERROR. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_runtime_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports the option getopt refused (unknown, or missing its value). */
int cli_bad_option(const char *cmd, char **argv);
/* Reports a library failure: "ostio CMD: detail (OSTIO_EXXX)". */
int cli_lib_error(const char *cmd, int rc);

/* NULL when path may have a stripe layout (or does not exist: the layout
 * sources say so); else the reason, written into why: not a regular file or
 * directory (FIFO, device, socket), or on a kernel pseudo file system
 * (/proc, /sys, ...). stat/statfs only: never opens path (a FIFO would block). */
const char *cli_no_layout(const char *path, char *why, size_t cap);

/* JSON output helpers. */
void json_string(FILE *f, const char *s);
/* Writes the layout as a JSON object (no trailing newline). */
void json_layout(FILE *f, const ostio_layout *l);
/* "raid0" or "raid0,overstriping". */
const char *pattern_name(uint32_t pattern);

#endif
