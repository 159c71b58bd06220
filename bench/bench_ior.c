/* IOR's habits in ostio-bench (issue 31): IOR's API names for -a, and
 * IOR's -O directives (key=value, keys case-insensitive as IOR reads them)
 * turned into the ostio-bench flag that does the same thing, or refused with
 * a sentence saying why and what to use instead. A -O key that is not one
 * of IOR's directives stays an MPI_Info hint. Pure: no MPI, no I/O.
 * Semantics checked against IOR's src/parse_options.c (DecodeDirective). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bench.h"

/* What ostio-bench says to the IOR flags it does not have (-D, -z, and the
 * directives behind them). */
const char ob__ior_no_stonewall[] =
  "ostio-bench has no stonewalling: every phase moves the whole pattern, so every API "
  "is measured on the same bytes; bound a phase's size with -b, -t and -s instead";
const char ob__ior_no_random[] =
  "ostio-bench does not shuffle the transfers of -p ior; -p random writes seeded random "
  "disjoint extents (-b times -s bytes per rank), use it instead";

const char *ob__ior_api(const char *s, const char **refusal)
{
  *refusal = NULL;
  if (!strcasecmp(s, "MPIIO")) return "mpiio";
  if (!strcasecmp(s, "POSIX")) return "posix";
  if (!strcasecmp(s, "HDF5"))
    *refusal = "ostio-bench has no HDF5 API: scripts/bench-h5.sh compares parallel HDF5 "
               "through ROMIO and through libostio-mpiio.so (docs/benchmarks.md); here, "
               "-a mpiio+ostio measures the MPI-IO calls HDF5 makes, served by ostio";
  else if (!strcasecmp(s, "NCMPI") || !strcasecmp(s, "PNETCDF"))
    *refusal = "ostio-bench has no PnetCDF API: scripts/bench-pnetcdf-aggregation.sh runs "
               "PnetCDF through ROMIO and through libostio-mpiio.so; here, -a mpiio+ostio";
  else if (!strcasecmp(s, "MMAP") || !strcasecmp(s, "AIO") || !strcasecmp(s, "DUMMY") ||
           !strcasecmp(s, "S3") || !strcasecmp(s, "HDFS") || !strcasecmp(s, "RADOS") ||
           !strcasecmp(s, "DFS") || !strcasecmp(s, "CEPHFS") || !strcasecmp(s, "GPFS") ||
           !strcasecmp(s, "NCCL") || !strcasecmp(s, "PMDK") || !strcasecmp(s, "IME"))
    *refusal = "an IOR backend ostio-bench does not have; its APIs are ostio, ostio:STRATEGY, "
               "mpiio, mpiio:best, mpiio+ostio and posix (IOR's MPIIO and POSIX are accepted)";
  return NULL;
}

/* IOR's directives: the ostio-bench flag each one becomes (NULL: refused
 * with why), and whether the flag takes the directive's value ("" for a
 * switch: value 0 leaves it off, anything else turns it on). */
typedef struct ior_directive {
  const char *key, *flag;
  int takes_value;
  const char *why;          /* flag NULL: the refusal                          */
} ior_directive;

