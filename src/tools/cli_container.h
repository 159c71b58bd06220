/* `ostio container` for log containers (cmd_container_log.c), dispatched
 * from cmd_container.c on the manifest's kind. */
#ifndef OSTIO_TOOLS_CLI_CONTAINER_H
#define OSTIO_TOOLS_CLI_CONTAINER_H

#include "container/container.h"

int log_ls(const char *path, int json);
int log_stat(const char *path, int json);
int sub_map(int argc, char **argv);
int sub_recover(int argc, char **argv);
int sub_compact(int argc, char **argv);

/* `container stat`'s pieces shared by every kind (cmd_container.c). The size
 * record: JSON its value ({"state", "size"} or null), text its line. */
void ctr_print_size_record(int have, const ostio__sizerec *rec, int json);
/* created, created_by, requested: JSON the last members and the closing
 * brace, text their lines. */
void ctr_print_footer(const ostio__manifest *m, int json);

#endif
