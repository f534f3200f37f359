/*
 * The performance model against the corpus measured on a GPU: predicts
 * every variant of bench/corpus/LIST and its exercise's reference on the
 * emulator (perf.h, the same sampling and simulation the grader uses),
 * compares the predicted speedups with the measured ones, and with
 * --fit searches the model's fitted constants on the calibration set.
 * bench/corpus/run-fit builds it with the variants' objects.
 *
 *   fit MEASURED.csv [--gpu H100] [--fit] [--calib-only | --hold]
 *       [--set NAME=V,...] [--try NAME=V,...]
 *
 * MEASURED.csv is bench/run-corpus's output; variants of the list it has
 * no line for are left out.  Each kernel's registers are ptxas's for
 * sm_90 (corpus_regs.inc, which run-fit writes), as in grading.  Prints
 * one line per calibration variant (measured and predicted time and
 * speedup), then the references' and
 * the calibration set's figures: the mean absolute percentage error of
 * the predicted times (MAPE), the share of speedups within 0.10 and
 * Spearman's rank correlation of the speedups; with --fit, first the
 * constants it found (as C).  The held-out sets' lines and figures
 * ("hold", and "blind" to "blind6": variants added after the
 * constants were fixed; then all of them together, "held-out") are
 * printed only with --hold, so that the
 * constants can be fixed without looking at them; --calib-only does not
 * even predict them.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "emu/perf.h"
#include "emu/perf/runtime_perf.h"
#include "emu/wgemu.h"

typedef void (*launch_fn)(void *, const void *, int, int, cudaStream_t);

void wgref_coalesced_transpose(void *, const void *, int, int, cudaStream_t);
void wgref_aos_to_soa(void *, const void *, int, int, cudaStream_t);
void wgref_reverse_rows(void *, const void *, int, int, cudaStream_t);
#define V(name, ex, set) \
	void wgv_##name(void *, const void *, int, int, cudaStream_t);
#include "corpus_table.inc"
#undef V

struct variant {
	const char *name, *exercise, *set;
	launch_fn fn;
	size_t k0, k1;          /* its kept launches */
	double ms, speedup;     /* measured */
	double pred_ms, pred;   /* predicted */
	int have;
};

static struct variant table[] = {
#define V(name, ex, set) { #name, #ex, #set, wgv_##name, 0, 0, 0, 0, 0, 0, 0 },
#include "corpus_table.inc"
#undef V
};
#define NV (sizeof(table) / sizeof(table[0]))

/* ptxas's registers per kernel, per variant ("reference": the
 * references'), given to the model before each variant runs */
static const struct {
	const char *variant, *kernel;
	unsigned regs;
} kernel_regs[] = {
#define R(v, k, n) { #v, k, n },
#include "corpus_regs.inc"
#undef R
};
#define NKR (sizeof(kernel_regs) / sizeof(kernel_regs[0]))

/* Give the model the registers of v's kernels; a variant's static
 * kernel shares its mangled name with its family's other variants, so
 * this comes just before v runs. */
static void give_regs(const char *variant)
{
	for (size_t i = 0; i < NKR; i++)
		if (!strcmp(kernel_regs[i].variant, variant))
			wgemu_perf_regs(kernel_regs[i].kernel,
					kernel_regs[i].regs);
}

static struct variant refs[] = {
	{ "reference", "coalesced_transpose", "-", wgref_coalesced_transpose,
	  0, 0, 0, 0, 0, 0, 0 },
	{ "reference", "aos_to_soa", "-", wgref_aos_to_soa, 0, 0, 0, 0, 0, 0,
	  0 },
	{ "reference", "dynamic_reverse", "-", wgref_reverse_rows, 0, 0, 0, 0,
	  0, 0, 0 },
};
#define NR (sizeof(refs) / sizeof(refs[0]))

static void shape_of(const char *ex, int *m, int *n)
{
	*m = 8192;
	*n = 8192;
	if (!strcmp(ex, "aos_to_soa")) {
		*m = 1 << 24;
		*n = 3;
	}
}

