/*
 * The GPUs of a host as the probe lists them (grader/gpus.c): the
 * probe's lines, the driver's minor numbers, the environment a GPU
 * process is given.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gpus.h"

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

int main(void)
{
	Suite *s = suite_create("gpus");
	TCase *tc = tcase_create("gpus");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, probe_lines_parse);
	tcase_add_test(tc, driver_minor_numbers);
	tcase_add_test(tc, environment_shows_one_gpu);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
