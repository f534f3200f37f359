/*
 * Where warpgrade's own files are: the root, a directory shaped like the
 * source tree (exercises/, harness/, reference/, build/).  In order:
 *
 *   $WARPGRADE_ROOT, when set;
 *   the parent of the executable's directory, when it is a tree
 *     (bin/warpgrade in the source tree or an unpacked student kit);
 *   <prefix>/lib/warpgrade beside an installed <prefix>/bin/warpgrade
 *     (`make install`, also under a DESTDIR or a moved prefix);
 *   WG_DATADIR, the data directory compiled in by `make install`;
 *   else the parent of the executable's directory.
 *
 * Everything the grader builds at run time (reference objects per GPU
 * architecture, runner links) goes under build/ of the root.
 */
#ifndef PATHS_H
#define PATHS_H

#include <stddef.h>

/* The tree root, without trailing slash; never NULL (falls back to "."). */
const char *wg_root(void);
/* The CUDA Toolkit: $CUDA_HOME, else the one warpgrade was built with. */
const char *wg_cuda_home(void);
/* snprintf of root + "/" + rel into buf; -1 when it does not fit. */
int wg_path(char *buf, size_t len, const char *rel);
/* $CUDA_HOME/bin/nvcc into buf; -1 when it does not fit. */
int wg_nvcc(char *buf, size_t len);

#endif
