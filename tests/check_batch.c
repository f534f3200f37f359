/*
 * Batch grading (grader/batch.c).  Most cases drive batch_run with a fake
 * grader, a shell script standing in for `warpgrade grade`, so that every
 * way a grading child can end (a result, an unusable submission, an
 * internal error, a crash, a hang, an output flood) is produced on
 * purpose and fast, without a backend.  With the emulator available, a
 * small real batch of fixture submissions goes through bin/warpgrade,
 * with --jobs 2 and --jobs 1, which must give the same results.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch.h"
#include "build.h"
#include "formats.h"
#include "grade.h"
#include "result_json.h"
#include "sample_results.h"
#include "schemas/validate.h"

/*
 * The fake grader: `fake grade SUB --format json --output OUT ...`.
 * Behaviour by the submission's name: ok-* copies SUB (a JSON result) to
 * OUT; unusable-* writes an unusable result and exits 1; internal-* exits
 * 3 with an XX result; crash-* kills itself with SIGSEGV; hang-* sleeps;
 * flood-* writes 1 MiB to stdout and exits 2 without a result; slow-*
 * sleeps SLOW seconds, then acts like ok-*.  Every call appends its
 * arguments and its CUDA_VISIBLE_DEVICES ("cvd=...") to $DIR/calls and
 * records how many ran at once in $DIR/conc.
 */
static const char fake_script[] =
	"#!/bin/sh\n"
	"D=$(dirname \"$0\")\n"
	"sub=$2; out=\n"
	"prev=\n"
	"for a in \"$@\"; do\n"
	"  [ \"$prev\" = --output ] && out=$a\n"
	"  prev=$a\n"
	"done\n"
	"echo \"$* cvd=${CUDA_VISIBLE_DEVICES-unset}\" >> \"$D/calls\"\n"
	"touch \"$D/running/$$\"\n"
	"ls \"$D/running\" | wc -l >> \"$D/conc\"\n"
	"trap 'rm -f \"$D/running/$$\"' EXIT\n"
	"base=$(basename \"$sub\")\n"
	"case \"$base\" in\n"
	"slow-*) sleep \"$(cat \"$D/slow\")\"; cp \"$sub\" \"$out\" ;;\n"
	"ok-*) cp \"$sub\" \"$out\" ;;\n"
	"unusable-*) cp \"$sub\" \"$out\"; exit 1 ;;\n"
	"internal-*) cp \"$sub\" \"$out\"; exit 3 ;;\n"
	"crash-*) rm -f \"$D/running/$$\"; kill -SEGV $$ ;;\n"
	"hang-*) sleep 100 ;;\n"
	"flood-*) head -c 1048576 /dev/zero | tr '\\0' x; exit 2 ;;\n"
	"*) echo \"fake grader: unknown case $base\" >&2; exit 2 ;;\n"
	"esac\n"
	"exit 0\n";

static char root[64], subs[128], res[128], fake[128];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

static void add_result_sub(const char *name, int which)
{
	struct grade_result r;
	char path[256];
	char *doc;

	if (which == 1)
		sample_unusable(&r, name);
	else if (which == 3)
		sample_result(&r, name, "cuda", "NVIDIA H100 80GB HBM3",
			      sample_internal, 1);
	else
		sample_result(&r, name, "cuda", "NVIDIA H100 80GB HBM3",
			      sample_all_ok, 0.5 + 0.01 * (double)strlen(name));
	doc = result_json(&r);
	snprintf(path, sizeof(path), "%s/%s", subs, name);
	write_text(path, doc);
	free(doc);
	result_release(&r);
}

