/* lib/backend/select.c - choosing the sample source. MEMPHIS_BACKEND=auto takes the first
 * usable one in the order of names.h; the RUN block records which ran and why the others
 * could not. A backend is one file (lib/backend/NAME.c) implementing struct memphis__backend. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

/* Hardware sources that are not built yet still report why they would not run here, so
 * the run metadata says what the machine has. */
static void hardware_skips(char *skips, size_t n)
{
	size_t used = strlen(skips);
	int ibs = access("/sys/bus/event_source/devices/ibs_op/type", F_OK) == 0;
	int cpu_pmu = access("/sys/bus/event_source/devices/cpu/type", F_OK) == 0 ||
		      access("/sys/bus/event_source/devices/cpu_core/type", F_OK) == 0;

	snprintf(skips + used, n - used, "ibs: %s\npebs: %s\n",
		 ibs ? "IBS PMU present, backend not built in this version" : "no ibs_op PMU",
		 cpu_pmu ? "core PMU present, backend not built in this version"
			 : "no hardware core PMU (software events only)");
}

const struct memphis__backend *memphis__backend_select(const char *want,
						       const struct memphis__backend_params *p,
						       uint64_t *period_ns, char *why, size_t why_n,
						       char *skips, size_t skips_n)
{
	/* auto: soft when the process may use perf_event_open itself, else the module */
#define ENTRY(name) &memphis__backend_##name,
	static const struct memphis__backend *const table[] = { MEMPHIS__BACKENDS(ENTRY) };
#undef ENTRY
	const size_t n = sizeof(table) / sizeof(table[0]);
	int automatic = !strcmp(want, "auto");

	why[0] = 0;
	skips[0] = 0;
	if (!strcmp(want, "none")) {
		snprintf(why, why_n, "MEMPHIS_BACKEND=none");
		return NULL;
	}
	if (automatic)
		hardware_skips(skips, skips_n);
	for (size_t i = 0; i < n; i++) {
		char reason[512];
		if (!automatic && strcmp(want, table[i]->name))
			continue;
		if (table[i]->probe(p, period_ns, reason, sizeof(reason)) == 0) {
			snprintf(why, why_n, automatic ? "auto: first usable of the built backends"
						       : "MEMPHIS_BACKEND=%s", want);
			return table[i];
		}
		size_t used = strlen(skips);
		snprintf(skips + used, skips_n - used, "%s: %s\n", table[i]->name, reason);
		if (!automatic || !why[0]) /* auto: the first source's reason is the usual fix */
			snprintf(why, why_n, "%s", reason);
		if (!automatic)
			return NULL;
	}
	if (!why[0])
		snprintf(why, why_n,
			 "MEMPHIS_BACKEND=%s: no such backend (use " MEMPHIS__BACKEND_CHOICES ")", want);
	return NULL;
}
