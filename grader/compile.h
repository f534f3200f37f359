/*
 * Compiling one student file, as untrusted code.
 *
 * The compiler reads what the student wrote -- any #include, any
 * .incbin -- and can be made to allocate without bound, so it runs like
 * the runner: in the sandbox (sandbox_run_guest), as a uid of its own
 * when the grader is root, with RLIMIT_DATA and a watch on the resident
 * memory of nvcc and all its children, CPU and wall limits, and capped
 * output.  It sees a private staging directory and the toolchain only:
 *
 *   <tmpdir>/wg-cc-XXXXXX/      0770, group of the guest uid
 *     sub/   a copy of the submission's kept sources and headers
 *     inc/   a copy of the exercise's header (<exercise>.h)
 *     out/   the object it writes (0770)
 *     tmp/   TMPDIR and HOME (0770)
 *
 * Under bubblewrap nothing else of the host's files is visible besides
 * the system directories and the toolkit (no grader tree, no reference
 * sources, no /etc/shadow, no other submission, no network).  Without
 * bubblewrap, as root, the guest uid can read only what the host lets
 * every user read: the grader keeps its reference sources, its build
 * cache and its configuration closed to other users (compile_protect);
 * not as root, nothing is protected and compile_isolation says so.
 *
 * What the student sees of the compiler's messages is trimmed to their
 * own files: a diagnostic located in any other file (a system header,
 * or a file the code tried to #include) is dropped with the lines that
 * belong to it, and staging paths read as the student's own.
 */
#ifndef COMPILE_H
#define COMPILE_H

#include <stddef.h>

#include "build.h"
#include "exercise.h"
#include "lacks.h"
#include "resusage.h"
#include "score.h"
#include "timings.h"

struct compile_job {
	const struct build_target *target;
	const struct score_config *cfg;
	const struct exercise *ex;
	const char *root;   /* the submission's kept tree */
	const char *src;    /* the exercise file, inside root */
	const char *obj;    /* where the object goes */
	const char *tmpdir; /* where the staging directory is made */
	/* The replay program, to ask whether the emulator can run the
	 * object's PTX (emulator targets); NULL: no such check. */
	const char *replay;
	/* Where the phases go ("stage", "compile <arch>", "PTX check");
	 * NULL: nowhere. */
	struct timings *timings;
	/* The emulator target the same object serves as well (a GPU grade
	 * counting traffic): one nvcc run for both; NULL: target only. */
	const struct build_target *also;
	/* Where the PTX check's list of what the emulator cannot run goes,
	 * kernel by kernel (lacks.h; empty before, the caller's to
	 * release); NULL: nowhere. */
	struct lacks *lacks;
	/* With replay: where what ptxas says of the object's kernels for
	 * sm_90 goes (resusage.h; left empty when ptxas cannot say, which
	 * is no failure: the model then assumes 32 registers); NULL:
	 * ptxas is not run. */
	struct resusage *usage;
};

/*
 * Compile job->src to job->obj.  0: compiled (with job->replay: and the
 * emulator loads its PTX; what its kernels lack is in *job->lacks);
 * 1: the student's compile error (*log holds the trimmed messages, or
 * says which limit stopped the compiler); 2: compiled, but the emulator
 * cannot load its PTX at all (with job->replay: none in the object, or
 * none it parses; *log says why); -1: grader failure (*log says why).
 * *log is owned by the caller.  *isolation (may be NULL) receives what
 * protection the compiler ran under, for the report.
 */
int compile_student(const struct compile_job *job, char **log,
		    char *isolation, size_t isolation_len);

/*
 * Close the grader's secrets to other users (as root, without which
 * a guest uid could read them): the reference sources, the build cache
 * and the configuration file (may be NULL), when the grader owns them.
 * Returns 0, or -1 with why set when one of them stays readable.
 */
int compile_protect(const char *config, char *why, size_t len);

/* Exposed for tests: trim the compiler's messages (see above) in place.
 * stage is the staging directory, cwd the directory it compiled in. */
void compile_trim_log(char *log, const char *stage, const char *cwd);

#endif