static void setup(void)
{
	char path[256];

	snprintf(root, sizeof(root), "/tmp/wg-batch-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(subs, sizeof(subs), "%s/subs", root);
	snprintf(res, sizeof(res), "%s/results", root);
	snprintf(fake, sizeof(fake), "%s/fake-warpgrade", root);
	ck_assert_int_eq(mkdir(subs, 0755), 0);
	snprintf(path, sizeof(path), "%s/running", root);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	write_text(fake, fake_script);
	ck_assert_int_eq(chmod(fake, 0755), 0);
	snprintf(path, sizeof(path), "%s/slow", root);
	write_text(path, "0.3\n");
}

static void teardown(void)
{
	remove_tree(root);
}

static void opts(struct batch_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->submissions = subs;
	o->out = res;
	o->warpgrade = fake;
	o->backend = "emu";
	o->jobs = 2;
	o->parallel = 1;
	o->timeout_s = 5;
}

static size_t lines_in(const char *name)
{
	char path[256], *text;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	text = read_file(path, 1 << 20, NULL);
	if (!text)
		return 0;
	for (char *p = text; *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

static int max_concurrency(void)
{
	char path[256];
	FILE *f;
	int v, best = 0;

	snprintf(path, sizeof(path), "%s/conc", root);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fscanf(f, "%d", &v) == 1)
		if (v > best)
			best = v;
	fclose(f);
	return best;
}

/* The stored result of a submission, validated. */
static json_t *stored(const char *name)
{
	char path[256], err[512];
	json_error_t je;
	json_t *v;

	snprintf(path, sizeof(path), "%s/%s.json", res, name);
	v = json_load_file(path, 0, &je);
	ck_assert_msg(v != NULL, "%s: %s", path, je.text);
	ck_assert_msg(!schema_validate("tests/schemas/result.schema.json", v,
				       err, sizeof(err)), "%s: %s", path, err);
	return v;
}

static int stored_exit(const char *name)
{
	json_t *v = stored(name);
	int e = (int)json_integer_value(json_object_get(v, "grader_exit"));

	json_decref(v);
	return e;
}

START_TEST(entry_names)
{
	static const char *const cases[][2] = {
		{ "alice.tar.gz", "alice" }, { "bob.TGZ", "bob" },
		{ "carol.zip", "carol" }, { "dave.cu", "dave" },
		{ "erin.tar", "erin" }, { "frank", "frank" },
		{ "g.h.zip", "g.h" }, { ".zip", ".zip" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = batch_entry_name(cases[i][0]);

		ck_assert_str_eq(n, cases[i][1]);
		free(n);
	}
}
END_TEST

START_TEST(every_ending_gets_a_result)
{
	struct batch_opts o;
	struct batch_stats st;
	json_t *v;
	char path[256];

	add_result_sub("ok-alice", 0);
	add_result_sub("ok-bob", 0);
	add_result_sub("unusable-carol", 1);
	add_result_sub("internal-dave", 3);
	add_result_sub("crash-erin", 0);
	add_result_sub("hang-frank", 0);
	add_result_sub("flood-gina", 0);
	opts(&o);
	o.timeout_s = 1;
	o.formats = 1u << FORMAT_GRADESCOPE | 1u << FORMAT_JUNIT;
	ck_assert_int_eq(batch_run(&o, &st), BATCH_INTERNAL);
	ck_assert_uint_eq(st.total, 7);
	ck_assert_uint_eq(st.graded, 7);
	ck_assert_uint_eq(st.unusable, 1);
	ck_assert_uint_eq(st.internal, 4); /* dave, erin, frank, gina */

	ck_assert_int_eq(stored_exit("ok-alice"), 0);
	ck_assert_int_eq(stored_exit("unusable-carol"), 1);
	ck_assert_int_eq(stored_exit("internal-dave"), 3);
	v = stored("crash-erin");
	ck_assert_int_eq(json_integer_value(json_object_get(v,
			 "grader_exit")), 3);
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(v,
				     "error")), "killed by SIGSEGV"));
	json_decref(v);
	v = stored("hang-frank");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(v,
				     "error")), "timed out"));
	json_decref(v);
	v = stored("flood-gina");
	ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(v,
				     "error")), "exit 2"));
	json_decref(v);
	/* the flood is kept, capped, in the log */
	snprintf(path, sizeof(path), "%s/flood-gina.log", res);
	{
		struct stat sb;

		ck_assert_int_eq(stat(path, &sb), 0);
		ck_assert_int_gt(sb.st_size, 1000);
		ck_assert_int_lt(sb.st_size, 100000);
	}
	/* the views asked for */
	snprintf(path, sizeof(path), "%s/ok-alice.gradescope.json", res);
	ck_assert_int_eq(access(path, R_OK), 0);
	snprintf(path, sizeof(path), "%s/crash-erin.junit.xml", res);
	ck_assert_int_eq(access(path, R_OK), 0);
	/* nothing half-written left behind */
	snprintf(path, sizeof(path), "%s/.work", res);
	ck_assert_int_ne(access(path, F_OK), 0);
	/* the hung grader was killed with its group */
	ck_assert_uint_eq(lines_in("calls"), 7);
}
END_TEST

