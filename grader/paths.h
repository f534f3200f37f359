/*
 * Where warpgrade's own files are.  bin/warpgrade runs from its source
 * tree (or an unpacked student kit, which has the same shape): the root is
 * the parent of the directory holding the executable, unless WARPGRADE_ROOT
 * says otherwise.  Everything the grader builds at run time (reference
 * objects per GPU architecture, runner links) goes under build/.
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
