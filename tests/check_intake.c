/*
 * Check tests for grader/intake: the hostile-archive corpus
 * (generated at test time by tests/archives/make-hostile-archives into a
 * temporary directory, never into the repository), directory and single
 * file input, junk that is ignored, entries that are skipped with a note,
 * the caps and scan bounds, finding the exercise files and the hints for
 * near misses, and the promise that nothing is ever written outside the
 * extraction directory (a sentinel folder next to it must stay empty).
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

/* A file of `size` bytes of source-like text. */
static void write_sized(const char *path, size_t size)
{
	static const char line[] = "float t[] = { 1.0f, 2.0f, 3.0f };\n";
	FILE *f = fopen(path, "w");
	size_t n;

	ck_assert_msg(f != NULL, "cannot create '%s'", path);
	for (n = 0; n + sizeof(line) - 1 <= size; n += sizeof(line) - 1)
		fputs(line, f);
	for (; n < size; n++)
		fputc('\n', f);
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

/* The first note that contains text, or NULL. */
static const char *find_note(const struct intake *in, const char *text)
{
	size_t i;

	for (i = 0; i < in->nnotes; i++)
		if (strstr(in->notes[i], text))
			return in->notes[i];
	return NULL;
}

static void assert_notes_one_line(const struct intake *in)
{
	size_t i;

	for (i = 0; i < in->nnotes; i++)
		ck_assert_msg(in->notes[i][0] && !strchr(in->notes[i], '\n'),
			      "note %zu is not one line: '%s'", i,
			      in->notes[i]);
}

static void corpus_file(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", corpus, name);
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
	if (strcmp(c->fate, "reject") != 0) {
		ck_assert_msg(rc == 0, "%s: rejected: %s", c->name, in.error);
		ck_assert_int_eq(in.status, INTAKE_OK);
		ck_assert_int_eq(in.kind, INTAKE_ARCHIVE);
		ck_assert_ptr_nonnull(in.dir);
		ck_assert_ptr_nonnull(in.root);
		ck_assert(strncmp(in.dir, extract, strlen(extract)) == 0);
		assert_notes_one_line(&in);
		/* a '..' entry extracted there would sit in extract/ */
		ck_assert_int_eq(count_dir(extract), 1);
	}
	if (strcmp(c->fate, "note") == 0) {
		ck_assert_msg(find_note(&in, c->text) != NULL,
			      "%s: no note contains '%s'", c->name, c->text);
	} else if (strcmp(c->fate, "accept") == 0) {
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
		ck_assert_ptr_null(in.notes);
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

/* The caps cost files, never the submission (plain.tar: four files of
 * 27 bytes). */
START_TEST(test_small_caps)
{
	struct intake in;
	struct intake_limits lim;
	char path[PATH_MAX * 2];

	corpus_file(path, sizeof(path), "plain.tar");
	intake_limits_default(&lim);
	lim.max_entries = 3;
	ck_assert_int_eq(intake_open(&in, path, &lim, extract), 0);
	ck_assert_uint_eq(in.files, 3);
	ck_assert_uint_eq(in.skipped, 1);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_str_eq(in.notes[0], "skipped 'dynamic_reverse.cu': more "
			 "than 3 files (entry cap)");
	intake_release(&in);

	intake_limits_default(&lim);
	lim.max_file_bytes = 10;
	ck_assert_int_eq(intake_open(&in, path, &lim, extract), 0);
	ck_assert_uint_eq(in.files, 0);
	ck_assert_uint_eq(in.nnotes, 4);
	ck_assert_str_eq(in.notes[0], "skipped 'coalesced_transpose.cu': "
			 "larger than 10 bytes (file cap)");
	intake_release(&in);

	intake_limits_default(&lim);
	lim.max_total_bytes = 60;
	ck_assert_int_eq(intake_open(&in, path, &lim, extract), 0);
	ck_assert_uint_eq(in.files, 2);
	ck_assert_uint_eq(in.bytes, 54);
	ck_assert_uint_eq(in.skipped, 2);
	ck_assert_ptr_nonnull(find_note(&in, "past 60 bytes in all (total "
					"cap)"));
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
	ck_assert_int_eq(in.files, 1);
	ck_assert_int_eq(intake_find(&in, "padded_tile.cu", found,
				     sizeof(found)), 0);
	/* a copy, not the original */
	ck_assert(strncmp(found, extract, strlen(extract)) == 0);
	ck_assert_int_eq(stat(in.root, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0755);
	/* the text file is ignored, and its folder is not made */
	ck_assert_uint_eq(in.ignored, 1);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_str_eq(in.notes[0], "ignored 1 entry that is not a CUDA "
			 "source or header ('hw/notes/readme.txt')");
	snprintf(found, sizeof(found), "%s/notes", in.root);
	ck_assert_int_ne(access(found, F_OK), 0);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_dir_symlink)
{
	struct intake in;
	char p[PATH_MAX * 2], q[PATH_MAX * 2];
	const char *note;

	/* a link with a source's name: skipped, noted, not followed */
	make_src();
	snprintf(p, sizeof(p), "%s/hw/link.cu", src);
	ck_assert_int_eq(symlink("/etc/passwd", p), 0);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 1);
	note = find_note(&in, "'hw/link.cu'");
	ck_assert_msg(note && !strcmp(note, "skipped 'hw/link.cu': symbolic "
				      "link (only regular files are taken)"),
		      "%s", note ? note : "(no note)");
	ck_assert_int_eq(intake_find(&in, "link.cu", q, sizeof(q)), 1);
	snprintf(q, sizeof(q), "%s/link.cu", in.root);
	ck_assert_int_ne(access(q, F_OK), 0);
	intake_release(&in);

	/* a link posing as a folder full of sources: not entered */
	make_src();
	snprintf(p, sizeof(p), "%s/outside", top);
	rm_rf(p);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(q, sizeof(q), "%s/outside/secret.cu", top);
	write_file(q, "// not part of the submission\n");
	snprintf(q, sizeof(q), "%s/hw/lib", src);
	ck_assert_int_eq(symlink(p, q), 0);
	snprintf(q, sizeof(q), "%s/hw/escape", src);
	ck_assert_int_eq(symlink(sentinel, q), 0);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 1);
	ck_assert_uint_eq(in.ignored, 3);	/* readme, lib, escape */
	ck_assert_int_eq(intake_find(&in, "secret.cu", q, sizeof(q)), 1);
	intake_release(&in);
	rm_rf(p);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_dir_specials)
{
	struct intake in;
	struct sockaddr_un sa;
	char p[PATH_MAX * 2];
	int s;

	/* with a source's name: noted; without: ignored, never opened */
	make_src();
	snprintf(p, sizeof(p), "%s/hw/pipe.cu", src);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/hw/pipe", src);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 1);
	ck_assert_uint_eq(in.ignored, 2);
	ck_assert_ptr_nonnull(find_note(&in, "skipped 'hw/pipe.cu': FIFO"));
	intake_release(&in);

	make_src();
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(p, sizeof(p), "%s/hw/sock.cu", src);
	if (strlen(p) < sizeof(sa.sun_path) &&
	    memcpy(sa.sun_path, p, strlen(p) + 1) &&
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
		ck_assert_ptr_nonnull(find_note(&in, "'hw/sock.cu': socket"));
		intake_release(&in);
	}
	close(s);

	make_src();
	snprintf(p, sizeof(p), "%s/hw/null.cu", src);
	if (mknod(p, S_IFCHR | 0644, makedev(1, 3)) == 0) {
		ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
		ck_assert_ptr_nonnull(find_note(&in, "'hw/null.cu': character "
						"device"));
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
	ck_assert_int_eq(intake_open(&in, src, &lim, extract), 0);
	ck_assert_uint_eq(in.files, 10);
	ck_assert_uint_eq(in.skipped, 11);
	ck_assert_ptr_nonnull(find_note(&in, "more than 10 files (entry "
					"cap)"));
	intake_release(&in);
	lim.max_entries = 256;
	lim.max_file_bytes = 4;
	ck_assert_int_eq(intake_open(&in, src, &lim, extract), 0);
	ck_assert_uint_eq(in.files, 20);
	ck_assert_ptr_nonnull(find_note(&in, "skipped 'hw/padded_tile.cu': "
					"larger than 4 bytes (file cap)"));
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

	/* too big: usable, but nothing kept, and the hint says why */
	snprintf(p, sizeof(p), "%s/aos_to_soa.cu", top);
	write_sized(p, 2 << 20);
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 0);
	ck_assert_int_eq(intake_near_miss(&in, "aos_to_soa.cu", found,
					  sizeof(found)), 1);
	ck_assert_str_eq(found, "'aos_to_soa.cu' was not used: larger than "
			 "1 MiB (file cap)");
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

/* ---- junk is ignored ---- */

static const char *const exercise_files[] = {
	"coalesced_transpose.cu", "padded_tile.cu", "aos_to_soa.cu",
	"dynamic_reverse.cu", NULL
};

/*
 * A fresh src/ holding the given files (NULL-terminated; parent folders
 * made as needed), each "// x\n" unless listed in big, which get 2 MiB.
 */
static void make_tree(const char *const *files, const char *const *big)
{
	char p[PATH_MAX * 2];
	const char *const *f, *const *b;
	char *slash;
	int large;

	snprintf(src, sizeof(src), "%s/src", top);
	rm_rf(src);
	ck_assert_int_eq(mkdir(src, 0755), 0);
	for (f = files; *f; f++) {
		snprintf(p, sizeof(p), "%s/%s", src, *f);
		for (slash = strchr(p + strlen(src) + 1, '/'); slash;
		     slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			ck_assert(mkdir(p, 0755) == 0 || errno == EEXIST);
			*slash = '/';
		}
		large = 0;
		for (b = big; b && *b; b++)
			large |= !strcmp(*b, *f);
		if (large)
			write_sized(p, 2 << 20);
		else
			write_file(p, "// x\n");
	}
}

static void assert_exercises_found(const struct intake *in)
{
	char found[PATH_MAX * 2];
	const char *const *f;

	for (f = exercise_files; *f; f++)
		ck_assert_msg(intake_find(in, *f, found, sizeof(found)) == 0,
			      "%s not found", *f);
}

/* .git/ with 1,000 objects: not even entered (the scan bound here is
 * far below what walking it would take). */
START_TEST(test_dir_git)
{
	struct intake in;
	struct intake_limits lim;
	char p[PATH_MAX * 2];
	int i, j;

	make_tree(exercise_files, NULL);
	snprintf(p, sizeof(p), "%s/.git", src);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/.git/HEAD", src);
	write_file(p, "ref: refs/heads/main\n");
	snprintf(p, sizeof(p), "%s/.git/objects", src);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	for (i = 0; i < 10; i++) {
		snprintf(p, sizeof(p), "%s/.git/objects/%02x", src, i);
		ck_assert_int_eq(mkdir(p, 0755), 0);
		for (j = 0; j < 100; j++) {
			snprintf(p, sizeof(p), "%s/.git/objects/%02x/"
				 "%038x.h", src, i, j);
			write_file(p, "blob\n");
		}
	}
	intake_limits_default(&lim);
	lim.max_scan_entries = 64;
	ck_assert_int_eq(intake_open(&in, src, &lim, extract), 0);
	ck_assert_uint_eq(in.files, 4);
	ck_assert_uint_eq(in.ignored, 1);
	ck_assert_uint_eq(in.skipped, 0);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_str_eq(in.notes[0], "ignored 1 entry that is not a CUDA "
			 "source or header ('.git/')");
	ck_assert_str_eq(in.root, in.dir);
	assert_exercises_found(&in);
	snprintf(p, sizeof(p), "%s/.git", in.dir);
	ck_assert_int_ne(access(p, F_OK), 0);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* A folder too deep to enter (d9/, the ninth component): noted by
 * name, not passed off as junk. */
START_TEST(test_dir_too_deep)
{
	static const char *const files[] = {
		"coalesced_transpose.cu", "padded_tile.cu", "aos_to_soa.cu",
		"dynamic_reverse.cu", "d1/d2/d3/d4/d5/d6/d7/d8/d9/x.cu",
		"d1/d2/d3/d4/d5/d6/d7/ok.cu", NULL
	};
	struct intake in;
	char p[PATH_MAX * 2];

	make_tree(files, NULL);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 5);
	ck_assert_uint_eq(in.skipped, 1);
	ck_assert_uint_eq(in.ignored, 0);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_str_eq(in.notes[0], "skipped 'd1/d2/d3/d4/d5/d6/d7/d8/d9/': "
			 "nested too deeply");
	ck_assert_int_eq(intake_find(&in, "ok.cu", p, sizeof(p)), 0);
	ck_assert_int_eq(intake_find(&in, "x.cu", p, sizeof(p)), 1);
	assert_exercises_found(&in);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* A compiled test binary and a profile beside the sources. */
START_TEST(test_dir_stray_binary)
{
	static const char *const files[] = {
		"coalesced_transpose.cu", "padded_tile.cu", "aos_to_soa.cu",
		"dynamic_reverse.cu", "a.out", "hw3.ncu-rep", NULL
	};
	struct intake in;
	char p[PATH_MAX * 2];

	make_tree(files, NULL);
	snprintf(p, sizeof(p), "%s/a.out", src);
	ck_assert_int_eq(truncate(p, 5 << 20), 0);
	snprintf(p, sizeof(p), "%s/hw3.ncu-rep", src);
	write_sized(p, 3 << 20);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 4);
	ck_assert_uint_eq(in.bytes, 4 * strlen("// x\n"));
	ck_assert_uint_eq(in.ignored, 2);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_ptr_nonnull(strstr(in.notes[0], "ignored 2 entries that "
				     "are not CUDA sources or headers ("));
	ck_assert_ptr_nonnull(strstr(in.notes[0], "'a.out'"));
	ck_assert_ptr_nonnull(strstr(in.notes[0], "'hw3.ncu-rep'"));
	assert_exercises_found(&in);
	snprintf(p, sizeof(p), "%s/a.out", in.dir);
	ck_assert_int_ne(access(p, F_OK), 0);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_zip_macosx)
{
	struct intake in;
	char p[PATH_MAX * 2];

	corpus_file(p, sizeof(p), "nested-folder.zip");
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 4);
	ck_assert_uint_eq(in.skipped, 0);
	ck_assert_uint_eq(in.ignored, 4);
	ck_assert_str_eq(in.notes[0], "ignored 4 entries that are not CUDA "
			 "sources or headers ('__MACOSX/', 'hw3/.DS_Store')");
	ck_assert_str_eq(strrchr(in.root, '/'), "/hw3");
	assert_exercises_found(&in);
	snprintf(p, sizeof(p), "%s/__MACOSX", in.dir);
	ck_assert_int_ne(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/.DS_Store", in.root);
	ck_assert_int_ne(access(p, F_OK), 0);
	intake_release(&in);

	corpus_file(p, sizeof(p), "junk-beside.zip");
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 4);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_str_eq(in.notes[0], "ignored 11 entries that are not CUDA "
			 "sources or headers ('.git/', '.vscode/', 'a.out', "
			 "...)");
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* ---- skipped entries are noted ---- */

START_TEST(test_dotdot_beside)
{
	struct intake in;
	char p[PATH_MAX * 2];

	corpus_file(p, sizeof(p), "dotdot-beside.tar");
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 4);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_str_eq(in.notes[0], "skipped '../evil.cu': path contains "
			 "a '..' component");
	snprintf(p, sizeof(p), "%s/evil.cu", extract);
	ck_assert_int_ne(access(p, F_OK), 0);
	assert_exercises_found(&in);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_over_cap_kept_type)
{
	static const char *const files[] = {
		"coalesced_transpose.cu", "padded_tile.cu", "aos_to_soa.cu",
		"dynamic_reverse.cu", "big_table.h", NULL
	};
	static const char *const big[] = { "big_table.h", NULL };
	struct intake in;
	char p[PATH_MAX * 2];

	corpus_file(p, sizeof(p), "big-header-beside.tar.gz");
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 4);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_str_eq(in.notes[0], "skipped 'big_table.h': larger than "
			 "1 MiB (file cap)");
	ck_assert_int_eq(intake_find(&in, "big_table.h", p, sizeof(p)), 1);
	assert_exercises_found(&in);
	intake_release(&in);

	make_tree(files, big);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 4);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_str_eq(in.notes[0], "skipped 'big_table.h': larger than "
			 "1 MiB (file cap)");
	assert_exercises_found(&in);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* 100,000 empty .cu files: 256 kept, 50 notes, then one for the rest. */
START_TEST(test_notes_capped)
{
	struct intake in;
	char p[PATH_MAX * 2];

	corpus_file(p, sizeof(p), "many-entries.tar.gz");
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 256);
	ck_assert_uint_eq(in.skipped, 100000 - 256);
	ck_assert_uint_eq(in.nnotes, INTAKE_MAX_NOTES + 1);
	ck_assert_str_eq(in.notes[0], "skipped 'e000256.cu': more than 256 "
			 "files (entry cap)");
	ck_assert_str_eq(in.notes[INTAKE_MAX_NOTES], "and 99,694 more "
			 "skipped entries (not listed)");
	assert_notes_one_line(&in);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* Damage after some files: they are kept, the note says where. */
START_TEST(test_damaged_after_kept)
{
	struct intake in;
	char p[PATH_MAX * 2];

	corpus_file(p, sizeof(p), "truncated.zip");
	ck_assert_int_eq(intake_open(&in, p, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 2);
	ck_assert_uint_eq(in.nnotes, 1);
	ck_assert_ptr_nonnull(strstr(in.notes[0], "stopped at entry 3 "
				     "('r2.cu'): truncated or corrupt"));
	ck_assert_int_eq(intake_find(&in, "r2.cu", p, sizeof(p)), 1);
	ck_assert_int_eq(intake_find(&in, "r1.cu", p, sizeof(p)), 0);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* ---- scan bounds ---- */

/* name from the corpus is unusable within 3 s, for a reason with text. */
static void expect_bounded(const char *name, const struct intake_limits *lim,
			   const char *text)
{
	struct intake in;
	char p[PATH_MAX * 2];
	double t0, dt;

	corpus_file(p, sizeof(p), name);
	t0 = now();
	ck_assert_int_eq(intake_open(&in, p, lim, extract), -1);
	dt = now() - t0;
	ck_assert_msg(dt < 3.0, "%s: took %.1f s", name, dt);
	ck_assert_int_eq(in.status, INTAKE_E_LIMIT);
	ck_assert_msg(strstr(in.error, text), "%s: '%s' lacks '%s'", name,
		      in.error, text);
	ck_assert_ptr_null(in.dir);
	intake_release(&in);
	assert_nothing_outside();
}

/* One 2 GiB junk file in 2 MB: refused by its declared size. */
START_TEST(test_junk_bomb)
{
	expect_bounded("junk-bomb.tar.gz", NULL,
		       "stopped at entry 'core': more than 256 MiB to read "
		       "(scan cap)");
}
END_TEST

/* 64 MiB of junk zeros after the sources: the ratio counts it. */
START_TEST(test_junk_bomb_many)
{
	expect_bounded("junk-bomb-many.tar.gz", NULL, "ratio cap");
}
END_TEST

/* A streamed zip entry of unknown length inside gzip: drained under
 * the bounds instead of being inflated whole by a skip. */
START_TEST(test_junk_bomb_stream)
{
	expect_bounded("junk-bomb-stream.tgz", NULL,
		       "stopped at entry 'core.bin': expands more than 200 "
		       "times (ratio cap");
}
END_TEST

START_TEST(test_many_junk_entries)
{
	struct intake_limits lim;

	expect_bounded("many-junk.tar.gz", NULL,
		       "more than 100,000 entries (scan cap)");
	/* an archive file bigger than the byte bound is not read at all */
	intake_limits_default(&lim);
	lim.max_scan_bytes = 1 << 20;
	expect_bounded("many-junk.tar.gz", &lim,
		       "larger than 1 MiB (scan cap)");
}
END_TEST

/* ---- finding the exercise files ---- */

START_TEST(test_find_subfolder)
{
	static const char *const files[] = {
		"README.md", "src/aos_to_soa.cu", "src/padded_tile.cu", NULL
	};
	struct intake in;
	char found[PATH_MAX * 2], want[PATH_MAX * 2];

	make_tree(files, NULL);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_str_eq(strrchr(in.root, '/'), "/src");
	ck_assert_int_eq(intake_find(&in, "aos_to_soa.cu", found,
				     sizeof(found)), 0);
	snprintf(want, sizeof(want), "%s/aos_to_soa.cu", in.root);
	ck_assert_str_eq(found, want);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* Not in the root: anywhere in the kept tree, the shallowest wins. */
START_TEST(test_find_in_tree)
{
	static const char *const files[] = {
		"Makefile", "src/aos_to_soa.cu", "tests/test_main.cu",
		"a/old/padded_tile.cu", "b/padded_tile.cu", NULL
	};
	struct intake in;
	char found[PATH_MAX * 2], want[PATH_MAX * 2];

	make_tree(files, NULL);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_str_eq(in.root, in.dir);
	ck_assert_int_eq(intake_find(&in, "aos_to_soa.cu", found,
				     sizeof(found)), 0);
	snprintf(want, sizeof(want), "%s/src/aos_to_soa.cu", in.dir);
	ck_assert_str_eq(found, want);
	ck_assert_int_eq(intake_find(&in, "padded_tile.cu", found,
				     sizeof(found)), 0);
	snprintf(want, sizeof(want), "%s/b/padded_tile.cu", in.dir);
	ck_assert_str_eq(found, want);
	ck_assert_int_eq(intake_near_miss(&in, "padded_tile.cu", found,
					  sizeof(found)), 0);
	ck_assert_str_eq(found, "");
	ck_assert_int_eq(intake_find(&in, "src/aos_to_soa.cu", found,
				     sizeof(found)), 1);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

START_TEST(test_find_ambiguous)
{
	static const char *const files[] = {
		"v1/aos_to_soa.cu", "v2/aos_to_soa.cu", "v1/padded_tile.cu",
		NULL
	};
	struct intake in;
	char found[PATH_MAX * 2], hint[512];

	make_tree(files, NULL);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_int_eq(intake_find(&in, "aos_to_soa.cu", found,
				     sizeof(found)), 1);
	ck_assert_int_eq(intake_find(&in, "padded_tile.cu", found,
				     sizeof(found)), 0);
	ck_assert_int_eq(intake_near_miss(&in, "aos_to_soa.cu", hint,
					  sizeof(hint)), 1);
	ck_assert_msg(strstr(hint, "'aos_to_soa.cu' is ambiguous: found '") &&
		      strstr(hint, "'v1/aos_to_soa.cu'") &&
		      strstr(hint, "'v2/aos_to_soa.cu'"), "%s", hint);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* ---- near misses ---- */

static void expect_hint(const struct intake *in, const char *file,
			const char *hint)
{
	char out[512], found[PATH_MAX * 2];

	ck_assert_int_eq(intake_find(in, file, found, sizeof(found)), 1);
	ck_assert_int_eq(intake_near_miss(in, file, out, sizeof(out)),
			 hint != NULL);
	ck_assert_str_eq(out, hint ? hint : "");
}

START_TEST(test_near_miss_names)
{
	static const char *const files[] = {
		"hw3_aos_to_soa.cu", "Coalesced_Transpose.cu",
		"padded_tile (1).cu", "dynamic_reverse.cuh", "notes.txt",
		NULL
	};
	struct intake in;
	char out[16];

	make_tree(files, NULL);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	expect_hint(&in, "aos_to_soa.cu",
		    "found 'hw3_aos_to_soa.cu': rename it to aos_to_soa.cu");
	expect_hint(&in, "coalesced_transpose.cu",
		    "found 'Coalesced_Transpose.cu' (names are "
		    "case-sensitive): rename it to coalesced_transpose.cu");
	expect_hint(&in, "padded_tile.cu",
		    "found 'padded_tile (1).cu': rename it to padded_tile.cu");
	expect_hint(&in, "dynamic_reverse.cu",
		    "found 'dynamic_reverse.cuh' (a header): the exercise "
		    "file must be dynamic_reverse.cu");
	expect_hint(&in, "reverse_rows.cu", NULL);
	expect_hint(&in, "notes.cu", NULL);	/* .txt is not kept */
	/* present: nothing to say */
	ck_assert_int_eq(intake_near_miss(&in, "hw3_aos_to_soa.cu", out,
					  sizeof(out)), 0);
	/* short buffer: truncated, terminated */
	ck_assert_int_eq(intake_near_miss(&in, "aos_to_soa.cu", out,
					  sizeof(out)), 1);
	ck_assert_uint_eq(strlen(out), sizeof(out) - 1);
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* A .cu beats a header; then the name closest in length. */
START_TEST(test_near_miss_prefers)
{
	static const char *const files[] = {
		"aos_to_soa.cuh", "old_aos_to_soa_v2.cu",
		"x/hw3_aos_to_soa.cu", NULL
	};
	struct intake in;

	make_tree(files, NULL);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	expect_hint(&in, "aos_to_soa.cu",
		    "found 'x/hw3_aos_to_soa.cu': rename it to aos_to_soa.cu");
	intake_release(&in);
	assert_nothing_outside();
}
END_TEST

/* The exact file was there but skipped: say why. */
START_TEST(test_near_miss_skipped)
{
	static const char *const files[] = {
		"hw/coalesced_transpose.cu", "hw/padded_tile.cu", NULL
	};
	static const char *const big[] = { "hw/coalesced_transpose.cu", NULL };
	struct intake in;

	make_tree(files, big);
	ck_assert_int_eq(intake_open(&in, src, NULL, extract), 0);
	ck_assert_uint_eq(in.files, 1);
	expect_hint(&in, "coalesced_transpose.cu",
		    "'hw/coalesced_transpose.cu' was not used: larger than "
		    "1 MiB (file cap)");
	intake_release(&in);
	assert_nothing_outside();
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

	tc = tcase_create("junk is ignored");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_dir_git);
	tcase_add_test(tc, test_dir_stray_binary);
	tcase_add_test(tc, test_dir_too_deep);
	tcase_add_test(tc, test_zip_macosx);
	suite_add_tcase(s, tc);

	tc = tcase_create("skipped entries are noted");
	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, test_dotdot_beside);
	tcase_add_test(tc, test_over_cap_kept_type);
	tcase_add_test(tc, test_notes_capped);
	tcase_add_test(tc, test_damaged_after_kept);
	suite_add_tcase(s, tc);

	tc = tcase_create("scan bounds");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_junk_bomb);
	tcase_add_test(tc, test_junk_bomb_many);
	tcase_add_test(tc, test_junk_bomb_stream);
	tcase_add_test(tc, test_many_junk_entries);
	suite_add_tcase(s, tc);

	tc = tcase_create("finding the exercise files");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_find_subfolder);
	tcase_add_test(tc, test_find_in_tree);
	tcase_add_test(tc, test_find_ambiguous);
	suite_add_tcase(s, tc);

	tc = tcase_create("near misses");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_near_miss_names);
	tcase_add_test(tc, test_near_miss_prefers);
	tcase_add_test(tc, test_near_miss_skipped);
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