START_TEST(rerun_skips_and_regrades)
{
	struct batch_opts o;
	struct batch_stats st;

	add_result_sub("ok-alice", 0);
	add_result_sub("unusable-bob", 1);
	add_result_sub("internal-carol", 3);
	opts(&o);
	ck_assert_int_eq(batch_run(&o, &st), BATCH_INTERNAL);
	ck_assert_uint_eq(lines_in("calls"), 3);
	/* again: the complete results are kept, the internal error is
	 * graded again; a view asked for now is rendered from the archive */
	o.formats = 1u << FORMAT_PRAIRIELEARN;
	ck_assert_int_eq(batch_run(&o, &st), BATCH_INTERNAL);
	ck_assert_uint_eq(st.skipped, 2);
	ck_assert_uint_eq(st.graded, 1);
	ck_assert_uint_eq(lines_in("calls"), 4);
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/ok-alice.prairielearn.json",
			 res);
		ck_assert_int_eq(access(path, R_OK), 0);
	}
	o.regrade = 1;
	ck_assert_int_eq(batch_run(&o, &st), BATCH_INTERNAL);
	ck_assert_uint_eq(st.graded, 3);
	ck_assert_uint_eq(lines_in("calls"), 7);
}
END_TEST

/* The fake grader's calls, as one text (owned). */
static char *calls_text(void)
{
	char path[256], *calls;

	snprintf(path, sizeof(path), "%s/calls", root);
	calls = read_file(path, 1 << 20, NULL);
	ck_assert_ptr_nonnull(calls);
	return calls;
}

START_TEST(side_by_side_on_a_gpu)
{
	struct batch_opts o;
	char want[256], *calls;

	for (int i = 0; i < 6; i++) {
		char name[32];

		snprintf(name, sizeof(name), "slow-%d", i);
		add_result_sub(name, 0);
	}
	opts(&o);
	o.backend = "cuda";
	o.parallel = -1; /* the default */
	o.jobs = 3;
	ck_assert_int_eq(batch_run(&o, NULL), BATCH_OK);
	ck_assert_int_gt(max_concurrency(), 1);
	ck_assert_int_le(max_concurrency(), 3);
	/* one core each, and the lock their timed runs take turns with
	 * (check_gpulock.c shows that they do) */
	calls = calls_text();
	snprintf(want, sizeof(want), "--jobs 1 --gpu-lock %s/.gpu-lock", res);
	ck_assert_msg(strstr(calls, want) != NULL, "%s", calls);
	ck_assert_ptr_nonnull(strstr(calls, "--backend cuda"));
	free(calls);
}
END_TEST

/* A tree whose GPU probe lists two GPUs, and in --hold mode (a keeper)
 * records the GPU it was shown; WARPGRADE_ROOT points there. */
