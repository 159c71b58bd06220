/* Subcommands written in Python (ostio report; ostio model's PNG): the C
 * tool finds the script and runs it with the same arguments. The script is
 * looked for where `cmake --install` puts it (PREFIX/share/ostio/scripts, found
 * from this executable's own path, so a relocated prefix works) and then in
 * the source tree the tool was built from. The interpreter is OSTIO_PYTHON,
 * else python3 from PATH. */
#include "tools/pytool.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/cli.h"

#ifndef OSTIO_SOURCE_SCRIPTS
#define OSTIO_SOURCE_SCRIPTS "scripts"
#endif
#ifndef OSTIO_DATADIR_REL
#define OSTIO_DATADIR_REL "share/ostio/scripts"
#endif

int cli_find_script(const char *script, char *out, size_t cap, char *looked, size_t lcap)
{
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  looked[0] = '\0';
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    snprintf(out, cap, "%s/../" OSTIO_DATADIR_REL "/%s", exe, script);
    snprintf(looked, lcap, "%s", out);
    if (access(out, R_OK) == 0) return 0;
  }
  snprintf(out, cap, "%s/%s", OSTIO_SOURCE_SCRIPTS, script);
  size_t l = strlen(looked);
  snprintf(looked + l, lcap - l, "%s%s", l ? " and " : "", out);
  return access(out, R_OK) == 0 ? 0 : -1;
}

const char *cli_python(void)
{
  const char *py = getenv("OSTIO_PYTHON");
  return py && *py ? py : "python3";
}

int cli_run_script(const char *cmd, const char *script, char **args, int nargs, int wait_for)
{
  char path[PATH_MAX + 64], looked[2 * PATH_MAX + 200];
  if (cli_find_script(script, path, sizeof path, looked, sizeof looked) < 0)
    return cli_runtime_error(cmd, "cannot find %s (looked at %s); reinstall ostio "
                             "(cmake --install puts it in PREFIX/" OSTIO_DATADIR_REL ")",
                             script, looked);
  char **av = calloc((size_t)nargs + 3, sizeof *av);
  if (!av) return cli_runtime_error(cmd, "out of memory");
  const char *py = cli_python();
  av[0] = (char *)py;
  av[1] = path;
  for (int i = 0; i < nargs; i++) av[i + 2] = args[i];
  fflush(stdout);
  fflush(stderr);
  pid_t pid = wait_for ? fork() : 0;
  if (pid == 0) {
    execvp(py, av);
    int e = errno;
    fprintf(stderr, "ostio %s: cannot run %s (%s): %s; install Python 3 or set OSTIO_PYTHON "
            "to one\n", cmd, py, getenv("OSTIO_PYTHON") ? "OSTIO_PYTHON" : "python3 from PATH",
            strerror(e));
    if (wait_for) _exit(127);
    free(av);
    return CLI_ERROR;
  }
  free(av);
  if (pid < 0) return cli_runtime_error(cmd, "cannot start %s: %s", py, strerror(errno));
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return cli_runtime_error(cmd, "waiting for %s: %s", py, strerror(errno));
  return WIFEXITED(st) ? WEXITSTATUS(st) : CLI_ERROR;
}
