/* The registry of layout sources and the rules that combine them. It lives
 * in the container module because a container directory is a source too
 * (source_container.c, tried first); the file-system sources and their
 * shared helpers stay in src/layout (layout/source.h), which knows nothing
 * of containers. */
#ifndef OSTIO_CONTAINER_LAYOUT_SOURCES_H
#define OSTIO_CONTAINER_LAYOUT_SOURCES_H

#include <sys/types.h>

#include "hints/hints.h"
#include "layout/layout.h"
#include "layout/source.h"

extern const ostio__layout_source ostio__source_container;

/* Layout of path as the sources see it, honouring h->ostio_layout_source. */
int ostio__layout_resolve(const char *path, const ostio__hints *h, ostio_layout **out);
/* Creates path as a new empty file. Layout: explicit if given, else the
 * striping hints if any, else the directory default (Lustre applies its
 * own; the emulated source copies the directory's record onto the file),
 * else the defaults. *out (optional) receives the layout the file got. */
int ostio__layout_create(const char *path, const ostio__hints *h,
                         const ostio_layout *explicit_layout, mode_t mode,
                         ostio_layout **out);
/* Sets a directory's default layout (Lustre or emulated). */
int ostio__layout_set_dir_default(const char *dir, const ostio_layout *l);

#endif