static void two_gpu_tree(void)
{
	char dir[200], probe[256];
	char *text;

	snprintf(dir, sizeof(dir), "%s/tree", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/tree/build", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(probe, sizeof(probe), "%s/wg-probe", dir);
	text = xstrfmt("#!/bin/sh\n"
		       "echo 'sm 9 0 Fake H100'\n"
		       "echo 'gpu 0 GPU-aaaaaaaa-0000-0000-0000-000000000000 "
		       "0000:19:00.0 9 0 Fake H100'\n"
		       "echo 'gpu 1 GPU-bbbbbbbb-0000-0000-0000-000000000000 "
		       "0000:2a:00.0 9 0 Fake H100'\n"
		       "[ \"$1\" = --hold ] || exit 0\n"
		       "echo \"$CUDA_VISIBLE_DEVICES\" >> %s/keepers\n"
		       "exec sleep 100\n", root);
	write_text(probe, text);
	free(text);
	ck_assert_int_eq(chmod(probe, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/tree", root);
	setenv("WARPGRADE_ROOT", dir, 1);
}

/* Eight children on a host with two GPUs of one kind, the GPUs' roles
 * as roles says (NULL: the default); their calls and the keepers' GPUs
 * into *calls and *keepers. */
static void batch_on_two_gpus(const char *roles, char **calls,
			      char **keepers)
{
	const char *old = getenv("WARPGRADE_ROOT");
	struct batch_opts o;
	char path[256];

	for (int i = 0; i < 8; i++) {
		char name[32];

		snprintf(name, sizeof(name), "slow-%d", i);
		add_result_sub(name, 0);
	}
	two_gpu_tree();
	if (roles)
		setenv("WARPGRADE_GPU_ROLES", roles, 1);
	opts(&o);
	o.backend = "cuda";
	o.jobs = 4;
	ck_assert_int_eq(batch_run(&o, NULL), BATCH_OK);
	unsetenv("WARPGRADE_GPU_ROLES");
	*calls = calls_text();
	snprintf(path, sizeof(path), "%s/keepers", root);
	*keepers = read_file(path, 4096, NULL);
	ck_assert_ptr_nonnull(*keepers);
	ck_assert_ptr_nonnull(strstr(*keepers, "GPU-aaaaaaaa-0000"));
	ck_assert_ptr_nonnull(strstr(*keepers, "GPU-bbbbbbbb-0000"));
	if (old)
		setenv("WARPGRADE_ROOT", old, 1);
	else
		unsetenv("WARPGRADE_ROOT");
}

/* How many of the calls' children saw GPU a and GPU b. */
static void count_gpus(const char *calls, size_t *on_a, size_t *on_b)
{
	*on_a = *on_b = 0;
	for (const char *p = calls; (p = strstr(p, "cvd=GPU-")); p++)
		*(p + 8) == 'a' ? (*on_a)++ : (*on_b)++;
}

/* Two GPUs of one kind go in a pair: every child sweeps on the first
 * (its CUDA_VISIBLE_DEVICES and lock) and is told to time on the second
 * (its description and lock); each GPU has a keeper. */
START_TEST(pairs_sweep_and_time)
{
	char want[512], *calls, *keepers;
	size_t on_a, on_b;

	batch_on_two_gpus(NULL, &calls, &keepers);
	count_gpus(calls, &on_a, &on_b);
	ck_assert_uint_eq(on_a, 8);
	ck_assert_uint_eq(on_b, 0);
	snprintf(want, sizeof(want), "--gpu-lock %s/.gpu-lock-GPU-aaaaaaaa-"
		 "0000-0000-0000-000000000000 --timing-gpu GPU-bbbbbbbb-0000-"
		 "0000-0000-000000000000 0000:2a:00.0 9 0 Fake H100 "
		 "--timing-gpu-lock %s/.gpu-lock-GPU-bbbbbbbb-0000-0000-0000-"
		 "000000000000 cvd=GPU-aaaaaaaa", res, res);
	ck_assert_msg(strstr(calls, want) != NULL, "%s", calls);
	free(calls);
	free(keepers);
}
END_TEST

/* WARPGRADE_GPU_ROLES=shared: each child grades on one GPU, sweeps and
 * timed runs, and the children spread evenly. */
START_TEST(spread_over_the_gpus)
{
	char want[320], *calls, *keepers;
	size_t on_a, on_b;

	batch_on_two_gpus("shared", &calls, &keepers);
	count_gpus(calls, &on_a, &on_b);
	ck_assert_uint_eq(on_a + on_b, 8);
	ck_assert_uint_eq(on_a, 4); /* the least busy GPU each time */
	snprintf(want, sizeof(want), "--gpu-lock %s/.gpu-lock-GPU-aaaaaaaa-"
		 "0000-0000-0000-000000000000 cvd=GPU-aaaaaaaa", res);
	ck_assert_msg(strstr(calls, want) != NULL, "%s", calls);
	snprintf(want, sizeof(want), "--gpu-lock %s/.gpu-lock-GPU-bbbbbbbb-"
		 "0000-0000-0000-000000000000 cvd=GPU-bbbbbbbb", res);
	ck_assert_msg(strstr(calls, want) != NULL, "%s", calls);
	ck_assert_ptr_null(strstr(calls, "cvd=unset"));
	ck_assert_ptr_null(strstr(calls, "--timing-gpu"));
	free(calls);
	free(keepers);
}
END_TEST

START_TEST(one_at_a_time_on_request)
{
	struct batch_opts o;
	char *calls;

	for (int i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "slow-%d", i);
		add_result_sub(name, 0);
	}
	opts(&o);
	o.backend = "cuda";
	o.parallel = 0; /* --serial */
	o.jobs = 3;
	ck_assert_int_eq(batch_run(&o, NULL), BATCH_OK);
	ck_assert_int_eq(max_concurrency(), 1);
	/* each child compiles on all the cores, alone on the GPU */
	calls = calls_text();
	ck_assert_ptr_nonnull(strstr(calls, "--jobs 3"));
	ck_assert_ptr_null(strstr(calls, "--gpu-lock"));
	free(calls);
}
END_TEST

START_TEST(side_by_side_on_the_emulator)
{
	struct batch_opts o;
	struct batch_stats st;

	for (int i = 0; i < 6; i++) {
		char name[32];

		snprintf(name, sizeof(name), "slow-%d", i);
		add_result_sub(name, 0);
	}
	opts(&o);
	o.parallel = -1; /* emu: side by side */
	o.jobs = 3;
	ck_assert_int_eq(batch_run(&o, &st), BATCH_OK);
	ck_assert_int_gt(max_concurrency(), 1);
	ck_assert_int_le(max_concurrency(), 3);
	ck_assert_uint_eq(st.graded, 6);
	{
		char *calls = calls_text();

		/* nothing timed, no lock */
		ck_assert_ptr_null(strstr(calls, "--gpu-lock"));
		free(calls);
	}
}
END_TEST

START_TEST(interrupted_batch_loses_nothing)
{
	struct batch_opts o;
	struct batch_stats st;
	char path[256];
	pid_t pid;
	int ws;

	for (int i = 0; i < 8; i++) {
		char name[32];

		snprintf(name, sizeof(name), "slow-%d", i);
		add_result_sub(name, 0);
	}
	snprintf(path, sizeof(path), "%s/slow", root);
	write_text(path, "0.5\n");
	opts(&o);
	o.jobs = 2;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(batch_run(&o, NULL));
	usleep(1300 * 1000); /* a few done, two in flight */
	kill(pid, SIGINT);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws));
	ck_assert_int_eq(WEXITSTATUS(ws), BATCH_INTERRUPTED);
	/* whatever exists is complete */
	{
		size_t have = 0;

		for (int i = 0; i < 8; i++) {
			snprintf(path, sizeof(path), "%s/slow-%d.json", res,
				 i);
			if (!access(path, F_OK)) {
				char name[32];

				snprintf(name, sizeof(name), "slow-%d", i);
				ck_assert_int_eq(stored_exit(name), 0);
				have++;
			}
		}
		ck_assert_uint_gt(have, 0);
		ck_assert_uint_lt(have, 8);
		/* the rest is graded by the next run, the rest only */
		ck_assert_int_eq(batch_run(&o, &st), BATCH_OK);
		ck_assert_uint_eq(st.skipped, have);
		ck_assert_uint_eq(st.graded, 8 - have);
	}
	/* no grader left running */
	snprintf(path, sizeof(path), "%s/running", root);
	{
		char cmd[600];

		/* killed fakes leave their markers: their pids must be
		 * gone */
		snprintf(cmd, sizeof(cmd), "for p in $(ls %s); do "
			 "kill -0 $p 2>/dev/null && exit 1; done; exit 0",
			 path);
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

START_TEST(one_batch_per_directory)
{
	struct batch_opts o;
	char path[256];
	int fd;

	add_result_sub("ok-alice", 0);
	opts(&o);
	ck_assert_int_eq(mkdir(res, 0755), 0);
	snprintf(path, sizeof(path), "%s/.lock", res);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX), 0);
	ck_assert_int_eq(batch_run(&o, NULL), BATCH_USAGE);
	close(fd);
	ck_assert_int_eq(batch_run(&o, NULL), BATCH_OK);
}
END_TEST

