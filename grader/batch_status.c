/*
 * Progress of a batch across shards (see batch_status.h).  The writers
 * run inside each batch; the reader is `warpgrade batch --status`, which
 * may run anywhere the results directory is visible while the shards
 * are still grading, so it never locks, creates or changes anything.
 */
#include "batch_status.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "formats.h"
#include "result.h"
#include "result_json.h"
#include "util.h"

#define MANIFEST ".manifest.json"
#define SHARDS ".shards"
#define LIST_MAX 20

static char *iso_now(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

/* Write a JSON document atomically; 0 or -1 (error() printed). */
static int write_json(const char *path, json_t *doc)
{
	char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	char *text;
	int rc;

	if (!s)
		return error("cannot encode '%s'", path);
	text = xstrfmt("%s\n", s);
	free(s);
	rc = write_file_atomic(path, text, strlen(text));
	free(text);
	return rc;
}

/* ---- written by each batch run ---- */

static int write_manifest(const char *out, const char *submissions,
			  const char *const *files, const char *const *names,
			  size_t n)
{
	json_t *doc = json_object(), *entries = json_array();
	char *path = xstrfmt("%s/%s", out, MANIFEST);
	char real[PATH_MAX];
	int rc;

	json_object_set_new(doc, "tool", json_string("warpgrade"));
	json_object_set_new(doc, "submissions", json_string(
		realpath(submissions, real) ? real : submissions));
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_object();

		json_object_set_new(e, "file", json_string(files[i]));
		json_object_set_new(e, "name", json_string(names[i]));
		json_array_append_new(entries, e);
	}
	json_object_set_new(doc, "entries", entries);
	rc = write_json(path, doc);
	json_decref(doc);
	free(path);
	return rc;
}

static char *state_path(const char *out, const struct shard *sh)
{
	if (sh->n <= 1)
		return xstrfmt("%s/%s/0-of-1.json", out, SHARDS);
	return xstrfmt("%s/%s/%u-of-%u.json", out, SHARDS, sh->k, sh->n);
}

/* The state document of this run, kept between begin and end (one batch
 * per process). */
static json_t *state;

static int write_state(const char *out, const struct shard *sh)
{
	char *dir = xstrfmt("%s/%s", out, SHARDS), *path;
	int rc;

	if (mkdir_p(dir, 0755)) {
		rc = error("cannot create '%s': %s", dir, strerror(errno));
		free(dir);
		return rc;
	}
	free(dir);
	path = state_path(out, sh);
	rc = write_json(path, state);
	free(path);
	return rc;
}

int batch_status_begin(const char *out, const char *submissions,
		       const struct shard *sh, const char *const *files,
		       const char *const *names, size_t n, size_t owned)
{
	char host[256] = "", *now;
	int whole = sh->n <= 1;

	if (write_manifest(out, submissions, files, names, n))
		return -1;
	if (gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "?");
	now = iso_now();
	json_decref(state);
	state = json_object();
	json_object_set_new(state, "shard", json_integer(whole ? 0 : sh->k));
	json_object_set_new(state, "shards", json_integer(whole ? 1 : sh->n));
	json_object_set_new(state, "host", json_string(host));
	json_object_set_new(state, "pid", json_integer(getpid()));
	json_object_set_new(state, "state", json_string("running"));
	json_object_set_new(state, "started", json_string(now));
	json_object_set_new(state, "entries", json_integer((json_int_t)owned));
	free(now);
	return write_state(out, sh);
}

void batch_status_end(const char *out, const struct shard *sh,
		      const struct batch_stats *st, int status)
{
	const char *how = status == BATCH_INTERRUPTED ? "interrupted" :
			  status == BATCH_OK || status == BATCH_INTERNAL ?
			  "finished" : "failed";
	char *now = iso_now();

	if (!state)
		return;
	json_object_set_new(state, "state", json_string(how));
	json_object_set_new(state, "ended", json_string(now));
	json_object_set_new(state, "graded", json_integer((json_int_t)
							    st->graded));
	json_object_set_new(state, "skipped", json_integer((json_int_t)
							     st->skipped));
	json_object_set_new(state, "internal", json_integer((json_int_t)
							      st->internal));
	json_object_set_new(state, "exit", json_integer(status));
	free(now);
	if (write_state(out, sh))
		warning("the end of this batch run is not recorded in "
			"'%s/%s'", out, SHARDS);
	json_decref(state);
	state = NULL;
}

/* ---- read by --status ---- */

enum outcome { MISSING, DONE, UNUSABLE, FAILED, UNREADABLE };

struct tally {
	size_t total, done, unusable, failed, missing, unreadable;
	size_t verdicts[STATUS_COUNT];
	size_t *per_ex; /* exercise_count() x STATUS_COUNT */
	double score, max_score;
};

