/*
 * Check tests for grader/intake: the hostile-archive corpus
 * (generated at test time by tests/archives/make-hostile-archives into a
 * temporary directory, never into the repository), directory and single
 * file input, the caps, and the promise that nothing is ever written
 * outside the extraction directory (a sentinel folder next to it must stay
 * empty).
 */
#include "intake.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_CASES 128

struct hostile_case {
	char name[128];
	char fate[16];
	char status[16];
	char text[128];
};

static char top[PATH_MAX];	/* mkdtemp: corpus/, extract/, sentinel/ */
static char corpus[PATH_MAX + 16];
static char extract[PATH_MAX + 16];
static char sentinel[PATH_MAX + 16];
static struct hostile_case cases[MAX_CASES];
static int ncases;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int rm_cb(const char *p, const struct stat *sb, int flag,
		 struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

static void rm_rf(const char *p)
{
	nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Entries in dir other than . and .., or -1 if it cannot be opened. */
static int count_dir(const char *dir)
{
	char cmd[PATH_MAX + 64];
	FILE *f;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &n) != 1)
		n = -1;
	pclose(f);
	return n;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "cannot create '%s'", path);
	fputs(text, f);
	fclose(f);
}

static const char *status_name(int s)
{
	switch (s) {
	case INTAKE_OK: return "OK";
	case INTAKE_E_INTERNAL: return "INTERNAL";
	case INTAKE_E_OPEN: return "OPEN";
	case INTAKE_E_FORMAT: return "FORMAT";
	case INTAKE_E_CORRUPT: return "CORRUPT";
	case INTAKE_E_UNSAFE: return "UNSAFE";
	case INTAKE_E_LIMIT: return "LIMIT";
	default: return "?";
	}
}

/* Nothing escaped: the sentinel is empty, no absolute-path file exists
 * and every extraction directory was removed again. */
static void assert_nothing_outside(void)
{
	ck_assert_int_eq(count_dir(sentinel), 0);
	ck_assert_int_eq(count_dir(extract), 0);
	ck_assert_int_ne(access("/tmp/warpgrade-hostile-absolute.txt", F_OK),
			 0);
}

/* ---- the corpus ---- */

