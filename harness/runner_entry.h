/*
 * The table the grader generates for each runner link: for every
 * exercise the submission has, its student launcher and the reference
 * launcher.  Generated as C (runner_entry.c) so that no symbol lookup by
 * name is needed at run time -- the runner is stripped, and a submission
 * finds no names to call.
 */
#ifndef RUNNER_ENTRY_H
#define RUNNER_ENTRY_H

typedef void (*runner_launcher)(void);

struct runner_entry {
	const char *name;          /* exercise folder name; NULL ends */
	runner_launcher student;
	runner_launcher reference;
};

extern const struct runner_entry runner_entries[];

#endif