static enum outcome classify(const char *out, const char *name,
			     struct tally *t)
{
	char *path = xstrfmt("%s/%s.json", out, name), *text;
	char err[256];
	struct grade_result r;
	enum outcome o;
	size_t len = 0;
	int exit_status = 0;

	text = read_file(path, 64u << 20, &len);
	free(path);
	if (!text)
		return MISSING;
	result_init(&r);
	if (strlen(text) != len ||
	    result_json_parse(text, &r, &exit_status, err, sizeof(err))) {
		free(text);
		return UNREADABLE;
	}
	free(text);
	if (results_internal(&r, exit_status)) {
		o = FAILED;
	} else if (r.error) {
		o = UNUSABLE;
	} else {
		o = DONE;
		t->score += r.score;
		t->max_score += r.max_score;
		for (size_t i = 0; i < r.nex; i++) {
			size_t x = 0;

			while (x < exercise_count() &&
			       exercise_table[x] != r.ex[i].ex)
				x++;
			t->verdicts[r.ex[i].status]++;
			if (x < exercise_count())
				t->per_ex[x * STATUS_COUNT +
					  r.ex[i].status]++;
		}
	}
	result_release(&r);
	return o;
}

/* The manifest's entries (borrowed from doc), or NULL with a message. */
static json_t *load_manifest(const char *out, json_t **doc)
{
	char *path = xstrfmt("%s/%s", out, MANIFEST);
	json_error_t je;
	json_t *entries;

	*doc = json_load_file(path, 0, &je);
	if (!*doc) {
		if (access(path, F_OK))
			error("no batch has started in '%s' (it has no %s): "
			      "run warpgrade batch there first", out,
			      MANIFEST);
		else
			error("cannot read '%s': %s", path, je.text);
		free(path);
		return NULL;
	}
	entries = json_object_get(*doc, "entries");
	if (!json_is_array(entries)) {
		error("'%s' is not a batch manifest: no \"entries\" list",
		      path);
		json_decref(*doc);
		*doc = NULL;
		entries = NULL;
	}
	free(path);
	return entries;
}

/* The shards' state documents, sorted by file name (borrowed from arr). */
static json_t *load_states(const char *out)
{
	char *dir = xstrfmt("%s/%s", out, SHARDS);
	json_t *arr = json_array();
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, versionsort);

	for (int i = 0; i < n; i++) {
		size_t len = strlen(list[i]->d_name);
		char *path;
		json_t *v;

		if (len > 5 && !strcmp(list[i]->d_name + len - 5, ".json")) {
			path = xstrfmt("%s/%s", dir, list[i]->d_name);
			v = json_load_file(path, 0, NULL);
			if (json_is_object(v))
				json_array_append(arr, v);
			json_decref(v);
			free(path);
		}
		free(list[i]);
	}
	free(list);
	free(dir);
	return arr;
}

static long long num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "?";
}

/* A "running" state whose process is known to be gone (same host, no
 * such pid): the shard was killed and never said so. */
static int vanished(json_t *s)
{
	char host[256] = "";
	pid_t pid = (pid_t)num(s, "pid");

	if (strcmp(str(s, "state"), "running") || pid <= 0 ||
	    gethostname(host, sizeof(host) - 1) ||
	    strcmp(host, str(s, "host")))
		return 0;
	return kill(pid, 0) && errno == ESRCH;
}

static void print_states(json_t *states)
{
	size_t i;
	json_t *s;

	if (!json_array_size(states))
		return;
	printf("shards:\n");
	json_array_foreach(states, i, s) {
		char name[48];

		snprintf(name, sizeof(name), "%lld/%lld", num(s, "shard"),
			 num(s, "shards"));
		printf("  %-7s %s%s, %lld entries, on %s (pid %lld)\n", name,
		       str(s, "state"), vanished(s) ? " but its process is "
		       "gone: rerun the shard" : "", num(s, "entries"),
		       str(s, "host"), num(s, "pid"));
		printf("  %-7s started %s", "", str(s, "started"));
		if (json_object_get(s, "ended"))
			printf(", ended %s: %lld graded, %lld skipped, %lld "
			       "failed to grade", str(s, "ended"),
			       num(s, "graded"), num(s, "skipped"),
			       num(s, "internal"));
		putchar('\n');
	}
}

/* The shard count the states agree on, 0 when they do not. */
static unsigned common_shards(json_t *states)
{
	unsigned n = 0;
	size_t i;
	json_t *s;

	json_array_foreach(states, i, s) {
		unsigned k = (unsigned)num(s, "shards");

		if (n && k != n)
			return 0;
		n = k;
	}
	return n;
}