START_TEST(test_hostile_archive)
{
	const struct hostile_case *c = &cases[_i];
	struct intake in;
	struct intake_limits lim;
	char path[PATH_MAX * 2], found[PATH_MAX * 2];
	const char *base;
	double t0, dt;
	int rc;

	intake_limits_default(&lim);
	snprintf(path, sizeof(path), "%s/%s", corpus, c->name);
	t0 = now();
	rc = intake_open(&in, path, &lim, extract);
	dt = now() - t0;
	ck_assert_msg(dt < 5.0, "%s: intake took %.1f s", c->name, dt);
	if (strcmp(c->fate, "accept") == 0) {
		ck_assert_msg(rc == 0, "%s: rejected: %s", c->name, in.error);
		ck_assert_int_eq(in.status, INTAKE_OK);
		ck_assert_int_eq(in.kind, INTAKE_ARCHIVE);
		ck_assert_ptr_nonnull(in.dir);
		ck_assert_ptr_nonnull(in.root);
		ck_assert(strncmp(in.dir, extract, strlen(extract)) == 0);
		if (strcmp(c->text, ".") == 0) {
			ck_assert_str_eq(in.root, in.dir);
		} else {
			base = strrchr(in.root, '/');
			ck_assert_str_eq(base + 1, c->text);
		}
		ck_assert_int_eq(intake_find(&in, "padded_tile.cu", found,
					     sizeof(found)), 0);
		ck_assert_int_eq(intake_find(&in, "missing.cu", found,
					     sizeof(found)), 1);
	} else {
		ck_assert_msg(rc == -1, "%s: accepted, expected rejection",
			      c->name);
		ck_assert_ptr_null(in.dir);
		ck_assert_ptr_null(in.root);
		ck_assert_msg(in.error[0] != '\0', "%s: no message", c->name);
		ck_assert_msg(strchr(in.error, '\n') == NULL,
			      "%s: message is not one line", c->name);
		if (strcmp(c->status, "*") != 0)
			ck_assert_msg(strcmp(status_name(in.status),
					     c->status) == 0,
				      "%s: status %s, expected %s (%s)",
				      c->name, status_name(in.status),
				      c->status, in.error);
		ck_assert_msg(in.status != INTAKE_E_INTERNAL,
			      "%s: internal error: %s", c->name, in.error);
		ck_assert_msg(strstr(in.error, c->text) != NULL,
			      "%s: message '%s' lacks '%s'", c->name,
			      in.error, c->text);
	}
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_extracted_content)
{
	struct intake in;
	char path[PATH_MAX * 2], found[PATH_MAX * 2], buf[128];
	struct stat st;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/nested-folder.tar.gz", corpus);
	ck_assert_int_eq(intake_open(&in, path, NULL, extract), 0);
	ck_assert_int_eq(intake_find(&in, "dynamic_reverse.cu", found,
				     sizeof(found)), 0);
	ck_assert_int_eq(stat(found, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(stat(in.root, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	ck_assert_int_eq(stat(in.dir, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0700);
	f = fopen(found, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	ck_assert_str_eq(buf, "__global__ void k(void) {}\n");
	ck_assert_int_eq(in.files, 4);
	ck_assert_int_eq(intake_find(&in, "dynamic_reverse.cu", found, 8),
			 -1);
	ck_assert_int_eq(intake_find(&in, "../x", found, sizeof(found)), 1);
	intake_release(&in);
	intake_release(&in);	/* twice is harmless */
	assert_nothing_outside();
}
END_TEST

START_TEST(test_small_caps)
{
	struct intake in;
	struct intake_limits lim;
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/plain.tar", corpus);
	intake_limits_default(&lim);
	lim.max_entries = 3;
	ck_assert_int_eq(intake_open(&in, path, &lim, extract), -1);
	ck_assert_int_eq(in.status, INTAKE_E_LIMIT);
	ck_assert_ptr_nonnull(strstr(in.error, "entry cap"));
	intake_release(&in);

	intake_limits_default(&lim);
	lim.max_file_bytes = 10;
	ck_assert_int_eq(intake_open(&in, path, &lim, extract), -1);
	ck_assert_ptr_nonnull(strstr(in.error, "file cap"));
	ck_assert_ptr_nonnull(strstr(in.error, "10 bytes"));
	intake_release(&in);

	intake_limits_default(&lim);
	lim.max_total_bytes = 60;
	ck_assert_int_eq(intake_open(&in, path, &lim, extract), -1);
	ck_assert_ptr_nonnull(strstr(in.error, "total cap"));
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_escape_name)
{
	char out[64];

	intake_escape_name("a\nb\x1b[31m\xff\\.cu", out, sizeof(out));
	ck_assert_str_eq(out, "a\\x0ab\\x1b[31m\\xff\\x5c.cu");
	intake_escape_name("caf\xc3\xa9", out, sizeof(out));
	ck_assert_str_eq(out, "caf\xc3\xa9");
	intake_escape_name("0123456789abcdefghij", out, 10);
	ck_assert_str_eq(out, "012345...");
}
END_TEST

/* ---- directories and single files ---- */

static char src[PATH_MAX + 16];

static void make_src(void)
{
	char p[PATH_MAX * 2];

	snprintf(src, sizeof(src), "%s/src", top);
	rm_rf(src);
	ck_assert_int_eq(mkdir(src, 0755), 0);
	snprintf(p, sizeof(p), "%s/hw", src);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/hw/padded_tile.cu", src);
	write_file(p, "// tile\n");
	snprintf(p, sizeof(p), "%s/hw/notes", src);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/hw/notes/readme.txt", src);
	write_file(p, "hello\n");
}

START_TEST(test_dir_input)
{
	struct intake in;
	char found[PATH_MAX * 2];
	struct stat st;

	make_src();
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_int_eq(in.kind, INTAKE_DIR);
	ck_assert_int_eq(in.files, 2);
	ck_assert_int_eq(intake_find(&in, "padded_tile.cu", found,
				     sizeof(found)), 0);
	/* a copy, not the original */
	ck_assert(strncmp(found, extract, strlen(extract)) == 0);
	ck_assert_int_eq(stat(in.root, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_dir_symlink)
{
	struct intake in;
	char p[PATH_MAX * 2];

	make_src();
	snprintf(p, sizeof(p), "%s/hw/link.cu", src);
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), -1);
	ck_assert_int_eq(in.status, INTAKE_E_UNSAFE);
	ck_assert_msg(strstr(in.error, "hw/link.cu") &&
		      strstr(in.error, "symbolic link"), "%s", in.error);
	intake_release(&in);

	make_src();
	snprintf(p, sizeof(p), "%s/hw/escape", src);
	ck_assert_int_eq(symlink(sentinel, p), 0);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), -1);
	ck_assert_ptr_nonnull(strstr(in.error, "symbolic link"));
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_dir_specials)
{
	struct intake in;
	struct sockaddr_un sa;
	char p[PATH_MAX * 2];
	int s;

	make_src();
	snprintf(p, sizeof(p), "%s/hw/pipe", src);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), -1);
	ck_assert_msg(strstr(in.error, "hw/pipe") &&
		      strstr(in.error, "FIFO"), "%s", in.error);
	intake_release(&in);

	make_src();
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(p, sizeof(p), "%s/hw/sock", src);
	if (strlen(p) < sizeof(sa.sun_path) &&
	    memcpy(sa.sun_path, p, strlen(p) + 1) &&
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		ck_assert_int_eq(intake_open(&in, src, NULL, extract), -1);
		ck_assert_msg(strstr(in.error, "socket"), "%s", in.error);
		intake_release(&in);
	}
	close(s);

	make_src();
	snprintf(p, sizeof(p), "%s/hw/null", src);
	if (mknod(p, S_IFCHR | 0644, makedev(1, 3)) == 0) {
		ck_assert_int_eq(intake_open(&in, src, NULL, extract), -1);
		ck_assert_msg(strstr(in.error, "character device"), "%s",
			      in.error);
		intake_release(&in);
	}
	assert_nothing_outside();
}
END_TEST

START_TEST(test_dir_caps)
{
	struct intake in;
	struct intake_limits lim;
	char p[PATH_MAX * 2];
	int i;

	make_src();
	for (i = 0; i < 20; i++) {
		snprintf(p, sizeof(p), "%s/hw/f%d.cu", src, i);
		write_file(p, "x\n");
	}
	intake_limits_default(&lim);
	lim.max_entries = 10;
	ck_assert_int_eq(intake_open(&in, src, &lim, extract), -1);
	ck_assert_int_eq(in.status, INTAKE_E_LIMIT);
	intake_release(&in);
	lim.max_entries = 256;
	lim.max_file_bytes = 4;
	ck_assert_int_eq(intake_open(&in, src, &lim, extract), -1);
	ck_assert_ptr_nonnull(strstr(in.error, "file cap"));
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_single_file)
{
	struct intake in;
	char p[PATH_MAX * 2], found[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/padded_tile.cu", top);
	write_file(p, "__global__ void k(void) {}\n");
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), 0);
	ck_assert_int_eq(in.kind, INTAKE_SINGLE_FILE);
	ck_assert_str_eq(in.root, in.dir);
	ck_assert_int_eq(intake_find(&in, "padded_tile.cu", found,
				     sizeof(found)), 0);
	ck_assert_str_ne(found, p);
	intake_release(&in);

	snprintf(p, sizeof(p), "%s/notes.txt", top);
	write_file(p, "not a submission\n");
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), -1);
	ck_assert_int_eq(in.status, INTAKE_E_FORMAT);
	intake_release(&in);

	snprintf(p, sizeof(p), "%s/does-not-exist.tar.gz", top);
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), -1);
	ck_assert_int_eq(in.status, INTAKE_E_OPEN);
	ck_assert_msg(strstr(in.error, "no such file"), "%s", in.error);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_bad_tmpdir)
{
	struct intake in;
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/plain.tar", corpus);
	ck_assert_int_eq(intake_open(&in, p, NULL, "/nonexistent/dir"), -1);
	ck_assert_int_eq(in.status, INTAKE_E_INTERNAL);
	intake_release(&in);
}
END_TEST