static void run(struct variant *v)
{
	int m, n;
	void *in = NULL, *out = NULL;

	shape_of(v->exercise, &m, &n);
	if (cudaMalloc(&in, (size_t)m * n * 4) ||
	    cudaMalloc(&out, (size_t)m * n * 4)) {
		fprintf(stderr, "fit: out of emulated memory\n");
		exit(2);
	}
	v->k0 = emu_perf_kept_count();
	v->fn(out, in, m, n, 0);
	cudaDeviceSynchronize();
	v->k1 = emu_perf_kept_count();
	cudaFree(in);
	cudaFree(out);
}

static struct variant *ref_of(const char *ex)
{
	for (size_t i = 0; i < NR; i++)
		if (!strcmp(refs[i].exercise, ex))
			return &refs[i];
	return NULL;
}

static double predict_ms(const struct perf_gpu *g, const struct variant *v)
{
	double ms = 0;

	for (size_t k = v->k0; k < v->k1; k++) {
		struct perf_launch l;
		struct perf_estimate e;
		const struct perf_collect *pc = emu_perf_kept(k, &l);

		if (pc && !perf_simulate(g, pc, &l, &e)) {
			ms += e.ms;
			if (getenv("FIT_LIMITS"))
				fprintf(stderr, "limit %s %llu blocks x %u: "
					"%d resident, %llu on the SM, "
					"%.4f ms, %.1f MB DRAM, %.0f M insns, "
					"%s\n", v->name,
					(unsigned long long)l.nblocks,
					(unsigned)l.threads, e.resident_blocks,
					(unsigned long long)e.blocks_per_sm,
					e.ms, e.dram_bytes / 1e6,
					e.warp_insns / 1e6, e.limit);
		}
	}
	return ms;
}

static int verbose;
static int show_hold;   /* --hold: print the held-out set's figures */

static void predict_all(const struct perf_gpu *g)
{
	for (size_t i = 0; i < NR; i++)
		refs[i].pred_ms = predict_ms(g, &refs[i]);
	for (size_t i = 0; i < NV; i++) {
		struct variant *r = ref_of(table[i].exercise);
		clock_t c0 = clock();

		if (!table[i].have)
			continue;
		table[i].pred_ms = predict_ms(g, &table[i]);
		if (verbose)
			fprintf(stderr, "%s %.3f s\n", table[i].name,
				(double)(clock() - c0) / CLOCKS_PER_SEC);
		table[i].pred = table[i].pred_ms > 0 ?
				r->pred_ms / table[i].pred_ms : 0;
	}
}

/* log-time error over the calibration variants and the references,
 * plus the speedup error (what grading uses) */
static double cost(void)
{
	double c = 0;

	for (size_t i = 0; i < NR; i++)
		if (refs[i].have && refs[i].pred_ms > 0)
			c += pow(log(refs[i].pred_ms / refs[i].ms), 2);
	for (size_t i = 0; i < NV; i++) {
		const struct variant *v = &table[i];

		if (!v->have || strcmp(v->set, "calib") || v->pred_ms <= 0)
			continue;
		c += pow(log(v->pred_ms / v->ms), 2);
		c += 4 * pow(v->pred - v->speedup, 2);
	}
	return c;
}

static int read_measured(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char ex[64], name[64], set[16];
		double ms, rms, sp;

		if (sscanf(line, "%63[^,],%63[^,],%15[^,],%lf,%lf,%lf", ex,
			   name, set, &ms, &rms, &sp) != 6)
			continue;
		for (size_t i = 0; i < NV; i++)
			if (!strcmp(table[i].name, name)) {
				table[i].ms = ms;
				table[i].speedup = sp;
				table[i].have = 1;
			}
		if (ref_of(ex)) {
			ref_of(ex)->ms = rms;
			ref_of(ex)->have = 1;
		}
	}
	fclose(f);
	return 0;
}

/* Spearman's rho of x and y (n values, ties averaged). */
static void ranks(const double *v, size_t n, double *r)
{
	for (size_t i = 0; i < n; i++) {
		double less = 0, eq = 0;

		for (size_t j = 0; j < n; j++) {
			less += v[j] < v[i];
			eq += v[j] == v[i];
		}
		r[i] = less + (eq + 1) / 2;
	}
}