START_TEST(names_collide)
{
	struct batch_opts o;

	add_result_sub("ok-a.zip", 0);
	add_result_sub("ok-a.tar.gz", 0);
	add_result_sub("ok-b.cu", 0);
	opts(&o);
	ck_assert_int_eq(batch_run(&o, NULL), BATCH_OK);
	json_decref(stored("ok-a.zip"));
	json_decref(stored("ok-a.tar.gz"));
	json_decref(stored("ok-b"));
}
END_TEST

START_TEST(results_among_submissions)
{
	struct batch_opts o;
	struct batch_stats st;
	char inner[256];

	add_result_sub("ok-alice", 0);
	opts(&o);
	snprintf(inner, sizeof(inner), "%s/results", subs);
	o.out = inner;
	ck_assert_int_eq(batch_run(&o, &st), BATCH_OK);
	/* the results directory is not graded as a submission */
	ck_assert_uint_eq(st.total, 1);
	ck_assert_int_eq(batch_run(&o, &st), BATCH_OK);
	ck_assert_uint_eq(st.total, 1);
	ck_assert_uint_eq(st.skipped, 1);
}
END_TEST

/* ---- a real batch on the emulator ---- */

static const char *const real_cases[] = { "good", "compile_error",
					  "missing" };

/* Run bin/warpgrade batch on subs into out with --jobs jobs; it must
 * give every submission a result. */
