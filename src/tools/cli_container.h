/* `ostio container` for log containers (cmd_container_log.c), dispatched
 * from cmd_container.c on the manifest's kind. */
#ifndef OSTIO_TOOLS_CLI_CONTAINER_H
#define OSTIO_TOOLS_CLI_CONTAINER_H

int log_ls(const char *path, int json);
int log_stat(const char *path, int json);
int sub_map(int argc, char **argv);
int sub_recover(int argc, char **argv);
int sub_compact(int argc, char **argv);

#endif
