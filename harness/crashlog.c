/*
 * The runner's crash line (see crashlog.h).  Everything the handler
 * needs is computed at install time: the executable's load bias and
 * address range, an alternate stack, and one warm-up call of backtrace
 * (its first call may load the unwinder, which a handler must not do).
 * The handler itself only formats numbers into a buffer and writes it.
 */
#include "crashlog.h"

#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#define ALT_STACK_BYTES (64u << 10)
#define LINE_BYTES (160 + 20 * CRASHLOG_MAX_CALLS)

static const int crash_signals[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
};

static uintptr_t exe_bias, exe_lo, exe_hi;
static char alt_stack[ALT_STACK_BYTES];

/* The first object dl_iterate_phdr reports is the executable. */
static int find_exe(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	exe_bias = info->dlpi_addr;
	exe_lo = UINTPTR_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = exe_bias + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (lo < exe_lo)
			exe_lo = lo;
		if (lo + ph->p_memsz > exe_hi)
			exe_hi = lo + ph->p_memsz;
	}
	return 1;
}

static int in_exe(uintptr_t a)
{
	return a >= exe_lo && a < exe_hi;
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	default: return "SIGABRT";
	}
}

/* Append s to buf at *n, async-signal-safe. */
static void put(char *buf, size_t cap, size_t *n, const char *s)
{
	while (*s && *n + 1 < cap)
		buf[(*n)++] = *s++;
}

static void put_hex(char *buf, size_t cap, size_t *n, uintptr_t v)
{
	char tmp[2 + 2 * sizeof(v) + 1], *p = tmp + sizeof(tmp) - 1;

	*p = '\0';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	*--p = 'x';
	*--p = '0';
	put(buf, cap, n, p);
}

static uintptr_t fault_pc(void *uc)
{
	const ucontext_t *u = uc;

#if defined(__x86_64__)
	return (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (uintptr_t)u->uc_mcontext.pc;
#else
	(void)u;
	return 0;
#endif
}

/* prefix, what, " pc " and pc (or "-"), " calls" and the return
 * addresses of frames[from..nf) inside the executable, a newline. */
static size_t format_line(char *line, size_t cap, const char *prefix,
			  const char *what, uintptr_t pc, void **frames,
			  int from, int nf)
{
	size_t n = 0;
	int calls = 0;

	put(line, cap, &n, prefix);
	put(line, cap, &n, what);
	put(line, cap, &n, " pc ");
	if (pc && in_exe(pc))
		put_hex(line, cap, &n, pc - exe_bias);
	else
		put(line, cap, &n, "-");
	put(line, cap, &n, " calls");
	for (int i = from; i < nf && calls < CRASHLOG_MAX_CALLS; i++) {
		uintptr_t a = (uintptr_t)frames[i];

		if (!in_exe(a))
			continue;
		put(line, cap, &n, " ");
		put_hex(line, cap, &n, a - exe_bias);
		calls++;
	}
	put(line, cap, &n, "\n");
	return n;
}

static void on_crash(int sig, siginfo_t *si, void *uc)
{
	void *frames[CRASHLOG_MAX_CALLS + 8];
	uintptr_t pc = fault_pc(uc);
	char line[LINE_BYTES];
	int nf = backtrace(frames, CRASHLOG_MAX_CALLS + 8), k = 0;
	size_t n;

	(void)si;
	/* the frames above the interrupted one: past the faulting pc when
	 * the unwinder shows it, else past this handler's own frame */
	for (int i = 0; i < nf && !k; i++)
		if ((uintptr_t)frames[i] == pc)
			k = i + 1;
	n = format_line(line, sizeof(line), CRASHLOG_PREFIX,
			signal_name(sig), pc, frames, k ? k : 1, nf);
	if (write(STDERR_FILENO, line, n) < 0)
		_exit(128 + sig);
	/* SA_RESETHAND made the action the default again: a fault happens
	 * again on return, a raised signal is delivered when unblocked */
	raise(sig);
}

void crashlog_launch_refused(const char *error_name)
{
	static int written;
	void *frames[CRASHLOG_MAX_CALLS + 2];
	char line[LINE_BYTES];
	int nf;
	size_t n;

	if (written++ || !exe_hi)
		return;
	nf = backtrace(frames, CRASHLOG_MAX_CALLS + 2);
	/* frames[0] is this function; the wrappers' own frames map to
	 * warpgrade's files, which the grader passes over */
	n = format_line(line, sizeof(line), CRASHLOG_LAUNCH_PREFIX,
			error_name, 0, frames, 1, nf);
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

void crashlog_install(void)
{
	struct sigaction sa;
	stack_t st;
	void *warm[2];

	dl_iterate_phdr(find_exe, NULL);
	backtrace(warm, 2);
	memset(&st, 0, sizeof(st));
	st.ss_sp = alt_stack;
	st.ss_size = sizeof(alt_stack);
	sigaltstack(&st, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(*crash_signals);
	     i++)
		sigaction(crash_signals[i], &sa, NULL);
}
