/*
 * A process tree weighed from /proc (see proctree.h).  /proc/PID/stat
 * gives the CPU ticks and the resident pages in one read;
 * smaps_rollup gives the proportional set size, at the price of a walk
 * of the page tables.
 */
#include "proctree.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

double proctree_cpu(pid_t pid, int *budget, unsigned long long *rss)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st, cut, cst, pages;
	long child;
	double sum = 0;
	struct dirent *de;
	DIR *d;
	FILE *f;
	int fd, n;

	if (--*budget < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* Fields after the command name, which may contain anything. */
	p = strrchr(buf, ')');
	if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
			"%*u %llu %llu %llu %llu %*d %*d %*d %*d %*u %*u "
			"%llu", &ut, &st, &cut, &cst, &pages) == 5) {
		sum = (double)(ut + st + cut + cst) /
		      (double)sysconf(_SC_CLK_TCK);
		*rss += pages;
	}
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return sum;
	for (;;) {
		de = readdir(d);
		if (!de)
			break;
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children",
			 (int)pid, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fscanf(f, "%ld", &child) == 1 && *budget > 0)
			sum += proctree_cpu((pid_t)child, budget, rss);
		fclose(f);
	}
	closedir(d);
	return sum;
}

unsigned long long proctree_pss(pid_t pid, int *budget)
{
	char path[64], line[256];
	unsigned long long sum = 0, kb;
	long child;
	struct dirent *de;
	DIR *d;
	FILE *f;

	if (--*budget < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Pss: %llu kB", &kb) == 1) {
			sum += kb;
			break;
		}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children",
			 (int)pid, de->d_name);
		f = fopen(path, "re");
		while (f && fscanf(f, "%ld", &child) == 1 && *budget > 0)
			sum += proctree_pss((pid_t)child, budget);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return sum;
}
