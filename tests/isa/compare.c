/*
 * isa-compare DIR REFERENCE OTHER: the cases of DIR (tests/isa/gen.py)
 * run twice (tests/isa/run.c), compared case by case: one line for
 * each that differs, then a count.  Exit 0 when none differs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "isa.h"

static unsigned char *load(const char *path, size_t want)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = malloc(want ? want : 1);

	if (!f || !p || fread(p, 1, want, f) != want) {
		fprintf(stderr, "isa-compare: cannot read '%s'\n", path);
		exit(2);
	}
	fclose(f);
	return p;
}

int main(int argc, char **argv)
{
	struct isa_cases c;
	unsigned char *a, *b;
	size_t diff = 0, skipped = 0;
	char why[512];

	if (argc != 4 || isa_read(argv[1], &c)) {
		fprintf(stderr, "usage: isa-compare DIR REFERENCE OTHER\n");
		return 2;
	}
	a = load(argv[2], c.n * ISA_CASE_BYTES);
	b = load(argv[3], c.n * ISA_CASE_BYTES);
	for (size_t i = 0; i < c.n; i++) {
		int rc = isa_compare(&c, i, a + i * ISA_CASE_BYTES,
				     b + i * ISA_CASE_BYTES, why, sizeof(why));

		if (rc < 0)
			skipped++;
		if (rc > 0) {
			printf("%s\n", why);
			diff++;
		}
	}
	printf("%zu cases: %zu differ, %zu not run by the reference\n", c.n,
	       diff, skipped);
	isa_release(&c);
	free(a);
	free(b);
	return diff ? 1 : 0;
}