static void print_verdicts(const struct tally *t)
{
	int any = 0;

	for (int v = 0; v < STATUS_COUNT; v++)
		any |= t->verdicts[v] != 0;
	if (!any)
		return;
	printf("verdicts (per exercise):\n");
	for (size_t x = 0; x < exercise_count(); x++) {
		printf("  %-22s", exercise_table[x]->name);
		for (int v = 0; v < STATUS_COUNT; v++)
			if (t->per_ex[x * STATUS_COUNT + v])
				printf(" %s %zu", status_name(v),
				       t->per_ex[x * STATUS_COUNT + v]);
		putchar('\n');
	}
}

struct listing {
	const char *title;
	enum outcome which;
};

static void print_list(json_t *entries, const enum outcome *oc,
		       const struct listing *l, size_t count,
		       unsigned shards, int verbose)
{
	size_t i, shown = 0;
	json_t *e;

	if (!count)
		return;
	printf("%s (%zu):\n", l->title, count);
	json_array_foreach(entries, i, e) {
		if (oc[i] != l->which)
			continue;
		if (!verbose && shown == LIST_MAX) {
			printf("  ... and %zu more (--verbose lists them "
			       "all)\n", count - shown);
			break;
		}
		printf("  %s", str(e, "name"));
		if (shards > 1)
			printf("  (shard %zu/%u)", i % shards, shards);
		if (l->which == FAILED)
			printf("  see %s.json and %s.log", str(e, "name"),
			       str(e, "name"));
		putchar('\n');
		shown++;
	}
}

static int show_status(const char *out, int verbose)
{
	json_t *doc = NULL, *entries, *states = NULL, *e;
	struct tally t;
	enum outcome *oc = NULL;
	unsigned shards;
	size_t i;
	int rc = 2;

	memset(&t, 0, sizeof(t));
	entries = load_manifest(out, &doc);
	if (!entries)
		return 2;
	t.per_ex = xcalloc(exercise_count() * STATUS_COUNT,
			   sizeof(*t.per_ex));
	t.total = json_array_size(entries);
	oc = xcalloc(t.total ? t.total : 1, sizeof(*oc));
	json_array_foreach(entries, i, e) {
		oc[i] = classify(out, str(e, "name"), &t);
		t.done += oc[i] == DONE;
		t.unusable += oc[i] == UNUSABLE;
		t.failed += oc[i] == FAILED;
		t.unreadable += oc[i] == UNREADABLE;
		t.missing += oc[i] == MISSING;
	}
	states = load_states(out);
	shards = common_shards(states);

	printf("%s: %zu of %zu submissions done (%s)\n", out,
	       t.done + t.unusable, t.total, str(doc, "submissions"));
	printf("  graded           %zu", t.done);
	if (t.done)
		printf("  (mean score %.2f/%.0f)", t.score / (double)t.done,
		       t.max_score / (double)t.done);
	printf("\n  unusable         %zu\n", t.unusable);
	printf("  failed to grade  %zu%s\n", t.failed, t.failed ?
	       "  (internal errors: the next batch run regrades them)" : "");
	if (t.unreadable)
		printf("  unreadable       %zu  (regraded by the next run)\n",
		       t.unreadable);
	printf("  missing          %zu\n", t.missing);
	print_verdicts(&t);
	print_states(states);
	{
		static const struct listing lists[] = {
			{ "failed to grade", FAILED },
			{ "unreadable results", UNREADABLE },
			{ "missing", MISSING },
		};
		size_t counts[] = { t.failed, t.unreadable, t.missing };

		for (size_t k = 0; k < 3; k++)
			print_list(entries, oc, &lists[k], counts[k], shards,
				   verbose);
	}
	rc = t.done + t.unusable == t.total ? 0 : 1;
	free(oc);
	free(t.per_ex);
	json_decref(states);
	json_decref(doc);
	return rc;
}

int batch_status_wanted(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--status") ||
		    !strncmp(argv[i], "--status=", 9))
			return 1;
	}
	return 0;
}

static const char usage_status[] =
	"usage: warpgrade batch --status RESULTS_DIR [--verbose]\n"
	"\n"
	"Progress of a batch in RESULTS_DIR, across all its shards: how many\n"
	"submissions are done, the verdicts, what failed to grade, each\n"
	"shard's state and what is missing.  Changes nothing.\n"
	"\n"
	"  --verbose            list every missing submission, not the first "
	"20\n"
	"\n"
	"exit status: 0 every submission is done, 1 some are missing or\n"
	"failed to grade, 2 usage error or no batch in RESULTS_DIR\n";

int batch_status_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "status", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *out = NULL;
	int c, verbose = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			out = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			fputs(usage_status, stdout);
			return 0;
		default:
			fprintf(stderr, "\n%s", usage_status);
			return 2;
		}
	}
	if (!out || optind != argc) {
		fprintf(stderr, "warpgrade: %s\n\n%s", !out ?
			"--status needs the results directory" :
			"--status takes no other argument than the results "
			"directory (the submissions are in its manifest)",
			usage_status);
		return 2;
	}
	return show_status(out, verbose);
}