/* ---- setup ---- */

static const char *find_script(char *buf, size_t len)
{
	const char *env = getenv("WG_HOSTILE_ARCHIVES");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env)
		return env;
	snprintf(buf, len, "tests/archives/make-hostile-archives");
	if (access(buf, R_OK) == 0)
		return buf;
	/* build/tests/check_intake -> ../../tests/archives/... */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(buf, len, "%s/../../tests/archives/"
			 "make-hostile-archives", exe);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	return NULL;
}

static int make_corpus(void)
{
	char script[PATH_MAX * 2], cmd[PATH_MAX * 5];
	const char *tmp = getenv("TMPDIR");
	FILE *f;
	char line[512];

	snprintf(top, sizeof(top), "%s/wg-check-intake-XXXXXX",
		 tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(top))
		return -1;
	snprintf(corpus, sizeof(corpus), "%s/corpus", top);
	snprintf(extract, sizeof(extract), "%s/extract", top);
	snprintf(sentinel, sizeof(sentinel), "%s/sentinel", top);
	if (mkdir(extract, 0700) < 0 || mkdir(sentinel, 0700) < 0)
		return -1;
	if (!find_script(script, sizeof(script))) {
		fprintf(stderr, "check_intake: make-hostile-archives not "
			"found (set WG_HOSTILE_ARCHIVES)\n");
		return -1;
	}
	/* The '..' archives aim at corpus/../sentinel and, extracted from
	 * extract/warpgrade-sub-X/, at extract/sentinel: both stay empty.
	 * So also does the directory the archives are extracted into. */
	snprintf(cmd, sizeof(cmd), "python3 '%s' '%s'", script, corpus);
	if (system(cmd) != 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/MANIFEST.tsv", corpus);
	f = fopen(cmd, "r");
	if (!f)
		return -1;
	while (ncases < MAX_CASES && fgets(line, sizeof(line), f)) {
		struct hostile_case *c = &cases[ncases];
		char *fld[4], *save = NULL, *tok;
		int k = 0;

		line[strcspn(line, "\n")] = '\0';
		for (tok = strtok_r(line, "\t", &save); tok && k < 4;
		     tok = strtok_r(NULL, "\t", &save))
			fld[k++] = tok;
		if (k < 3)
			continue;
		snprintf(c->name, sizeof(c->name), "%s", fld[0]);
		snprintf(c->fate, sizeof(c->fate), "%s", fld[1]);
		snprintf(c->status, sizeof(c->status), "%s", fld[2]);
		snprintf(c->text, sizeof(c->text), "%s", k > 3 ? fld[3] : "");
		ncases++;
	}
	fclose(f);
	return ncases > 0 ? 0 : -1;
}

static Suite *intake_suite(void)
{
	Suite *s = suite_create("intake");
	TCase *tc;

	tc = tcase_create("hostile archives");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_hostile_archive, 0, ncases);
	suite_add_tcase(s, tc);

	tc = tcase_create("extraction");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_extracted_content);
	tcase_add_test(tc, test_small_caps);
	tcase_add_test(tc, test_escape_name);
	tcase_add_test(tc, test_bad_tmpdir);
	suite_add_tcase(s, tc);

	tc = tcase_create("directory and file input");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_dir_input);
	tcase_add_test(tc, test_dir_symlink);
	tcase_add_test(tc, test_dir_specials);
	tcase_add_test(tc, test_dir_caps);
	tcase_add_test(tc, test_single_file);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (make_corpus() < 0) {
		fprintf(stderr, "check_intake: cannot build the hostile "
			"archive corpus\n");
		if (top[0])
			rm_rf(top);
		return 1;
	}
	sr = srunner_create(intake_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (count_dir(sentinel) != 0) {
		fprintf(stderr, "check_intake: files escaped into '%s'\n",
			sentinel);
		failed++;
	} else {
		rm_rf(top);
	}
	return failed ? 1 : 0;
}