static double spearman(const double *x, const double *y, size_t n)
{
	double *rx = calloc(n, sizeof(double)), *ry = calloc(n, sizeof(double));
	double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

	ranks(x, n, rx);
	ranks(y, n, ry);
	for (size_t i = 0; i < n; i++) {
		mx += rx[i] / n;
		my += ry[i] / n;
	}
	for (size_t i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ry[i] - my);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ry[i] - my) * (ry[i] - my);
	}
	free(rx);
	free(ry);
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* the variant is in `set`; "held-out" is every set but "calib" */
static int in_set(const struct variant *v, const char *set)
{
	return !strcmp(set, "held-out") ? strcmp(v->set, "calib") != 0 :
	       !strcmp(v->set, set);
}

/* mean absolute percentage error of the predicted times of the
 * variants in `set` (NULL: the references), in % */
static double mape(const char *set, size_t *count)
{
	const struct variant *v = set ? table : refs;
	size_t nv = set ? NV : NR, n = 0;
	double sum = 0;

	for (size_t i = 0; i < nv; i++) {
		if (!v[i].have || v[i].ms <= 0 || (set && !in_set(&v[i], set)))
			continue;
		sum += fabs(v[i].pred_ms - v[i].ms) / v[i].ms;
		n++;
	}
	*count = n;
	return n ? 100 * sum / n : 0;
}

static void summary(const char *set)
{
	double x[NV], y[NV], m;
	size_t n = 0, ok = 0, nm;

	for (size_t i = 0; i < NV; i++) {
		if (!table[i].have || !in_set(&table[i], set))
			continue;
		x[n] = table[i].speedup;
		y[n] = table[i].pred;
		ok += fabs(x[n] - y[n]) <= 0.10;
		n++;
	}
	if (!n) /* a set not timed in this CSV */
		return;
	m = mape(set, &nm);
	printf("%s: %zu variants, time MAPE %.1f%%, %zu within 0.10 (%.0f%%), "
	       "Spearman %.3f\n", set, n, m, ok, 100.0 * ok / n,
	       spearman(x, y, n));
}

/* the calibration figures, and the held-out ones only when asked for */
static void summaries(void)
{
	size_t n;
	double m = mape(NULL, &n);

	printf("references: %zu, time MAPE %.1f%%\n", n, m);
	summary("calib");
	if (show_hold) {
		summary("hold");
		summary("blind");
		summary("blind2");
		summary("blind3");
		summary("blind4");
		summary("blind5");
		summary("blind6");
		summary("held-out");
	}
}

/* ---- the search ---- */

#define P(field) { #field, offsetof(struct perf_gpu, field) }
static const struct {
	const char *name;
	size_t off;
} params[] = {
	P(dram_gbps), P(sm_max_bytes_per_clk), P(dram_latency_clk),
	P(latency_spread), P(latency_tail), P(latency_queueing), P(l2_latency_clk), P(l2_load_sectors_per_clk),
	P(l2_store_sectors_per_clk), P(l2_partial_sectors_per_clk),
	P(lsu_clk_per_wavefront), P(issue_per_clk), P(warp_issue_clk),
	P(block_launch_clk), P(launch_us), P(dram_credit_clk),
	P(page_open_bytes),
};
#define NP (sizeof(params) / sizeof(params[0]))

static double *field(struct perf_gpu *g, size_t k)
{
	return (double *)((char *)g + params[k].off);
}

static void search(struct perf_gpu *g)
{
	double best, f = 1.6;

	predict_all(g);
	best = cost();
	for (int round = 0; round < 16 && f > 1.02; round++) {
		int improved = 0;

		for (size_t k = 0; k < NP; k++) {
			double keep = *field(g, k), bv = keep;

			for (int s = 0; s < 2; s++) {
				double c;

				/* a constant at zero steps away by adding */
				*field(g, k) = keep == 0 ? (s ? 0.1 * f : 0) :
					       s ? keep * f : keep / f;
				predict_all(g);
				c = cost();
				if (c < best - 1e-9) {
					best = c;
					bv = *field(g, k);
					improved = 1;
				}
			}
			*field(g, k) = bv;
		}
		if (!improved)
			f = sqrt(f);
		fprintf(stderr, "fit: round %d cost %.4f step %.3f\n", round,
			best, f);
	}
	for (size_t k = 0; k < NP; k++)
		printf("\t.%s = %.4g,\n", params[k].name, *field(g, k));
}

