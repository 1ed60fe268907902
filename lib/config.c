/* lib/config.c - settings from the environment (MEMPHIS_*), read once at library start.
 * A value that cannot be used is never replaced silently: one line, always shown, names
 * the variable, the value and what is used instead. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bytes.h"
#include "config.h"
#include "log.h"

int memphis__parse_period(const char *s, uint64_t *ns)
{
	char *end;
	double v;
	double mult = 1.0;

	/* decimal digits and a point only: no sign, "nan", "inf", exponent or hexadecimal */
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end != s + strspn(s, "0123456789.") || !isfinite(v) || v <= 0)
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
	if (v < (double)MEMPHIS__PERIOD_MIN_NS || v > (double)MEMPHIS__PERIOD_MAX_NS)
		return -EINVAL;
	*ns = (uint64_t)v;
	return 0;
}

int memphis__parse_bool(const char *s, int *v)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*v = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*v = 0;
			return 0;
		}
	}
	return -EINVAL;
}

/* The one line for a bad value: at most 64 bytes of it, control characters as '?'. */
static void bad(const char *name, const char *value, const char *why, const char *instead)
{
	char shown[72];
	size_t n = strlen(value), k;

	for (k = 0; k < n && k < 64; k++)
		shown[k] = (unsigned char)value[k] < 0x20 || value[k] == 0x7f ? '?' : value[k];
	shown[k] = 0;
	memphis__warn("%s=%s%s %s: using %s", name, shown, n > 64 ? "..." : "", why, instead);
}

static long env_long(const char *name, long def, long lo, long hi)
{
	const char *s = getenv(name);
	char why[64], instead[24];
	char *end;
	long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		snprintf(why, sizeof(why), "is not an integer in %ld..%ld", lo, hi);
		snprintf(instead, sizeof(instead), "%ld", def);
		bad(name, s, why, instead);
		return def;
	}
	return v;
}

static int env_bool(const char *name, int def)
{
	const char *s = getenv(name);
	int v;

	if (!s || !*s)
		return def;
	if (memphis__parse_bool(s, &v) < 0) {
		bad(name, s, "is not a boolean (1/0, yes/no, true/false, on/off)", def ? "1" : "0");
		return def;
	}
	return v;
}

/* Copy the variable into dst[n]; a longer value is not used: `def` is, and `def_text`
 * says so in the line. */
static void env_str(const char *name, char *dst, size_t n, const char *def, const char *def_text)
{
	const char *s = getenv(name);
	char why[48];

	if (!s || !*s)
		s = def;
	if (strlen(s) >= n) {
		snprintf(why, sizeof(why), "is longer than %zu bytes", n - 1);
		bad(name, s, why, def_text);
		s = def;
	}
	memcpy(dst, s, strlen(s) + 1);
}

/* MEMPHIS_STACK_BYTES: a multiple of 8 in 0..MEMPHIS__STACK_BYTES_MAX (perf's
 * sample_stack_user must be 8-aligned). */
static unsigned env_stack_bytes(void)
{
	const char *name = "MEMPHIS_STACK_BYTES", *s = getenv(name);
	long v = env_long(name, MEMPHIS__STACK_BYTES_DEFAULT, 0, MEMPHIS__STACK_BYTES_MAX);

	if (v % 8) {
		bad(name, s, "is not a multiple of 8", "1024");
		v = MEMPHIS__STACK_BYTES_DEFAULT;
	}
	return (unsigned)v;
}

/* MEMPHIS_MAX_BYTES: -1 unset (the writer's default), 0 no cap, else at least 1 MiB. */
static int64_t env_max_bytes(void)
{
	const char *s = getenv("MEMPHIS_MAX_BYTES");
	uint64_t v;

	if (!s || !*s)
		return -1;
	if (mph_parse_bytes(s, &v) < 0 || (v && v < MEMPHIS__MAX_BYTES_MIN)) {
		bad("MEMPHIS_MAX_BYTES", s, "is not 0 or a size from 1M (e.g. 512M, 2G)",
		    "the default cap");
		return -1;
	}
	return (int64_t)v;
}

