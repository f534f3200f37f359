/*
 * The GPUs of a host as the probe lists them (grader/gpus.c): the
 * probe's lines, the driver's minor numbers, the environment a GPU
 * process is given; a batch's GPUs in pairs (grader/batch_gpus.c).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "batch_gpus.h"
#include "gpus.h"

/* build/wg-probe's output on a 2 x H100 host (2026-11-27), and a third
 * GPU of another kind */
static const char *const two_h100 =
	"gpu 0 GPU-ef950048-f102-29cd-7a57-27c801b36725 0000:00:06.0 "
	"9 0 NVIDIA H100 80GB HBM3\n"
	"gpu 1 GPU-360f9c24-6f9e-b83d-79aa-629bed98b832 0000:00:07.0 "
	"9 0 NVIDIA H100 80GB HBM3\n";
static const char *const h200 =
	"gpu 2 GPU-11111111-2222-3333-4444-555555555555 0000:00:08.0 "
	"9 0 NVIDIA H200\n";

START_TEST(probe_lines_parse)
{
	/* build/wg-probe's output on a 2 x H100 host (2026-11-27) */
	const char *out =
		"sm 9 0 NVIDIA H100 80GB HBM3\n"
		"gpu 0 GPU-ef950048-f102-29cd-7a57-27c801b36725 0000:00:06.0 "
		"9 0 NVIDIA H100 80GB HBM3\n"
		"gpu 1 GPU-360f9c24-6f9e-b83d-79aa-629bed98b832 0000:00:07.0 "
		"9 0 NVIDIA H100 80GB HBM3\n"
		"gpu 2 MIG-nonsense 0000:00:08.0 9 0 X\n"
		"gpu three\n";
	struct gpu_info v[GPUS_MAX];
	char *label;

	ck_assert_uint_eq(gpus_parse(out, v), 2);
	ck_assert_uint_eq(v[1].index, 1);
	ck_assert_str_eq(v[1].uuid, "GPU-360f9c24-6f9e-b83d-79aa-629bed98b832");
	ck_assert_str_eq(v[1].pci, "0000:00:07.0");
	ck_assert_uint_eq(v[1].major, 9);
	ck_assert_str_eq(v[1].name, "NVIDIA H100 80GB HBM3");
	label = gpus_label(&v[0]);
	ck_assert_str_eq(label, "NVIDIA H100 80GB HBM3 (GPU-ef950048-f102-"
			 "29cd-7a57-27c801b36725, PCI 0000:00:06.0)");
	free(label);
	ck_assert_uint_eq(gpus_parse("no CUDA device\n", v), 0);
	ck_assert_uint_eq(gpus_parse(NULL, v), 0);
}
END_TEST

START_TEST(driver_minor_numbers)
{
	/* the shape of /proc/driver/nvidia/gpus/<pci>/information */
	const char *info =
		"Model: \t\t NVIDIA H100 80GB HBM3\n"
		"IRQ:   \t\t 64\n"
		"GPU UUID: \t GPU-ef950048-f102-29cd-7a57-27c801b36725\n"
		"Bus Type: \t PCIe\n"
		"Bus Location: \t 0000:00:06.0\n"
		"Device Minor: \t 3\n"
		"GPU Excluded:\t No\n";

	ck_assert_int_eq(gpus_minor_in(info), 3);
	ck_assert_int_eq(gpus_minor_in("Device Minor: \t x\n"), -1);
	ck_assert_int_eq(gpus_minor_in("Device Minor: -2\n"), -1);
	ck_assert_int_eq(gpus_minor_in("Model: none\n"), -1);
	ck_assert_int_eq(gpus_minor_in(NULL), -1);
}
END_TEST

START_TEST(environment_shows_one_gpu)
{
	struct gpu_info g;
	const char **env;
	char *entry;
	size_t seen = 0;

	memset(&g, 0, sizeof(g));
	strcpy(g.uuid, "GPU-aaaaaaaa-0000-0000-0000-000000000000");
	entry = gpus_env_entry(&g);
	ck_assert_str_eq(entry, "CUDA_VISIBLE_DEVICES=GPU-aaaaaaaa-0000-"
			 "0000-0000-000000000000");
	setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
	setenv("WG_CHECK_GPUS", "kept", 1);
	env = gpus_environ(entry);
	for (size_t i = 0; env[i]; i++) {
		if (!strncmp(env[i], "CUDA_VISIBLE_DEVICES=", 21)) {
			ck_assert_str_eq(env[i], entry);
			seen++;
		}
		if (!strcmp(env[i], "WG_CHECK_GPUS=kept"))
			seen += 10;
	}
	ck_assert_uint_eq(seen, 11); /* replaced once, the rest kept */
	free(env);
	env = gpus_environ(NULL); /* none at all */
	for (size_t i = 0; env[i]; i++)
		ck_assert(strncmp(env[i], "CUDA_VISIBLE_DEVICES=", 21));
	free(env);
	free(entry);
}
END_TEST

/* gpus_env_connections in a child with WARPGRADE_CUDA_CONNECTIONS set
 * to value (NULL: unset): 0 when it gave want (NULL: no entry). */
static int connections_are(const char *value, const char *want)
{
	pid_t pid = fork();
	int ws;

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		const char *got;

		if (value)
			setenv("WARPGRADE_CUDA_CONNECTIONS", value, 1);
		else
			unsetenv("WARPGRADE_CUDA_CONNECTIONS");
		got = gpus_env_connections();
		_exit(want ? !got || strcmp(got, want) : got != NULL);
	}
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/* Contexts of one connection unless asked otherwise; a value out of
 * range is warned about and ignored. */
