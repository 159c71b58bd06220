/* ostio report STATS.json: a one-page job summary (text, --png, --html) of
 * OSTIO_STATS=json:PATH documents (the preload's per-process records merged)
 * and of ostio-bench --json files. The page is made by scripts/ostio-report.py
 * (matplotlib for the pictures); this runs it. docs/stats.md, "ostio report". */
#include <stdio.h>
#include <string.h>

#include "tools/cli.h"
#include "tools/pytool.h"

int cmd_report(int argc, char **argv)
{
  /* --help and every error come from the script; only a missing script or
   * python is said here (with what to do). */
  return cli_run_script("report", "ostio-report.py", argv + 1, argc - 1, 0);
}
