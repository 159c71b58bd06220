/* Running the Python parts of the ostio tool (scripts/ostio-report.py,
 * scripts/model-plot.py): where the script is and which python runs it. */
#ifndef OSTIO_TOOLS_PYTOOL_H
#define OSTIO_TOOLS_PYTOOL_H

#include <stddef.h>

/* The path of script: EXEDIR/../share/ostio/scripts/SCRIPT (installed), else the
 * source tree's scripts/SCRIPT. 0, or -1 with the places looked at. */
int cli_find_script(const char *script, char *out, size_t cap, char *looked, size_t lcap);
/* OSTIO_PYTHON, else "python3". */
const char *cli_python(void);
/* Runs PYTHON SCRIPT ARGS...: replaces this process (wait_for 0: returns
 * only when it could not be started), or waits for it (wait_for 1) and
 * returns its exit status. Errors say what to install or set. */
int cli_run_script(const char *cmd, const char *script, char **args, int nargs, int wait_for);

#endif