START_TEST(runners_get_one_connection)
{
	const char *one = "CUDA_DEVICE_MAX_CONNECTIONS=1";

	ck_assert_int_eq(connections_are(NULL, one), 0);
	ck_assert_int_eq(connections_are("", one), 0);
	ck_assert_int_eq(connections_are("4",
					 "CUDA_DEVICE_MAX_CONNECTIONS=4"), 0);
	ck_assert_int_eq(connections_are("0", NULL), 0);
	ck_assert_int_eq(connections_are("33", one), 0);
	ck_assert_int_eq(connections_are("-1", one), 0);
	ck_assert_int_eq(connections_are("2x", one), 0);
}
END_TEST

/* A process's GPU entries: what it may see, the connections only for a
 * CUDA program on a GPU, NULL-terminated either way. */
START_TEST(env_gets_the_gpu_entries)
{
	const char *env[4];
	size_t n = 1;

	env[0] = "PATH=/bin";
	gpus_env_append(env, &n, NULL, 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_null(env[1]);
	n = 1;
	gpus_env_append(env, &n, "CUDA_VISIBLE_DEVICES=0", 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(env[1], "CUDA_VISIBLE_DEVICES=0");
	ck_assert_ptr_null(env[2]);
	n = 1;
	gpus_env_append(env, &n, NULL, 1);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(env[1], gpus_env_connections());
	ck_assert_ptr_null(env[2]);
	n = 1;
	gpus_env_append(env, &n, "CUDA_VISIBLE_DEVICES=0", 1);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(env[2], gpus_env_connections());
	ck_assert_ptr_null(env[3]);
}
END_TEST

START_TEST(spec_names_one_gpu)
{
	struct gpu_info v[GPUS_MAX], back;
	char *spec;

	ck_assert_uint_eq(gpus_parse(two_h100, v), 2);
	spec = gpus_spec(&v[1]);
	ck_assert_str_eq(spec, "GPU-360f9c24-6f9e-b83d-79aa-629bed98b832 "
			 "0000:00:07.0 9 0 NVIDIA H100 80GB HBM3");
	ck_assert_int_eq(gpus_from_spec(spec, &back), 0);
	ck_assert_str_eq(back.uuid, v[1].uuid);
	ck_assert_str_eq(back.pci, v[1].pci);
	ck_assert_str_eq(back.name, v[1].name);
	ck_assert_uint_eq(back.major, 9);
	free(spec);
	ck_assert_int_eq(gpus_from_spec("GPU-1 0000:00:07.0", &back), -1);
	ck_assert_int_eq(gpus_from_spec("", &back), -1);
}
END_TEST

/* n GPUs of the text into a batch's plan; how many children start on
 * each of the first three when takes children start one after another
 * and none ends */
static void plan(const char *text, const char *roles, struct batch_gpus *g,
		 int takes, int per[3])
{
	struct gpu_info v[GPUS_MAX];
	size_t n = gpus_parse(text, v);

	if (roles)
		setenv("WARPGRADE_GPU_ROLES", roles, 1);
	else
		unsetenv("WARPGRADE_GPU_ROLES");
	batch_gpus_init(g, "/tmp/lock", v, n);
	per[0] = per[1] = per[2] = 0;
	for (int i = 0; i < takes; i++)
		per[batch_gpus_take(g) - g->v]++;
}

START_TEST(batch_pairs_sweeping_and_timing_gpus)
{
	char three[512];
	struct batch_gpus g;
	int per[3];

	plan(two_h100, NULL, &g, 6, per);
	ck_assert_ptr_eq(g.v[0].timer, &g.v[1]);
	ck_assert_ptr_null(g.v[1].timer);
	ck_assert_int_eq(per[0], 6); /* the timing GPU starts no child */
	ck_assert_int_eq(per[1], 0);
	ck_assert_str_eq(g.v[1].lock, "/tmp/lock-GPU-360f9c24-6f9e-b83d-"
			 "79aa-629bed98b832");
	ck_assert_str_eq(g.v[1].spec, "GPU-360f9c24-6f9e-b83d-79aa-"
			 "629bed98b832 0000:00:07.0 9 0 NVIDIA H100 80GB "
			 "HBM3");
	batch_gpus_release(&g);

	plan(two_h100, "shared", &g, 6, per); /* each child one GPU */
	ck_assert_ptr_null(g.v[0].timer);
	ck_assert_int_eq(per[0], 3);
	ck_assert_int_eq(per[1], 3);
	batch_gpus_release(&g);

	snprintf(three, sizeof(three), "%s%s", two_h100, h200);
	plan(three, NULL, &g, 6, per); /* two kinds: no pairs */
	ck_assert_ptr_null(g.v[0].timer);
	ck_assert_int_eq(per[0] + per[1] + per[2], 6);
	ck_assert_int_eq(per[2], 2);
	batch_gpus_release(&g);
	unsetenv("WARPGRADE_GPU_ROLES");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("gpus");
	TCase *tc = tcase_create("gpus");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, probe_lines_parse);
	tcase_add_test(tc, driver_minor_numbers);
	tcase_add_test(tc, environment_shows_one_gpu);
	tcase_add_test(tc, runners_get_one_connection);
	tcase_add_test(tc, env_gets_the_gpu_entries);
	tcase_add_test(tc, spec_names_one_gpu);
	tcase_add_test(tc, batch_pairs_sweeping_and_timing_gpus);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