static const ior_directive directives[] = {
  {"api", "-a", 1, NULL},
  {"blockSize", "-b", 1, NULL},
  {"transferSize", "-t", 1, NULL},
  {"segmentCount", "-s", 1, NULL},
  {"repetitions", "-i", 1, NULL},
  {"testFile", "-o", 1, NULL},
  {"numTasks", "-N", 1, NULL},
  {"filePerProc", "-F", 0, NULL},
  {"collective", "-c", 0, NULL},
  {"writeFile", "-w", 0, NULL},
  {"readFile", "-r", 0, NULL},
  {"checkWrite", "-W", 0, NULL},
  {"checkRead", "-R", 0, NULL},
  {"keepFile", "-k", 0, NULL},
  {"reorderTasks", "-C", 0, NULL},
  {"reorderTasksConstant", "-C", 0, NULL},
  {"fsync", "-e", 0, NULL},
  {"fsyncPerWrite", "-Y", 0, NULL},
  {"intraTestBarriers", "-g", 0, NULL},
  {"verbose", "-v", 1, NULL},
  {"deadlineForStonewalling", NULL, 0, ob__ior_no_stonewall},
  {"stoneWallingWearOut", NULL, 0, ob__ior_no_stonewall},
  {"stoneWallingWearOutIterations", NULL, 0, ob__ior_no_stonewall},
  {"stoneWallingStatusFile", NULL, 0, ob__ior_no_stonewall},
  {"randomOffset", NULL, 0, ob__ior_no_random},
  {"reorderTasksRandom", NULL, 0, "ostio-bench reorders readers by one rank only: -C"},
  {"reorderTasksRandomSeed", NULL, 0, "ostio-bench reorders readers by one rank only: -C"},
  {"taskPerNodeOffset", NULL, 0, "ostio-bench reorders readers by one rank only: -C"},
  {"setTimeStampSignature", NULL, 0, "the data's seed is --seed"},
  {"dataPacketType", NULL, 0, "the data always encodes the seed and the offset (checked by "
                              "-W and -R)"},
  {"useExistingTestFile", NULL, 0, "each write phase starts from a removed file"},
  {"multiFile", NULL, 0, "one file (or one per process with -F) per API"},
  {"uniqueDir", NULL, 0, "-F files are PATH.API.RANK in one directory"},
  {"numNodes", NULL, 0, "ostio-bench runs on every rank mpiexec starts"},
  {"numTasksOnNode0", NULL, 0, "ostio-bench runs on every rank mpiexec starts"},
  {"interTestDelay", NULL, 0, "no delay between iterations"},
  {"interIODelay", NULL, 0, "no delay between calls"},
  {"maxTimeDuration", NULL, 0, "no time limit: -i sets the iterations"},
  {"minTimeDuration", NULL, 0, "no time limit: -i sets the iterations"},
  {"outlierThreshold", NULL, 0, "the report gives min, median and max per API instead"},
  {"memoryPerNode", NULL, 0, "no memory hog"},
  {"memoryPerTask", NULL, 0, "no memory hog"},
  {"keepFileWithError", NULL, 0, "-k keeps the files"},
  {"singleXferAttempt", NULL, 0, "a short transfer is always continued"},
  {"summaryFile", NULL, 0, "the report goes to stdout; --json FILE writes the JSON"},
  {"summaryFormat", NULL, 0, "the report goes to stdout; --json FILE writes the JSON"},
  {"summaryAlways", NULL, 0, "the report goes to stdout; --json FILE writes the JSON"},
  {"saveRankPerformanceDetailsCSV", NULL, 0, "--json FILE has every phase's times"},
  {"savePerOpDataCSV", NULL, 0, "--json FILE has every phase's times"},
  {"refNum", NULL, 0, "no reference number"},
  {"platform", NULL, 0, "no platform string"},
  {"debug", NULL, 0, "no debug output"},
  {"dualMount", NULL, 0, "one path: -o"},
  {"warningAsErrors", NULL, 0, "its usage errors already stop the run"},
  {"allocateBufferOnGPU", NULL, 0, "host buffers only"},
  {"GPUid", NULL, 0, "host buffers only"},
  {"GPUDirect", NULL, 0, "host buffers only"},
  {"useO_DIRECT", NULL, 0, "no O_DIRECT"},
};

int ob__ior_directive(const char *key, size_t keylen, const char *val, const char **flag,
                      const char **flag_val, char *err, size_t cap)
{
  *flag = NULL, *flag_val = NULL;
  for (size_t i = 0; i < sizeof directives / sizeof *directives; i++) {
    const ior_directive *d = &directives[i];
    if (strlen(d->key) != keylen || strncasecmp(d->key, key, keylen) != 0) continue;
    if (!d->flag) {
      if (err && cap)
        snprintf(err, cap, "-O %s: IOR's directive is not supported: %s", d->key, d->why);
      return OB_EUSAGE;
    }
    if (d->takes_value) {
      *flag = d->flag, *flag_val = val;
    } else if (strcmp(val, "0") != 0) {
      *flag = d->flag;          /* a switch; "=0" leaves it as it is (off)       */
    }
    return 1;
  }
  return 0;
}
