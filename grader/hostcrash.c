/*
 * A host crash located in the student's file (see hostcrash.h).
 */
#include "hostcrash.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crashlog.h"
#include "lines.h"
#include "sandbox.h"
#include "util.h"

#define ADDR_MAX (1ULL << 48) /* no executable offset is larger */

static const struct {
	const char *name, *why;
} signal_why[] = {
	{ "SIGSEGV", "it touched memory the CPU cannot use: a device "
		     "pointer, NULL, freed, or past the end of an array" },
	{ "SIGBUS", "it touched memory that is not there: a misaligned "
		    "access or a truncated mapping" },
	{ "SIGFPE", "an integer division by zero" },
	{ "SIGILL", "an illegal instruction: a corrupted stack or function "
		    "pointer" },
	{ "SIGABRT", "abort(): a failed assert or an uncaught C++ "
		     "exception" },
};

static int parse_hex(const char *tok, unsigned long long *v)
{
	char *end;

	if (strncmp(tok, "0x", 2))
		return -1;
	errno = 0;
	*v = strtoull(tok, &end, 16);
	return errno || *end || *v == 0 || *v >= ADDR_MAX ? -1 : 0;
}

/* A signal this explains, or a CUDA error's name. */
static int known_what(const char *tok, int launch)
{
	int known = 0;

	if (launch)
		return !strncmp(tok, "cudaError", 9) && strlen(tok) < 48 &&
		       strspn(tok, "abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
		       strlen(tok);
	for (size_t i = 0; i < sizeof(signal_why) / sizeof(*signal_why);
	     i++)
		known |= !strcmp(tok, signal_why[i].name);
	return known;
}

int hostcrash_parse(const char *line, struct hostcrash_line *c)
{
	char buf[512], *save = NULL, *tok;
	size_t plen;

	memset(c, 0, sizeof(*c));
	c->launch = !strncmp(line, CRASHLOG_LAUNCH_PREFIX,
			     strlen(CRASHLOG_LAUNCH_PREFIX));
	plen = strlen(c->launch ? CRASHLOG_LAUNCH_PREFIX : CRASHLOG_PREFIX);
	if ((!c->launch && strncmp(line, CRASHLOG_PREFIX, plen)) ||
	    strlen(line + plen) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", line + plen);
	tok = strtok_r(buf, " ", &save);
	if (!tok || !known_what(tok, c->launch))
		return -1;
	snprintf(c->what, sizeof(c->what), "%s", tok);
	tok = strtok_r(NULL, " ", &save);
	if (!tok || strcmp(tok, "pc"))
		return -1;
	tok = strtok_r(NULL, " ", &save);
	if (!tok || (strcmp(tok, "-") && (c->launch ||
					  parse_hex(tok, &c->pc))))
		return -1;
	tok = strtok_r(NULL, " ", &save);
	if (!tok || strcmp(tok, "calls"))
		return -1;
	while ((tok = strtok_r(NULL, " ", &save)) != NULL) {
		if (c->ncalls == sizeof(c->calls) / sizeof(*c->calls) ||
		    parse_hex(tok, &c->calls[c->ncalls]))
			return -1;
		c->ncalls++;
	}
	return 0;
}

/* The last line of that kind in the output (a crash line: the one the
 * fatal signal wrote). */
static int last_line(const char *out, int launch, struct hostcrash_line *c)
{
	struct hostcrash_line t;
	int found = -1;

	for (const char *p = out; p && *p; p += strcspn(p, "\n"),
	     p += *p == '\n') {
		char line[512];
		size_t n = strcspn(p, "\n");

		if (n >= sizeof(line))
			continue;
		memcpy(line, p, n);
		line[n] = '\0';
		if (!hostcrash_parse(line, &t) && t.launch == launch) {
			*c = t;
			found = 0;
		}
	}
	return found;
}

/* addr2line on the runner, as a guest: its -a -f -C -i listing into
 * *listing (owned by the caller); 0, 1 when it said nothing usable, -1
 * when it could not run. */
static int addr2line(const char *runner, const char *workdir,
		     const struct hostcrash_line *c, char **listing)
{
	const char *argv[8 + 17], *env[] = { "PATH=/usr/bin:/bin",
					     "LANG=C", NULL };
	const char *ro[] = { runner, NULL };
	const struct sandbox_grant grant[] = {
		{ workdir, 0710 }, { runner, 0640 }, { NULL, 0 }
	};
	char addrs[17][24], *dir = xstrfmt("%s/addr2line", workdir);
	struct sandbox_spec spec;
	struct sandbox_result res;
	size_t n = 0, k = 0;
	int rc = 1;

	memset(&res, 0, sizeof(res));
	argv[n++] = access("/usr/bin/addr2line", X_OK) ? "/bin/addr2line" :
		    "/usr/bin/addr2line";
	argv[n++] = "-a";
	argv[n++] = "-f";
	argv[n++] = "-C";
	argv[n++] = "-i";
	argv[n++] = "-e";
	argv[n++] = runner;
	if (c->pc)
		snprintf(addrs[k++], sizeof(addrs[0]), "0x%llx", c->pc);
	/* a return address is past its call: look up the call itself */
	for (size_t i = 0; i < c->ncalls; i++)
		snprintf(addrs[k++], sizeof(addrs[0]), "0x%llx",
			 c->calls[i] - 1);
	for (size_t i = 0; i < k; i++)
		argv[n++] = addrs[i];
	argv[n] = NULL;
	if (!k || (mkdir(dir, 0700) && errno != EEXIST))
		goto out;
	sandbox_spec_init(&spec);
	spec.argv = argv;
	spec.env = env;
	spec.workdir = dir;
	spec.private_workdir = 1;
	spec.ro_paths = ro;
	sandbox_limits_profile(SANDBOX_PROFILE_HELPER, 30, &spec.limits);
	if (sandbox_run_guest(&spec, &res, grant)) {
		rc = error("cannot run addr2line: %s", res.error);
		goto out;
	}
	if (res.exited && res.exit_code == 0 && res.out) {
		*listing = res.out;
		res.out = NULL;
		rc = 0;
	}
out:
	sandbox_result_release(&res);
	free(dir);
	return rc;
}

/* fn's bare name: "ns::k<int>(int*, int)" -> "k". */
static void bare_name(const char *fn, char *buf, size_t len)
{
	size_t n = strcspn(fn, "(<");
	const char *start = fn;

	for (const char *p = fn; p < fn + n; p++)
		if (*p == ':' || *p == ' ')
			start = p + 1;
	snprintf(buf, len, "%.*s", (int)(fn + n - start), start);
}

/* Is name declared __global__ in the source ("__global__ void name(")? */
static int is_kernel(const char *source, const char *name)
{
	size_t n = strlen(name);

	for (const char *g = source ? strstr(source, "__global__") : NULL; g;
	     g = strstr(g + 10, "__global__")) {
		const char *paren = strchr(g, '(');
		const char *id = paren;

		if (!paren)
			break;
		while (id > g && (isalnum((unsigned char)id[-1]) ||
				  id[-1] == '_'))
			id--;
		if ((size_t)(paren - id) == n && !strncmp(id, name, n))
			return 1;
	}
	return 0;
}

/* nvcc's host stubs of a kernel (the kernel's own name on the host, and
 * __device_stub__...): their lines are the kernel's, the launch is in
 * their caller. */
static int is_stub(const char *fn, const char *source)
{
	char name[160];

	bare_name(fn, name, sizeof(name));
	return strstr(fn, "__device_stub__") != NULL ||
	       (name[0] && is_kernel(source, name));
}

/* The first "function\nfile:line" pair of the listing in file `want`,
 * stubs passed over: its line, and the function into fn; 0 when none. */
static int first_in(const char *listing, const char *want,
		    const char *source, char *fn, size_t fnlen)
{
	char prev[160] = "";

	for (const char *p = listing; *p; p += strcspn(p, "\n"),
	     p += *p == '\n') {
		size_t n = strcspn(p, "\n");
		const char *colon = memrchr(p, ':', n);
		const char *base = p;
		int line = 0;

		for (const char *q = p; q < (colon ? colon : p); q++)
			if (*q == '/')
				base = q + 1;
		if (colon && !is_stub(prev, source) &&
		    (size_t)(colon - base) == strlen(want) &&
		    !strncmp(base, want, strlen(want)) &&
		    sscanf(colon + 1, "%d", &line) == 1 && line > 0) {
			snprintf(fn, fnlen, "%s", prev);
			return line;
		}
		snprintf(prev, sizeof(prev), "%.*s", (int)(n < 159 ? n : 159),
			 p);
	}
	return 0;
}

static const char *why_of(const char *sig)
{
	for (size_t i = 0; i < sizeof(signal_why) / sizeof(*signal_why); i++)
		if (!strcmp(sig, signal_why[i].name))
			return signal_why[i].why;
	return "";
}

int hostcrash_locate(struct exercise_result *e, const char *runner,
		     const char *workdir)
{
	struct failure *f = &e->first_failure;
	struct hostcrash_line c;
	char file[96], fn[160] = "", where[180] = "", *listing = NULL;
	int line, rc;

	if (!f->present || f->loc.file[0] ||
	    (e->status != STATUS_SG && e->status != STATUS_RE) ||
	    last_line(e->runner_output, e->status == STATUS_RE, &c))
		return 1;
	rc = addr2line(runner, workdir, &c, &listing);
	if (rc)
		return rc;
	snprintf(file, sizeof(file), "%s.cu", e->ex->name);
	line = first_in(listing, file, e->source, fn, sizeof(fn));
	free(listing);
	if (!line)
		return 1;
	snprintf(f->loc.file, sizeof(f->loc.file), "%s", file);
	f->loc.line = line;
	lines_source_text(e->source, line, f->loc.source,
			  sizeof(f->loc.source));
	if (fn[0] && fn[0] != '?')
		snprintf(where, sizeof(where), ", in %.60s%s", fn,
			 strchr(fn, '(') ? "" : "()");
	if (c.launch)
		snprintf(f->loc.what, sizeof(f->loc.what), "this launch%s%s "
			 "was refused: %s", where, where[0] ? "," : "",
			 c.what);
	else
		snprintf(f->loc.what, sizeof(f->loc.what), "%s in host "
			 "code%s: %s", c.what, where, why_of(c.what));
	snprintf(f->loc.found_by, sizeof(f->loc.found_by), "the runner's "
		 "backtrace of the %s", c.launch ? "launch" : "crash");
	return 0;
}
