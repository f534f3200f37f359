/*
 * Bubblewrap for the sandbox (sandbox.h, "Isolation"): where its
 * executable is, and the command line that runs a spec's argv in new
 * namespaces with only the host paths the spec names.  Nothing here runs
 * anything; whether bwrap works on this host is the sandbox's probe.
 */
#ifndef BWRAP_H
#define BWRAP_H

#include "sandbox.h"

/* The bwrap executable from fixed places (never the caller's PATH), or
 * NULL: not installed, or WARPGRADE_SANDBOX=rlimits asks for the
 * fallback. */
const char *bwrap_find(void);

/*
 * bwrap's options for spec (its workdir, cwd, ro_paths, gpu, gpu_nodes,
 * private_workdir and, for tmpfs sizes, limits.fsize_bytes), "--", then
 * spec->argv: a NULL-terminated vector of copies, owned by the caller
 * (bwrap_argv_free); NULL when out of memory.  Paths are not checked
 * here: sandbox_run does that first.
 */
char **bwrap_argv(const char *bwrap, const struct sandbox_spec *spec);
void bwrap_argv_free(char **v);

#endif
