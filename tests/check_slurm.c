/*
 * Slurm job arrays (grader/slurm.c, grader/cmd_slurm.c): what may reach
 * the script and the message when it may not, the script's directives
 * and command, and `warpgrade slurm` writing it or submitting it through
 * a fake sbatch found on PATH.  tests/slurm/run.sh submits to a real
 * one-node Slurm.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_slurm.h"
#include "slurm.h"
#include "util.h"

/* ---- values ---- */

START_TEST(times)
{
	static const char *const good[] = {
		"30", "30:00", "1:00:00", "2-0", "2-12:00", "2-12:00:00",
		"UNLIMITED", "infinite",
	};
	static const char *const badt[] = {
		"", "1h", "1:00:00:00", "-1", "2-", "1::0", ":30", "1 0",
		"2-1-1", "1:00\n",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		ck_assert_msg(slurm_time_ok(good[i]), "'%s'", good[i]);
	for (size_t i = 0; i < sizeof(badt) / sizeof(*badt); i++)
		ck_assert_msg(!slurm_time_ok(badt[i]), "'%s'", badt[i]);
}
END_TEST

static void base(struct slurm_opts *o)
{
	slurm_opts_init(o);
	o->submissions = "/srv/class/subs";
	o->out = "/srv/class/results";
	o->warpgrade = "/usr/local/bin/warpgrade";
	o->array_size = 4;
}

static void refused(const struct slurm_opts *o, const char *want)
{
	char err[512] = "";

	ck_assert_int_eq(slurm_check(o, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, want) != NULL, "'%s' not in '%s'", want,
		      err);
}

START_TEST(bad_values)
{
	struct slurm_opts o;
	char err[512];

	base(&o);
	ck_assert_int_eq(slurm_check(&o, err, sizeof(err)), 0);
	o.partition = "gpu\n#SBATCH --uid=0";
	refused(&o, "for --partition: only letters");
	base(&o);
	o.account = "cs 101";
	refused(&o, "bad value 'cs 101' for --account");
	base(&o);
	o.time = "1 hour";
	refused(&o, "bad value '1 hour' for --time: expected minutes");
	base(&o);
	o.mem = "lots";
	refused(&o, "bad value 'lots' for --mem");
	base(&o);
	o.mem = "16G";
	ck_assert_int_eq(slurm_check(&o, err, sizeof(err)), 0);
	o.extra[o.nextra++] = "qos=exam";
	refused(&o, "bad value 'qos=exam' for --sbatch-option");
	base(&o);
	o.extra[o.nextra++] = "--array=0-99";
	refused(&o, "warpgrade sets it");
	base(&o);
	o.extra[o.nextra++] = "--qos=exam prio";
	refused(&o, "no spaces");
	base(&o);
	o.out = "/srv/my class/results";
	refused(&o, "cannot use the path '/srv/my class/results' (out)");
	base(&o);
	o.config = "/srv/50%.json";
	refused(&o, "(config)");
	base(&o);
	o.backend = "gpu";
	refused(&o, "bad value 'gpu' for --backend");
	base(&o);
	o.backend = "emu";
	o.gpus = 1;
	refused(&o, "the emulator uses no GPU");
	base(&o);
	o.backend = "emu";
	o.gpu_type = "h100";
	refused(&o, "no GPU is requested");
	base(&o);
	o.formats[o.nformats++] = "json";
	refused(&o, "bad value 'json' for --format");
	base(&o);
	o.seed = "0x10";
	refused(&o, "for --seed");
	base(&o);
	o.timeout = "0";
	refused(&o, "for --timeout");
}
END_TEST

START_TEST(task_counts)
{
	ck_assert_uint_eq(slurm_default_tasks(0), 1);
	ck_assert_uint_eq(slurm_default_tasks(1), 1);
	ck_assert_uint_eq(slurm_default_tasks(10), 1);
	ck_assert_uint_eq(slurm_default_tasks(11), 2);
	ck_assert_uint_eq(slurm_default_tasks(250), 25);
	ck_assert_uint_eq(slurm_default_tasks(1000000), 1000);
}
END_TEST

/* ---- the script ---- */

static void contains(const char *text, const char *want)
{
	ck_assert_msg(strstr(text, want) != NULL, "'%s' not in:\n%s", want,
		      text);
}

START_TEST(gpu_script)
{
	struct slurm_opts o;
	char *s;

	base(&o);
	o.partition = "gpu";
	o.account = "cs101";
	o.time = "0-02:00:00";
	o.throttle = 2;
	o.gpu_type = "h100";
	o.config = "/srv/class/grading.json";
	o.seed = "7";
	o.formats[o.nformats++] = "gradescope";
	o.extra[o.nextra++] = "--qos=exam";
	s = slurm_script(&o, 37);
	ck_assert(!strncmp(s, "#!/bin/sh\n", 10));
	contains(s, "\n#SBATCH --array=0-3%2\n");
	contains(s, "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=4\n");
	contains(s, "\n#SBATCH --gres=gpu:h100:1\n");
	contains(s, "\n#SBATCH --partition=gpu\n");
	contains(s, "\n#SBATCH --account=cs101\n");
	contains(s, "\n#SBATCH --time=0-02:00:00\n");
	contains(s, "\n#SBATCH --qos=exam\n");
	contains(s, "\n#SBATCH --output=/srv/class/results/.slurm/"
		 "%x-%A_%a.out\n");
	contains(s, "\n#SBATCH --error=/srv/class/results/.slurm/"
		 "%x-%A_%a.err\n");
	contains(s, "exec '/usr/local/bin/warpgrade' batch '/srv/class/subs' "
		 "--out '/srv/class/results'");
	/* N is written in: a task resubmitted alone keeps its slice */
	contains(s, "--shard \"$SLURM_ARRAY_TASK_ID/4\" --jobs 4 "
		 "--backend auto");
	contains(s, "--config '/srv/class/grading.json' --seed 7 "
		 "--format gradescope\n");
	contains(s, "(37 when written)");
	/* every directive before the first command */
	ck_assert(strstr(s, "--error=") < strstr(s, "\nset -eu"));
	free(s);
}
END_TEST

START_TEST(emulator_script)
{
	struct slurm_opts o;
	char *s;

	base(&o);
	o.backend = "emu";
	o.cpus = 2;
	o.array_size = 1;
	s = slurm_script(&o, 3);
	contains(s, "\n#SBATCH --array=0-0\n");
	ck_assert_ptr_null(strstr(s, "--gres"));
	ck_assert_ptr_null(strstr(s, "--partition"));
	contains(s, "--shard \"$SLURM_ARRAY_TASK_ID/1\" --jobs 2 "
		 "--backend emu\n");
	free(s);
	/* a GPU backend with the GPU turned off explicitly */
	base(&o);
	o.gpus = 0;
	s = slurm_script(&o, 3);
	ck_assert_ptr_null(strstr(s, "--gres"));
	free(s);
}
END_TEST

START_TEST(script_is_sh)
{
	struct slurm_opts o;
	char path[] = "/tmp/wg-slurm-sh-XXXXXX", cmd[128];
	char *s;
	int fd;

	base(&o);
	o.config = "/srv/it's.json";  /* quoted right even so */
	o.regrade = 1;
	s = slurm_script(&o, 5);
	contains(s, "'/srv/it'\\''s.json'");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
	snprintf(cmd, sizeof(cmd), "sh -n %s", path);
	ck_assert_int_eq(system(cmd), 0);
	unlink(path);
	free(s);
}
END_TEST

/* ---- the command ---- */

static char root[64], subs[128], res[128], bin[128];
static char *out_text, *err_text;

static void write_text(const char *path, const char *text, int mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, (mode_t)mode), 0);
}

