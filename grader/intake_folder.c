/*
 * Folders and single files into the intake (see intake.h): a folder
 * walked without following any link, ignored folders never entered,
 * each item judged by its name and type before it is opened; a single
 * .cu file copied under its own name.
 */
#include "intake_copy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copy the open regular file src to the kept file norm. */
static int keep_fd(struct xstate *x, int src, const char *norm)
{
	const char *why;
	char buf[256];
	size_t have = 0;
	ssize_t n;
	int fd, r;

	fd = intake_create_file(x, norm, &why);
	if (fd == -1)
		return -1;
	if (fd < 0)
		return intake_skip(x, norm, why);
	for (;;) {
		n = read(src, x->buf, COPY_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(buf, sizeof(buf), "cannot read it: %s",
				 intake_errstr(errno));
			intake_discard(x, fd, norm);
			return intake_skip(x, norm, buf);
		}
		if (n == 0)
			break;
		x->produced += (size_t)n;
		if (intake_check_scan(x, norm, 0) < 0) {
			close(fd);
			return -1;
		}
		r = intake_put_block(x, fd, norm, &have, x->buf, (size_t)n,
				     have, buf, sizeof(buf));
		if (r < 0) {
			close(fd);
			return -1;
		}
		if (r > 0) {
			intake_discard(x, fd, norm);
			return intake_skip(x, norm, buf);
		}
	}
	return intake_finish_file(x, fd, norm, have);
}

/* Keep the regular file `name` of folder dirfd (norm in our tree). */
static int keep_path(struct xstate *x, int dirfd, const char *name,
		     const char *norm, const struct stat *st)
{
	struct stat now;
	const char *why;
	char buf[256];
	int src, r;

	why = intake_admit(x, norm, st->st_size > 0 ? (uint64_t)st->st_size : 0,
			   buf, sizeof(buf));
	if (why)
		return intake_skip(x, norm, why);
	/* O_NONBLOCK: a FIFO swapped in after fstatat must not hang us;
	 * fstat below catches the swap. */
	src = openat(dirfd, name,
		     O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (src < 0) {
		snprintf(buf, sizeof(buf), "cannot open it: %s",
			 intake_errstr(errno));
		return intake_skip(x, norm, buf);
	}
	if (fstat(src, &now) < 0 || !S_ISREG(now.st_mode)) {
		close(src);
		return intake_skip(x, norm, "changed while being read");
	}
	r = keep_fd(x, src, norm);
	close(src);
	return r;
}

static const char *mode_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "symbolic link";
	if (S_ISCHR(m))
		return "character device";
	if (S_ISBLK(m))
		return "block device";
	if (S_ISFIFO(m))
		return "FIFO";
	if (S_ISSOCK(m))
		return "socket";
	return "unsupported file type";
}

/* A folder that cannot be listed: fatal at the top, noted below. */
static int cannot_list(struct xstate *x, const char *rel, int err)
{
	char name[MAX_NAME_BYTES + 2], buf[160];

	if (!rel[0])
		return intake_fail(x->in, INTAKE_E_OPEN, "cannot list '%s': %s",
				   x->path, intake_errstr(err));
	snprintf(name, sizeof(name), "%s/", rel);
	snprintf(buf, sizeof(buf), "cannot list this folder: %s",
		 intake_errstr(err));
	return intake_skip(x, name, buf);
}

/* A folder item that cannot be kept or entered under its name: noted
 * when it could hold or be an exercise file, else ignored. */
static int bad_item_name(struct xstate *x, const char *sub,
			 const struct stat *st, int escape, const char *why)
{
	char name[MAX_NAME_BYTES + 2];

	if (st && S_ISDIR(st->st_mode)) {
		snprintf(name, sizeof(name), "%s/", sub);
		return intake_skip(x, name, why);
	}
	if (escape || intake_kept_type(sub))
		return intake_skip(x, sub, why);
	intake_ignore(x, sub, strlen(sub), 0);
	return 0;
}

/*
 * One item of the folder srcfd, which is named rel ("" at the top);
 * dtype is its d_type.  Ignored names are judged first, so a dot folder
 * is neither examined nor entered.
 */
static int take_item(struct xstate *x, int srcfd, const char *rel,
		     const char *item, int dtype)
{
	char sub[MAX_NAME_BYTES + 1], norm[MAX_NAME_BYTES + 1], buf[160];
	const char *why = "name too long";
	struct stat st;
	int fd, r, escape = 0, have_st;

	if (snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "",
		     item) < (int)sizeof(sub))
		why = intake_check_name(sub, norm, sizeof(norm), &escape);
	if (!escape && intake_ignored_name(item)) {
		intake_ignore(x, sub, strlen(sub), dtype == DT_DIR);
		return 0;
	}
	have_st = fstatat(srcfd, item, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (why)
		return bad_item_name(x, sub, have_st ? &st : NULL, escape, why);
	if (!have_st && intake_kept_type(item)) {
		snprintf(buf, sizeof(buf), "cannot inspect it: %s",
			 intake_errstr(errno));
		return intake_skip(x, norm, buf);
	}
	if (have_st && S_ISDIR(st.st_mode)) {
		fd = openat(srcfd, item, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);
		if (fd < 0)
			return cannot_list(x, sub, errno);
		r = intake_copy_tree(x, fd, sub);
		close(fd);
		return r;
	}
	if (!have_st || !intake_kept_type(item)) {
		intake_ignore(x, norm, strlen(norm), 0);
		return 0;
	}
	if (S_ISREG(st.st_mode))
		return keep_path(x, srcfd, item, norm, &st);
	/* never followed: a link to a source could point anywhere */
	snprintf(buf, sizeof(buf), "%s (only regular files are taken)",
		 mode_kind(st.st_mode));
	return intake_skip(x, norm, buf);
}

/* Copy the folder srcfd (named rel, "" at the top) recursively; depth
 * is bounded by check_name, which turns deeper folders away. */
int intake_copy_tree(struct xstate *x, int srcfd, const char *rel)
{
	DIR *d;
	struct dirent *de;
	int dfd, ret;

	dfd = dup(srcfd);
	if (dfd < 0)
		return intake_fail(x->in, INTAKE_E_INTERNAL, "cannot dup: %s",
				   intake_errstr(errno));
	d = fdopendir(dfd);
	if (!d) {
		ret = cannot_list(x, rel, errno);
		close(dfd);
		return ret;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			ret = errno ? cannot_list(x, rel, errno) : 0;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = intake_count_scanned(x);
		if (ret == 0)
			ret = take_item(x, srcfd, rel, de->d_name,
					de->d_type);
		if (ret < 0)
			break;
	}
	closedir(d);
	return ret;
}

int intake_copy_single(struct xstate *x, const char *path, int fd)
{
	const char *base = strrchr(path, '/'), *why;
	char norm[MAX_NAME_BYTES + 1], buf[256];
	struct stat st;
	int escape;

	base = base ? base + 1 : path;
	if (intake_count_scanned(x) < 0)
		return -1;
	why = intake_check_name(base, norm, sizeof(norm), &escape);
	if (!why && fstat(fd, &st) == 0)
		why = intake_admit(x, norm, st.st_size > 0 ?
				   (uint64_t)st.st_size : 0, buf,
				   sizeof(buf));
	if (why)
		return intake_skip(x, base, why);
	return keep_fd(x, fd, norm);
}
