#include "tools/cli.h"

#include "container/ctr_hooks.h"

#include <inttypes.h>
#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/vfs.h>

static int report(const char *cmd, int status, const char *fmt, va_list ap)
{
  fprintf(stderr, "ostio %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  if (status == CLI_USAGE) fprintf(stderr, "Try 'ostio %s --help'.\n", cmd);
  return status;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = report(cmd, CLI_USAGE, fmt, ap);
  va_end(ap);
  return rc;
}

int cli_runtime_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = report(cmd, CLI_ERROR, fmt, ap);
  va_end(ap);
  return rc;
}

int cli_lib_error(const char *cmd, int rc)
{
  const char *detail = ostio_last_error();
  return cli_runtime_error(cmd, "%s (%s)", detail[0] ? detail : ostio_strerror(rc),
                           ostio_errname(rc));
}

int cli_bad_option(const char *cmd, char **argv)
{
  /* Inside a group such as -xc, argv[optind - 1] is not the culprit. */
  if (optopt > 0 && optopt < 128 && isprint(optopt))
    return cli_usage_error(cmd, "unknown option or missing value '-%c'", optopt);
  return cli_usage_error(cmd, "unknown option or missing value '%s'", argv[optind - 1]);
}

/* One JSON string writer for the CLI and the kinds' tool hooks. */
void json_string(FILE *f, const char *s) { ostio__show_str(f, s); }

const char *pattern_name(uint32_t pattern)
{
  return (pattern & OSTIO_PATTERN_OVERSTRIPING) ? "raid0,overstriping" : "raid0";
}

void json_layout(FILE *f, const ostio_layout *l)
{
  fprintf(f, "{\"source\": ");
  json_string(f, l->source);
  fprintf(f, ", \"inherited\": %s, \"components\": [", l->inherited ? "true" : "false");
  for (int i = 0; i < l->ncomp; i++) {
    const ostio__comp *c = &l->comp[i];
    fprintf(f, "%s{\"start\": %" PRId64 ", \"end\": ", i ? ", " : "", c->start);
    if (c->end == OSTIO_EOF) fprintf(f, "null");
    else fprintf(f, "%" PRId64, c->end);
    fprintf(f, ", \"stripe_size\": %" PRId64 ", \"stripe_count\": %" PRId32
               ", \"stripe_offset\": %" PRId32 ", \"pattern\": \"%s\", \"instantiated\": %s"
               ", \"pool\": ",
            c->stripe_size, c->stripe_count, c->first_ost, pattern_name(c->pattern),
            c->instantiated ? "true" : "false");
    json_string(f, c->pool);
    fprintf(f, ", \"object_size\": %" PRId64, c->object_size);
    fprintf(f, ", \"osts\": ");
    if (!c->osts) {
      fprintf(f, "null");
    } else {
      fputc('[', f);
      for (int32_t k = 0; k < c->stripe_count; k++)
        fprintf(f, "%s%" PRId32, k ? ", " : "", c->osts[k]);
      fputc(']', f);
    }
    fputc('}', f);
  }
  fprintf(f, "]}");
}

/* Kernel pseudo file systems: their files hold no data of their own, so no
 * layout describes them (magic numbers from linux/magic.h). */
static const char *pseudo_fs(long type)
{
  switch ((unsigned long)type) {
  case 0x9fa0UL: return "proc";
  case 0x62656572UL: return "sysfs";
  case 0x64626720UL: return "debugfs";
  case 0x74726163UL: return "tracefs";
  case 0x73636673UL: return "securityfs";
  case 0x27e0ebUL: return "cgroup";
  case 0x63677270UL: return "cgroup2";
  case 0x1cd1UL: return "devpts";
  case 0x62656570UL: return "configfs";
  case 0x6165676cUL: return "pstore";
  case 0xcafe4a11UL: return "bpf";
  case 0xde5e81e4UL: return "efivarfs";
  case 0x65735543UL: return "fusectl";
  case 0x42494e4dUL: return "binfmt_misc";
  case 0x19800202UL: return "mqueue";
  default: return NULL;
  }
}

/* NULL when path may have a layout (or does not exist: the layout sources
 * report that); else why not, in why. Only stat/statfs: never opens path,
 * so a FIFO cannot block. */
const char *cli_no_layout(const char *path, char *why, size_t cap)
{
  struct stat st;
  struct statfs fs;
  if (stat(path, &st) < 0) return NULL;
  const char *kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device"
                     : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket"
                     : NULL;
  if (kind || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))) {
    snprintf(why, cap, "not a regular file or directory (%s); only files and directories "
             "have stripe layouts", kind ? kind : "an unknown file type");
    return why;
  }
  const char *fsname = statfs(path, &fs) == 0 ? pseudo_fs((long)fs.f_type) : NULL;
  if (fsname) {
    snprintf(why, cap, "not on a file system with stripe layouts (%s, a kernel pseudo file "
             "system: its files hold no stored data)", fsname);
    return why;
  }
  return NULL;
}