static void real_batch(const char *out, const char *jobs)
{
	const char *argv[16];
	pid_t pid;
	int ws, n = 0;

	argv[n++] = "bin/warpgrade";
	argv[n++] = "batch";
	argv[n++] = subs;
	argv[n++] = "--out";
	argv[n++] = out;
	argv[n++] = "--backend";
	argv[n++] = "emu";
	argv[n++] = "--jobs";
	argv[n++] = jobs;
	argv[n++] = "--seed";
	argv[n++] = "20261121";
	argv[n++] = "--quiet";
	argv[n] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws));
	if (WEXITSTATUS(ws)) {
		/* what went wrong, for the log */
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "grep -h -B2 -A6 '\"XX\"\\|\"error\"' "
			 "%s/*.json %s/*.log >&2", out, out);
		(void)!system(cmd);
	}
	ck_assert_msg(WEXITSTATUS(ws) == 0, "batch --jobs %s: exit %d", jobs,
		      WEXITSTATUS(ws));
}

/* A stored result without what differs from run to run: when and how
 * long it took, and the uid the runner had (the isolation line). */
static void strip_run_facts(json_t *v)
{
	static const char *const keys[] = { "seconds", "generated",
					     "isolation", NULL };
	const char *k;
	json_t *e;
	size_t i;

	if (json_is_object(v)) {
		for (i = 0; keys[i]; i++)
			json_object_del(v, keys[i]);
		json_object_foreach(v, k, e)
			strip_run_facts(e);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			strip_run_facts(e);
	}
}