/* One of names[n] (any case) as its index; a value not among them is `def`, with a line. */
static int env_choice(const char *name, const char *const *names, int n, int def,
		      const char *why)
{
	const char *s = getenv(name);

	if (!s || !*s)
		return def;
	for (int i = 0; i < n; i++)
		if (!strcasecmp(s, names[i]))
			return i;
	bad(name, s, why, names[def]);
	return def;
}

void memphis__config_read(struct memphis__config *c)
{
	const char *p;

	memset(c, 0, sizeof(*c));
	/* the only parse of MEMPHIS_VERBOSE; first, so that the messages below obey it */
	c->verbose = (int)env_long("MEMPHIS_VERBOSE", 0, 0, INT_MAX);
	memphis__log_set_level(c->verbose);
	env_str("MEMPHIS_BACKEND", c->backend, sizeof(c->backend), "auto", "auto");
	c->period_ns = 1000000;
	p = getenv("MEMPHIS_PERIOD");
	if (p && *p && memphis__parse_period(p, &c->period_ns) < 0)
		bad("MEMPHIS_PERIOD", p,
		    "is not a period from " MEMPHIS__PERIOD_MIN_TEXT " to 10s (e.g. 1ms, 250us)", "1ms");
	c->first_touch = env_bool("MEMPHIS_FIRST_TOUCH", 1);
	static const char *const scopes[] = MEMPHIS__SCOPE_NAMES;
	c->scope = env_choice("MEMPHIS_SCOPE", scopes, (int)(sizeof(scopes) / sizeof(scopes[0])),
			      MEMPHIS__SCOPE_AUTO, "is not auto, thread or cpu");
	c->kernel = env_bool("MEMPHIS_KERNEL", 1);
	c->callsite_depth = (int)env_long("MEMPHIS_CALLSITE_DEPTH", 4, 1, MEMPHIS_MAX_FRAMES);
	c->stack_bytes = env_stack_bytes();
	c->heap_min = (uint64_t)env_long("MEMPHIS_HEAP_MIN", 0, 0, 1L << 40);
	c->heap_sample = (unsigned)env_long("MEMPHIS_HEAP_SAMPLE", 64, 1, 1L << 20);
	c->heap_map = env_bool("MEMPHIS_HEAP_MAP", 1);
	env_str("MEMPHIS_OUTPUT", c->output, sizeof(c->output), "",
		"the default name memphis-<program>-<pid>");
	c->max_bytes = env_max_bytes();
	c->format = (unsigned)env_long("MEMPHIS_FORMAT", MEMPHIS_FORMAT_VERSION, 2,
				       MEMPHIS_FORMAT_VERSION);
	env_str("MEMPHIS_REGION", c->auto_region, sizeof(c->auto_region), "", "no whole-run region");
	c->disabled = env_bool("MEMPHIS_DISABLE", 0);
	c->launched_pid = env_long("MEMPHIS_LAUNCHED", 0, 0, INT_MAX);
	c->children = env_bool("MEMPHIS_CHILDREN", 0);
	c->profile = env_bool("MEMPHIS_PROFILE", 1);
	env_str("MEMPHIS_EVENT", c->event, sizeof(c->event), "", "the CPU's default events");
	/* the SDM's minimum threshold is 3 (libpfm4 takes 1); perf mem's default is 30 */
	c->ldlat = (unsigned)env_long("MEMPHIS_LDLAT", 30, 3, 65535);
	c->hw_period = (uint64_t)env_long("MEMPHIS_HW_PERIOD", 0, 0, 1L << 40);
	c->ibs_cnt_ctl = env_bool("MEMPHIS_IBS_CNT_CTL", 1);
	c->ibs_l3missonly = env_bool("MEMPHIS_IBS_L3MISSONLY", 0);
	static const char *const kinds[] = MEMPHIS__KMOD_KIND_NAMES;
	c->kmod_kind = env_choice("MEMPHIS_KMOD_KIND", kinds, (int)(sizeof(kinds) / sizeof(kinds[0])),
				  MEMPHIS__KMOD_AUTO, "is not auto, clock, ibs or pebs");
	env_str("MEMPHIS_PAPI_EVENTS", c->papi_events, sizeof(c->papi_events), "", "no PAPI events");
	c->numa_counters = env_bool("MEMPHIS_NUMA_COUNTERS", 0);
}