/* A fake sbatch: records its arguments, the script, its working
 * directory and $WG_PROBE (what it would hand the job), answers like
 * `sbatch --parsable`; exits 1 when $root/refuse exists. */
static void setup(void)
{
	char path[256], script[512];

	snprintf(root, sizeof(root), "/tmp/wg-slurm-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(subs, sizeof(subs), "%s/subs", root);
	snprintf(res, sizeof(res), "%s/results", root);
	snprintf(bin, sizeof(bin), "%s/bin", root);
	ck_assert_int_eq(mkdir(subs, 0755), 0);
	ck_assert_int_eq(mkdir(bin, 0755), 0);
	for (int i = 0; i < 23; i++) {
		snprintf(path, sizeof(path), "%s/s%02d.zip", subs, i);
		write_text(path, "", 0644);
	}
	snprintf(path, sizeof(path), "%s/.hidden", subs);
	write_text(path, "", 0644);
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n"
		 "PATH=/usr/bin:/bin\n"
		 "echo \"$*\" > %s/sbatch.args\n"
		 "echo \"$(pwd) $WG_PROBE\" > %s/sbatch.env\n"
		 "cp \"$2\" %s/sbatch.script\n"
		 "if [ -e %s/refuse ]; then\n"
		 "  echo 'sbatch: error: Invalid account' >&2; exit 1\n"
		 "fi\n"
		 "echo '4242;cluster'\n", root, root, root, root);
	snprintf(path, sizeof(path), "%s/sbatch", bin);
	write_text(path, script, 0755);
	out_text = err_text = NULL;
}