static json_t *stored_in(const char *dir, const char *name)
{
	char path[256];
	json_error_t je;
	json_t *v;

	snprintf(path, sizeof(path), "%s/%s.json", dir, name);
	v = json_load_file(path, 0, &je);
	ck_assert_msg(v != NULL, "%s: %s", path, je.text);
	strip_run_facts(v);
	return v;
}

/* The results of one submission in two results directories are the
 * same, but for when and how long. */
static void same_results(const char *d1, const char *d2, const char *name)
{
	json_t *a = stored_in(d1, name), *b = stored_in(d2, name);

	if (!json_equal(a, b)) {
		char *sa = json_dumps(a, JSON_INDENT(1));
		char *sb = json_dumps(b, JSON_INDENT(1));

		fprintf(stderr, "%s:\n%s\n%s:\n%s\n", d1, sa, d2, sb);
		free(sa);
		free(sb);
	}
	ck_assert_msg(json_equal(a, b), "%s: %s and %s differ", name, d1, d2);
	json_decref(a);
	json_decref(b);
}

START_TEST(real_batch_on_the_emulator)
{
	char why[256], path[512], line[256], one[160];

	if (!build_emu_available(why, sizeof(why))) {
		printf("SKIP: real batch on the emulator (%s)\n", why);
		return;
	}
	for (size_t i = 0; i < sizeof(real_cases) / sizeof(*real_cases);
	     i++) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "cp -r tests/fixtures/%s/submission "
			 "%s/%s", real_cases[i], subs, real_cases[i]);
		ck_assert_int_eq(system(cmd), 0);
	}
	snprintf(one, sizeof(one), "%s/results-1", root);
	real_batch(res, "2");
	for (size_t i = 0; i < sizeof(real_cases) / sizeof(*real_cases);
	     i++) {
		json_t *v = stored(real_cases[i]), *ex, *e;
		FILE *f;
		size_t k;

		snprintf(path, sizeof(path), "tests/fixtures/%s/expected",
			 real_cases[i]);
		f = fopen(path, "r");
		ck_assert_ptr_nonnull(f);
		ex = json_object_get(v, "exercises");
		while (fgets(line, sizeof(line), f)) {
			char name[64], status[16];

			if (sscanf(line, "%63s %15s", name, status) != 2 ||
			    !strcmp(name, "score"))
				continue;
			json_array_foreach(ex, k, e)
				if (!strcmp(json_string_value(json_object_get(
					    e, "name")), name))
					ck_assert_msg(!strcmp(json_string_value(
						json_object_get(e, "status")),
						status), "%s %s: got %s",
						real_cases[i], name,
						json_string_value(
						json_object_get(e, "status")));
		}
		fclose(f);
		json_decref(v);
	}
	/* one at a time, the same results */
	real_batch(one, "1");
	for (size_t i = 0; i < sizeof(real_cases) / sizeof(*real_cases);
	     i++)
		same_results(res, one, real_cases[i]);
}
END_TEST

static Suite *batch_suite(void)
{
	Suite *s = suite_create("batch");
	TCase *tc;

	tc = tcase_create("names");
	tcase_add_test(tc, entry_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("isolation");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_ending_gets_a_result);
	tcase_add_test(tc, names_collide);
	tcase_add_test(tc, results_among_submissions);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("resume");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rerun_skips_and_regrades);
	tcase_add_test(tc, interrupted_batch_loses_nothing);
	tcase_add_test(tc, one_batch_per_directory);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("scheduling");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, side_by_side_on_a_gpu);
	tcase_add_test(tc, pairs_sweep_and_time);
	tcase_add_test(tc, spread_over_the_gpus);
	tcase_add_test(tc, one_at_a_time_on_request);
	tcase_add_test(tc, side_by_side_on_the_emulator);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("emulator");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, real_batch_on_the_emulator);
	tcase_set_timeout(tc, 1800);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	char cwd[4096];
	int failed;

	/* the tree is the working directory (make check runs from it) */
	if (getcwd(cwd, sizeof(cwd)))
		setenv("WARPGRADE_ROOT", cwd, 1);
	sr = srunner_create(batch_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
