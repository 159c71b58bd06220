/* `ostio container`: the subcommands in cmd_container_kind.c, and how every
 * subcommand on an existing PATH finds its kind (src/file/kind.h). */
#ifndef OSTIO_TOOLS_CLI_CONTAINER_H
#define OSTIO_TOOLS_CLI_CONTAINER_H

#include <stddef.h>

#include "file/kind.h"

int sub_map(int argc, char **argv);
int sub_recover(int argc, char **argv);
int sub_compact(int argc, char **argv);

/* A tool hook's report (a repair, what compact or create made): one line
 * on stdout. */
void ctr_print_line(void *arg, const char *msg);

/* The kind of the existing path for `ostio container SUB` (or `ostio stage
 * SUB`: sub "stage status"), when it has the tool hook t: CLI_OK with *k
 * set. Else *k is NULL and err says why, without the "ostio container SUB: "
 * prefix: CLI_ERROR when path does not exist or its kind lacks the hook (the
 * one "not supported by this kind" sentence, naming the kinds that have
 * it), the library's code (< 0) when the kind cannot be read (a damaged
 * manifest). */
int ctr_kind(const char *sub, const char *path, ostio__kind_tool t, const ostio__kind_ops **k,
             char *err, size_t cap);
/* The same, printing err as a runtime error; CLI_OK or CLI_ERROR. */
int ctr_kind_or_say(const char *sub, const char *path, ostio__kind_tool t,
                    const ostio__kind_ops **k);

#endif
