/*
 * A fake runner for tests/check_sandbox.c: it misbehaves the way student
 * code inside the real runner can (hang, spin, fork bomb, flood, crash,
 * exit early, poke at descriptors, the environment, files and the
 * network), without a GPU.  check_sandbox compiles it with cc at test
 * time.  Usage: fake_runner MODE [ARG]; fd 3 is the protocol pipe.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void say3(const char *s)
{
	ssize_t w = write(3, s, strlen(s));

	(void)w;
}

static void nap(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

static void flood(int fd, const char *tag, size_t bytes)
{
	char line[100];
	size_t done = 0;
	int n;

	n = snprintf(line, sizeof(line), "%s-HEAD\n", tag);
	done += (size_t)write(fd, line, (size_t)n);
	memset(line, 'x', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	while (done + 200 < bytes)
		done += (size_t)write(fd, line, sizeof(line));
	n = snprintf(line, sizeof(line), "%s-TAIL\n", tag);
	done += (size_t)write(fd, line, (size_t)n);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ok";
	char buf[4096];
	ssize_t n;
	size_t total = 0;

	if (!strcmp(mode, "ok")) {
		/* Echo the job message back on the protocol pipe. */
		for (;;) {
			n = read(0, buf, sizeof(buf));
			if (n <= 0)
				break;
			total += (size_t)n;
			if (write(3, buf, (size_t)n) != n)
				return 10;
		}
		printf("read %zu bytes\n", total);
		fprintf(stderr, "all good\n");
		return 0;
	}
	if (!strcmp(mode, "hang")) {
		for (;;)
			pause();
	}
	if (!strcmp(mode, "spin")) {
		volatile unsigned long x = 0;

		for (;;)
			x++;
	}
	if (!strcmp(mode, "forkbomb")) {
		int ok = 0, fails = 0;

		/* Report on fd 3 how many forks succeeded, then spin. */
		while (ok + fails < 400) {
			pid_t p = fork();

			if (p == 0) {
				for (;;)
					pause();
			}
			if (p > 0)
				ok++;
			else
				fails++;
		}
		snprintf(buf, sizeof(buf), "forks=%d fails=%d\n", ok, fails);
		say3(buf);
		for (;;)
			pause();
	}
	if (!strcmp(mode, "flood")) {
		flood(1, "OUT", 4u << 20);
		flood(2, "ERR", 3u << 20);
		return 0;
	}
	if (!strcmp(mode, "segv")) {
		volatile int *p = NULL;

		return *p;
	}
	if (!strcmp(mode, "fpe")) {
		volatile int a = 7, b = 0;

		return a / b;
	}
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "exit"))
		_exit(3);
	if (!strcmp(mode, "fds")) {
		/* Which descriptors above 2 are open? Only 3 may be. */
		int fd, open_fds = 0;

		for (fd = 3; fd < 1024; fd++)
			if (fcntl(fd, F_GETFD) >= 0) {
				printf("open %d\n", fd);
				open_fds++;
			}
		printf("count %d\n", open_fds);
		return 0;
	}
	if (!strcmp(mode, "env")) {
		char **e;
		char cwd[512];

		for (e = environ; *e; e++)
			printf("%s\n", *e);
		printf("cwd=%s\n", getcwd(cwd, sizeof(cwd)) ? cwd : "?");
		return 0;
	}
	if (!strcmp(mode, "phases")) {
		/* Three phases of 0.4 s each, announced on fd 3. */
		int i;

		for (i = 0; i < 3; i++) {
			say3("phase\n");
			nap(0.4);
		}
		say3("done\n");
		return 0;
	}
	if (!strcmp(mode, "corrupt")) {
		say3("GARBAGE");
		for (;;)
			pause();
	}
	if (!strcmp(mode, "ready")) {
		/* Ask for the job only once running, then echo it. */
		say3("ready\n");
		for (;;) {
			n = read(0, buf, sizeof(buf));
			if (n <= 0)
				break;
			if (write(3, buf, (size_t)n) != n)
				return 10;
		}
		return 0;
	}
	if (!strcmp(mode, "fsize")) {
		int fd = open("big.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);

		memset(buf, 'y', sizeof(buf));
		for (;;)
			if (write(fd, buf, sizeof(buf)) < 0)
				return 11;
	}
	if (!strcmp(mode, "escape")) {
		/* A grandchild leaves the group and keeps writing a file. */
		pid_t p = fork();

		if (p == 0) {
			setsid();
			if (fork() == 0) {
				for (;;) {
					int fd = open(argc > 2 ? argv[2] :
						      "alive.txt",
						      O_WRONLY | O_CREAT |
						      O_APPEND, 0644);

					if (fd >= 0) {
						n = write(fd, "x", 1);
						close(fd);
					}
					nap(0.05);
				}
			}
			_exit(0);
		}
		waitpid(p, NULL, 0);
		nap(0.2);
		return 0;
	}
	if (!strcmp(mode, "read")) {
		/* Try to read a file outside the working directory. */
		int fd = open(argv[2], O_RDONLY);

		printf(fd >= 0 ? "readable\n" : "unreadable\n");
		return 0;
	}
	if (!strcmp(mode, "write")) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		printf(fd >= 0 ? "writable\n" : "unwritable\n");
		return 0;
	}
	if (!strcmp(mode, "shmhog")) {
		/* shared memory RLIMIT_DATA does not count, kept resident */
		size_t n = (size_t)atol(argv[2]) << 20;
		char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 2;
		memset(p, 1, n);
		sleep(5);
		printf("survived\n");
		return 0;
	}
	if (!strcmp(mode, "fill")) {
		/* 1 MiB files in the cwd until one cannot be written */
		static char mib[1 << 20];
		int files = 0;

		signal(SIGXFSZ, SIG_IGN);
		for (; files < 1024; files++) {
			char name[32];
			int fd;

			snprintf(name, sizeof(name), "fill-%d", files);
			fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				break;
			if (write(fd, mib, sizeof(mib)) != (ssize_t)sizeof(mib)) {
				close(fd);
				break;
			}
			close(fd);
		}
		printf("%d\n", files);
		return 0;
	}
	if (!strcmp(mode, "exists")) {
		for (int i = 2; i < argc; i++)
			printf("%s%s", i > 2 ? " " : "",
			       access(argv[i], F_OK) ? "no" : "yes");
		printf("\n");
		return 0;
	}
	if (!strcmp(mode, "net")) {
		struct sockaddr_in sa;
		int s = socket(AF_INET, SOCK_STREAM, 0);

		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_port = htons((unsigned short)atoi(argv[2]));
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (s >= 0 && connect(s, (struct sockaddr *)&sa,
				      sizeof(sa)) == 0)
			printf("connected\n");
		else
			printf("no network\n");
		return 0;
	}
	if (!strcmp(mode, "ids")) {
		printf("uid=%d\n", (int)getuid());
		return 0;
	}
	if (!strcmp(mode, "exitcode")) {
		return atoi(argv[2]);
	}
	fprintf(stderr, "fake_runner: unknown mode '%s'\n", mode);
	return 2;
}
