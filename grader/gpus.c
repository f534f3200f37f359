/*
 * The GPUs of this host (see gpus.h).
 */
#include "gpus.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define VISIBLE "CUDA_VISIBLE_DEVICES="

int gpus_minor_in(const char *information)
{
	const char *p = information ? strstr(information, "Device Minor:") :
				      NULL;
	char *end;
	long m;

	if (!p)
		return -1;
	m = strtol(p + 13, &end, 10);
	return end == p + 13 || m < 0 || m > 255 ? -1 : (int)m;
}

/* The minor number of the GPU at a PCI address, from the driver. */
static int minor_of(const char *pci)
{
	char path[128], *text;
	int m;

	if (strchr(pci, '/'))
		return -1;
	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information",
		 pci);
	text = read_file(path, 1 << 16, NULL);
	m = gpus_minor_in(text);
	free(text);
	return m;
}

size_t gpus_parse(const char *out, struct gpu_info *v)
{
	size_t n = 0;

	for (const char *p = out; p && *p && n < GPUS_MAX;) {
		const char *nl = strchr(p, '\n');
		struct gpu_info g;

		memset(&g, 0, sizeof(g));
		/* gpu <index> <uuid> <pci> <major> <minor> <name> */
		if (sscanf(p, "gpu %u %47s %23s %u %u %127[^\n]", &g.index,
			   g.uuid, g.pci, &g.major, &g.minor, g.name) == 6 &&
		    !strncmp(g.uuid, "GPU-", 4)) {
			g.dev_minor = minor_of(g.pci);
			v[n++] = g;
		}
		p = nl ? nl + 1 : NULL;
	}
	return n;
}

char *gpus_spec(const struct gpu_info *g)
{
	return xstrfmt("%s %s %u %u %s", g->uuid, g->pci, g->major, g->minor,
		       g->name);
}

int gpus_from_spec(const char *spec, struct gpu_info *g)
{
	char *line = xstrfmt("gpu 0 %s", spec);
	size_t n = gpus_parse(line, g);

	free(line);
	return n == 1 ? 0 : -1;
}

char *gpus_env_entry(const struct gpu_info *g)
{
	return xstrfmt(VISIBLE "%s", g->uuid);
}

static char *inherited;
static pthread_once_t inherited_once = PTHREAD_ONCE_INIT;

static void read_inherited(void)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");

	if (v)
		inherited = xstrfmt(VISIBLE "%s", v);
}

const char *gpus_env_inherited(void)
{
	pthread_once(&inherited_once, read_inherited);
	return inherited;
}

static char connections[48] = "CUDA_DEVICE_MAX_CONNECTIONS=1";
static int connections_default;
static pthread_once_t connections_once = PTHREAD_ONCE_INIT;

static void read_connections(void)
{
	const char *v = getenv("WARPGRADE_CUDA_CONNECTIONS");
	char *end;
	long n;

	if (!v || !*v)
		return;
	n = strtol(v, &end, 10);
	if (*end || n < 0 || n > 32) {
		warning("WARPGRADE_CUDA_CONNECTIONS='%s' is not 0 to 32: "
			"one connection", v);
		return;
	}
	if (!n)
		connections_default = 1;
	else
		snprintf(connections, sizeof(connections),
			 "CUDA_DEVICE_MAX_CONNECTIONS=%ld", n);
}

const char *gpus_env_connections(void)
{
	pthread_once(&connections_once, read_connections);
	return connections_default ? NULL : connections;
}

void gpus_env_append(const char **env, size_t *n, const char *visible,
		     int on_gpu)
{
	if ((env[*n] = visible))
		(*n)++;
	if (on_gpu && (env[*n] = gpus_env_connections()))
		(*n)++;
	env[*n] = NULL;
}

const char **gpus_environ(const char *entry)
{
	extern char **environ;
	size_t n = 0, k = 0;
	const char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], VISIBLE, strlen(VISIBLE)))
			env[k++] = environ[i];
	if (entry)
		env[k++] = entry;
	env[k] = NULL;
	return env;
}

char *gpus_label(const struct gpu_info *g)
{
	return xstrfmt("%s (%s, PCI %s)", g->name, g->uuid, g->pci);
}
