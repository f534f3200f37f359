/*
 * The program's output digested (see digest.h).
 */
#include "digest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashlog.h"
#include "lines.h"
#include "util.h"

static const char *const emu_prefix[] = {
	"warpgrade emulator: warning: ", "wgemu: ",
};

/* A line as seen so far: its text (owned) and how often it came. */
struct seen {
	char *key;
	char *first;
	unsigned long count;
};

struct table {
	struct seen *v;
	size_t n;
};

static struct seen *seen_add(struct table *t, char *key, const char *line)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].key, key)) {
			free(key);
			t->v[i].count++;
			return &t->v[i];
		}
	t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n].key = key;
	t->v[t->n].first = xstrdup(line);
	t->v[t->n].count = 1;
	return &t->v[t->n++];
}

static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].key);
		free(t->v[i].first);
	}
	free(t->v);
}

/* The message after its emulator prefix, or NULL for a program line. */
static const char *emu_message(const char *line)
{
	for (size_t i = 0; i < sizeof(emu_prefix) / sizeof(*emu_prefix); i++)
		if (!strncmp(line, emu_prefix[i], strlen(emu_prefix[i])))
			return line + strlen(emu_prefix[i]);
	return NULL;
}

/* What makes two messages the same: where (kernel, file:line) and what,
 * without the thread, the block and the numbers of what (offsets and
 * addresses differ from launch to launch). */
static char *message_key(const char *msg)
{
	const char *who = strstr(msg, ", thread (");
	const char *what = strstr(msg, "): ");
	size_t n;
	char *k, *q;

	if (!who)
		who = strstr(msg, ", block (");
	if (strncmp(msg, "kernel '", 8) || !who || !what || what < who)
		who = what = msg; /* no thread: every number goes */
	n = (size_t)(who - msg);
	k = xmalloc(n + strlen(what) + 1);
	memcpy(k, msg, n);
	q = k + n;
	for (const char *p = what; *p; p++) {
		if (isxdigit((unsigned char)*p) && (isdigit((unsigned char)*p)
		    || (q > k && q[-1] == '#'))) {
			if (q == k || q[-1] != '#')
				*q++ = '#';
			continue;
		}
		*q++ = *p;
	}
	*q = '\0';
	return k;
}

