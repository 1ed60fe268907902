/* lib/config.c - settings from the environment (MEMPHIS_*), read once at library start. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "log.h"

int memphis__parse_period(const char *s, uint64_t *ns)
{
	char *end;
	double v;
	double mult = 1.0;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0)
		return -EINVAL;
	if (!strcasecmp(end, "") || !strcasecmp(end, "ns"))
		mult = 1.0;
	else if (!strcasecmp(end, "us"))
		mult = 1e3;
	else if (!strcasecmp(end, "ms"))
		mult = 1e6;
	else if (!strcasecmp(end, "s"))
		mult = 1e9;
	else
		return -EINVAL;
	v *= mult;
	if (v < 10e3 || v > 10e9) /* the kernel clamps task-clock periods below 10 us */
		return -EINVAL;
	*ns = (uint64_t)v;
	return 0;
}

static long env_long(const char *name, long def, long lo, long hi)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		memphis__log(MPH_LOG_WARN, "ignoring %s=%s (expected %ld..%ld)", name, s, lo, hi);
		return def;
	}
	return v;
}

static void env_str(const char *name, char *dst, size_t n, const char *def)
{
	const char *s = getenv(name);

	if (!s || !*s)
		s = def;
	if (strlen(s) >= n) {
		memphis__log(MPH_LOG_WARN, "ignoring %s: longer than %zu bytes", name, n - 1);
		s = def;
	}
	memcpy(dst, s, strlen(s) + 1);
}

void memphis__config_read(struct memphis__config *c)
{
	const char *p;

	memset(c, 0, sizeof(*c));
	/* the only parse of MEMPHIS_VERBOSE; first, so that the warnings below obey it */
	c->verbose = (int)env_long("MEMPHIS_VERBOSE", 0, 0, INT_MAX);
	memphis__log_set_level(c->verbose);
	env_str("MEMPHIS_BACKEND", c->backend, sizeof(c->backend), "auto");
	c->period_ns = 1000000;
	p = getenv("MEMPHIS_PERIOD");
	if (p && *p && memphis__parse_period(p, &c->period_ns) < 0)
		memphis__log(MPH_LOG_WARN, "ignoring MEMPHIS_PERIOD=%s (e.g. 1ms, 250us; 10us..10s)", p);
	c->first_touch = (int)env_long("MEMPHIS_FIRST_TOUCH", 1, 0, 1);
	c->callsite_depth = (int)env_long("MEMPHIS_CALLSITE_DEPTH", 4, 1, MEMPHIS_MAX_FRAMES);
	c->heap_min = (uint64_t)env_long("MEMPHIS_HEAP_MIN", 0, 0, 1L << 40);
	c->heap_sample = (unsigned)env_long("MEMPHIS_HEAP_SAMPLE", 64, 1, 1L << 20);
	env_str("MEMPHIS_OUTPUT", c->output, sizeof(c->output), "");
	env_str("MEMPHIS_REGION", c->auto_region, sizeof(c->auto_region), "");
	c->disabled = (int)env_long("MEMPHIS_DISABLE", 0, 0, 1);
}