/* "name=value,name=value": set fitted constants; 0 or -1. */
static int apply(struct perf_gpu *g, const char *spec)
{
	char buf[512], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		size_t k;

		for (k = 0; k < NP && eq; k++)
			if (!strncmp(tok, params[k].name,
				     (size_t)(eq - tok)) &&
			    !params[k].name[eq - tok])
				break;
		if (!eq || k == NP) {
			fprintf(stderr, "fit: no constant '%s'\n", tok);
			return -1;
		}
		*field(g, k) = atof(eq + 1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *gpu = "H100";
	struct perf_gpu g;
	int fit = 0, nsets = 0, ntries = 0, calib_only = 0;
	size_t unmeasured = 0, held = 0;
	const char *sets[32], *tries[32];

	if (argc < 2) {
		fprintf(stderr, "usage: fit MEASURED.csv [--gpu NAME] "
			"[--fit] [--calib-only | --hold]\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--fit"))
			fit = 1;
		else if (!strcmp(argv[i], "--calib-only"))
			calib_only = 1;
		else if (!strcmp(argv[i], "--hold"))
			show_hold = 1;
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (!strcmp(argv[i], "--set") && i + 1 < argc &&
			 nsets < 32)
			sets[nsets++] = argv[++i];
		else if (!strcmp(argv[i], "--try") && i + 1 < argc &&
			 ntries < 32)
			tries[ntries++] = argv[++i];
		else if (!strcmp(argv[i], "--gpu") && i + 1 < argc)
			gpu = argv[++i];
		else {
			fprintf(stderr, "fit: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	if (calib_only && show_hold) {
		fprintf(stderr, "fit: --calib-only and --hold exclude each "
			"other\n");
		return 2;
	}
	if (read_measured(argv[1]) || !perf_gpu_find(gpu))
		return 2;
	/* --calib-only: the held-out variants are not even predicted */
	for (size_t i = 0; i < NV && calib_only; i++)
		if (table[i].have && strcmp(table[i].set, "calib")) {
			table[i].have = 0;
			held++;
		}
	g = *perf_gpu_find(gpu);
	for (int i = 0; i < nsets; i++)
		if (apply(&g, sets[i]))
			return 2;
	emu_perf_keep(1);
	wgemu_perf_begin(gpu, 1);
	/* the whole corpus is one prediction: past one call's cap */
	wgemu_perf_sample(0, 0, UINT64_MAX);
	give_regs("reference");
	for (size_t i = 0; i < NR; i++)
		run(&refs[i]);
	for (size_t i = 0; i < NV; i++)
		if (table[i].have) {
			give_regs(table[i].name);
			run(&table[i]);
		} else
			unmeasured++;
	unmeasured -= held;
	wgemu_perf_end();
	if (unmeasured)
		fprintf(stderr, "fit: %zu variants of the list have no "
			"measurement in %s: left out\n", unmeasured, argv[1]);
	for (int i = 0; i < ntries; i++) {
		struct perf_gpu t = g;

		if (apply(&t, tries[i]))
			return 2;
		predict_all(&t);
		printf("try %s: cost %.3f\n", tries[i], cost());
		summaries();
	}
	if (ntries)
		return 0;
	if (fit)
		search(&g);
	predict_all(&g);
	printf("exercise,variant,set,measured_ms,predicted_ms,measured,"
	       "predicted\n");
	for (size_t i = 0; i < NR; i++)
		printf("%s,reference,-,%.4f,%.4f,1,1\n", refs[i].exercise,
		       refs[i].ms, refs[i].pred_ms);
	for (size_t i = 0; i < NV; i++)
		if (table[i].have &&
		    (show_hold || !strcmp(table[i].set, "calib")))
			printf("%s,%s,%s,%.4f,%.4f,%.3f,%.3f\n",
			       table[i].exercise, table[i].name, table[i].set,
			       table[i].ms, table[i].pred_ms, table[i].speedup,
			       table[i].pred);
	summaries();
	return 0;
}