int digest_parse_where(const char *msg, struct failure_location *loc)
{
	char file[96], thread[40] = "", block[40] = "";
	const char *at = strstr(msg, "' at ");
	const char *colon, *end, *what;
	int line;

	if (strncmp(msg, "kernel '", 8) || !at)
		return -1;
	at += 5;
	end = strchr(at, ',');
	if (!end)
		return -1;
	colon = memrchr(at, ':', (size_t)(end - at));
	if (!colon || colon - at >= (long)sizeof(file) ||
	    sscanf(colon + 1, "%d", &line) != 1)
		return -1;
	memcpy(file, at, (size_t)(colon - at));
	file[colon - at] = '\0';
	if (sscanf(end, ", thread (%39[0-9,]) of block (%39[0-9,])", thread,
		   block) != 2)
		sscanf(end, ", block (%39[0-9,])", block);
	memset(loc, 0, sizeof(*loc));
	snprintf(loc->file, sizeof(loc->file), "%s",
		 strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
	loc->line = line;
	what = strstr(end, "): ");
	if (what)
		snprintf(loc->what, sizeof(loc->what), "%s", what + 3);
	if (thread[0])
		snprintf(loc->thread, sizeof(loc->thread), "(%s)", thread);
	if (block[0])
		snprintf(loc->block, sizeof(loc->block), "(%s)", block);
	return 0;
}

/* A message about a store outside the output or every allocation,
 * located in loc with the text of its line when it is in the exercise's
 * file: 0, or -1. */
static int writer_at(const struct exercise_result *e, const char *msg,
		     struct failure_location *loc)
{
	char name[96];

	if ((!strstr(msg, "store outside the output") &&
	     !strstr(msg, "out-of-bounds global store")) ||
	    digest_parse_where(msg, loc))
		return -1;
	snprintf(name, sizeof(name), "%s.cu", e->ex->name);
	if (!strcmp(loc->file, name))
		lines_source_text(e->source, loc->line, loc->source,
				  sizeof(loc->source));
	return 0;
}

/* The writer of an out-of-bounds first failure, from the first message
 * about a store outside the output or outside every allocation. */
static void locate_writer(struct exercise_result *e, const char *msg)
{
	struct failure *f = &e->first_failure;

	if (f->present && !f->loc.file[0] && e->status == STATUS_OOB)
		writer_at(e, msg, &f->loc);
}

int digest_find_writer(const struct exercise_result *e, const char *text,
		       struct failure_location *loc)
{
	for (const char *p = text; p && *p; p += strcspn(p, "\n"),
	     p += *p == '\n') {
		char line[1024];
		size_t n = strcspn(p, "\n");
		const char *msg;

		snprintf(line, sizeof(line), "%.*s", (int)(n < 1023 ? n :
							    1023), p);
		msg = emu_message(line);
		if (msg && !writer_at(e, msg, loc))
			return 0;
	}
	return -1;
}

/* The runner's crash and refused-launch lines are for hostcrash.c, not
 * for reading. */
static int for_grader(const char *line)
{
	return !strncmp(line, CRASHLOG_PREFIX, strlen(CRASHLOG_PREFIX)) ||
	       !strncmp(line, CRASHLOG_LAUNCH_PREFIX,
			strlen(CRASHLOG_LAUNCH_PREFIX));
}

/* The mark sandbox.c leaves where it cut a capped output. */
static int is_cut_mark(const char *line)
{
	return !strncmp(line, "[\xe2\x80\xa6 ", 4) &&
	       strstr(line, " bytes omitted ") != NULL;
}

/* A first failure whose reason quotes the emulator (a fault, a race)
 * is located where the reason says. */
static void locate_reason(struct exercise_result *e)
{
	struct failure *f = &e->first_failure;
	const char *k = f->present ? strstr(f->reason, "kernel '") : NULL;
	char name[96];

	if (!k || f->loc.file[0] || digest_parse_where(k, &f->loc))
		return;
	snprintf(name, sizeof(name), "%s.cu", e->ex->name);
	if (!strcmp(f->loc.file, name))
		lines_source_text(e->source, f->loc.line, f->loc.source,
				  sizeof(f->loc.source));
}

void digest_output(struct exercise_result *e)
{
	struct table emu = { NULL, 0 }, own = { NULL, 0 };
	char *text = e->runner_output, *p;
	unsigned long dropped = 0;
	int after_cut = 0;
	size_t len = 0;
	FILE *out;
	char *kept = NULL;

	locate_reason(e);
	if (!text || !*text)
		return;
	out = open_memstream(&kept, &len);
	if (!out)
		BUG("cannot open a memory stream");
	for (p = text; *p;) {
		size_t n = strcspn(p, "\n");
		char *line = xmalloc(n + 1);
		const char *msg;
		int cut;

		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (p[n] == '\n');
		msg = emu_message(line);
		/* the output was capped in the middle: the lines on either
		 * side of the mark are pieces */
		cut = after_cut || is_cut_mark(p);
		after_cut = is_cut_mark(line);
		if ((cut && !after_cut) || for_grader(line)) {
			free(line);
			continue;
		}
		if (msg) {
			if (seen_add(&emu, message_key(msg), msg)->count == 1)
				locate_writer(e, msg);
		} else if (seen_add(&own, xstrdup(line), "")->count <=
			   DIGEST_MAX_REPEATS) {
			fprintf(out, "%s\n", line);
		} else {
			dropped++;
		}
		free(line);
	}
	if (dropped)
		fprintf(out, "[%lu more copies of the lines above left out]\n",
			dropped);
	fclose(out);
	for (size_t i = 0; i < emu.n; i++)
		result_add_warning(e, emu.v[i].count, emu.v[i].first);
	table_release(&emu);
	table_release(&own);
	free(e->runner_output);
	e->runner_output = kept;
}