static void teardown(void)
{
	free(out_text);
	free(err_text);
	remove_tree(root);
}

/* cmd_slurm in a child with PATH=path, WG_PROBE set, in root, stdout in
 * out_text and stderr in err_text. */
static int slurm(const char *path, const char *const *args)
{
	char *argv[32], file[256], efile[256];
	int argc = 0;
	pid_t pid;
	int ws;

	argv[argc++] = "slurm";
	while (*args)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	snprintf(file, sizeof(file), "%s/stdout", root);
	snprintf(efile, sizeof(efile), "%s/stderr", root);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int efd = open(efile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int rc;

		if (fd < 0 || dup2(fd, 1) < 0 || efd < 0 ||
		    dup2(efd, 2) < 0 || chdir(root) < 0)
			_exit(99);
		setenv("PATH", path, 1);
		setenv("WG_PROBE", "handed on", 1);
		rc = cmd_slurm(argc, argv);
		fflush(stdout);
		_exit(rc);
	}
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert(WIFEXITED(ws));
	free(out_text);
	out_text = read_file(file, 1 << 20, NULL);
	ck_assert_ptr_nonnull(out_text);
	free(err_text);
	err_text = read_file(efile, 1 << 20, NULL);
	ck_assert_ptr_nonnull(err_text);
	return WEXITSTATUS(ws);
}

static char *file_text(const char *name)
{
	char path[256];
	char *t;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	t = read_file(path, 1 << 20, NULL);
	ck_assert_msg(t != NULL, "no %s", path);
	return t;
}

START_TEST(writes_to_stdout)
{
	const char *args[] = { subs, "--out", res, "--backend", "emu",
			       "--throttle", "1", NULL };
	char logs[256];

	ck_assert_int_eq(slurm(bin, args), 0);
	/* 23 submissions: 3 tasks of about ten */
	contains(out_text, "\n#SBATCH --array=0-2%1\n");
	contains(out_text, "(23 when written)");
	contains(out_text, " --out '");
	/* the results directory and the tasks' log directory exist */
	snprintf(logs, sizeof(logs), "%s/.slurm", res);
	ck_assert_int_eq(access(logs, W_OK), 0);
}
END_TEST

START_TEST(writes_a_file)
{
	char file[256];
	const char *args[] = { subs, "--out", res, "-o", file,
			       "--array-size", "5", NULL };
	char *t;
	struct stat st;

	snprintf(file, sizeof(file), "%s/grade.sbatch", root);
	ck_assert_int_eq(slurm(bin, args), 0);
	ck_assert_str_eq(out_text, "");
	t = file_text("grade.sbatch");
	contains(t, "\n#SBATCH --array=0-4\n");
	contains(t, "\n#SBATCH --gres=gpu:1\n");
	free(t);
	ck_assert_int_eq(stat(file, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0755);
}
END_TEST

START_TEST(submits)
{
	const char *args[] = { subs, "--out", res, "--submit",
			       "--partition", "gpu", NULL };
	char *t, want[256];

	ck_assert_int_eq(slurm(bin, args), 0);
	ck_assert_str_eq(out_text, "4242\n");
	t = file_text("sbatch.args");
	snprintf(want, sizeof(want), "--parsable %s/.slurm/warpgrade.sh",
		 res);
	contains(t, want);
	free(t);
	t = file_text("sbatch.script");
	contains(t, "\n#SBATCH --partition=gpu\n");
	free(t);
	/* as its user would run it: the job gets their environment and
	 * starts where they are */
	t = file_text("sbatch.env");
	snprintf(want, sizeof(want), "%s handed on\n", root);
	ck_assert_str_eq(t, want);
	free(t);
}
END_TEST

START_TEST(submit_fails)
{
	const char *args[] = { subs, "--out", res, "--submit", NULL };
	char path[256];

	snprintf(path, sizeof(path), "%s/refuse", root);
	write_text(path, "", 0644);
	ck_assert_int_eq(slurm(bin, args), 1);
	ck_assert_str_eq(out_text, "");
	/* sbatch's own message first, then ours */
	contains(err_text, "sbatch: error: Invalid account\nwarpgrade: "
		 "error: sbatch refused '");
	contains(err_text, "(exit 1)");
	/* no sbatch at all */
	ck_assert_int_eq(slurm(root, args), 1);
	ck_assert_str_eq(out_text, "");
	contains(err_text, "cannot run 'sbatch': No such file or directory "
		 "(is Slurm's client installed and on PATH?)");
}
END_TEST

START_TEST(usage_errors)
{
	const char *none[] = { subs, NULL };
	const char *two[] = { subs, subs, "--out", res, NULL };
	const char *gpus[] = { subs, "--out", res, "--gpus-per-task", "2",
			       NULL };
	const char *size[] = { subs, "--out", res, "--array-size", "0",
			       NULL };
	const char *time[] = { subs, "--out", res, "--time", "soon", NULL };

	ck_assert_int_eq(slurm(bin, none), 2);
	ck_assert_int_eq(slurm(bin, two), 2);
	ck_assert_int_eq(slurm(bin, gpus), 2);
	ck_assert_int_eq(slurm(bin, size), 2);
	ck_assert_int_eq(slurm(bin, time), 2);
	/* nothing was created for a refused command */
	ck_assert_int_ne(access(res, F_OK), 0);
}
END_TEST

START_TEST(nothing_to_grade)
{
	char empty[256];
	const char *args[] = { empty, "--out", res, NULL };
	const char *missing[] = { "/nonexistent/subs", "--out", res, NULL };

	snprintf(empty, sizeof(empty), "%s/empty", root);
	ck_assert_int_eq(mkdir(empty, 0755), 0);
	ck_assert_int_eq(slurm(bin, args), 1);
	ck_assert_int_eq(slurm(bin, missing), 1);
	ck_assert_str_eq(out_text, "");
}
END_TEST

static Suite *slurm_suite(void)
{
	Suite *s = suite_create("slurm");
	TCase *tc;

	tc = tcase_create("values");
	tcase_add_test(tc, times);
	tcase_add_test(tc, bad_values);
	tcase_add_test(tc, task_counts);
	suite_add_tcase(s, tc);

	tc = tcase_create("script");
	tcase_add_test(tc, gpu_script);
	tcase_add_test(tc, emulator_script);
	tcase_add_test(tc, script_is_sh);
	suite_add_tcase(s, tc);

	tc = tcase_create("command");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, writes_to_stdout);
	tcase_add_test(tc, writes_a_file);
	tcase_add_test(tc, submits);
	tcase_add_test(tc, submit_fails);
	tcase_add_test(tc, usage_errors);
	tcase_add_test(tc, nothing_to_grade);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(slurm_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
