/* lib/backend/select.c - choosing the sample source. MEMPHIS_BACKEND=auto takes the first
 * usable one in the order of names.h (ibs, pebs, kmod, soft); the RUN block records which
 * ran and why the others could not, one line each. A backend is one file
 * (lib/backend/NAME.c) implementing struct memphis__backend. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"

const struct memphis__backend *memphis__backend_choose(const struct memphis__backend *const *table,
						       size_t n, const char *want,
						       const struct memphis__backend_params *p,
						       struct memphis__sampling *out, char *why, size_t why_n,
						       char *skips, size_t skips_n)
{
	int automatic = !strcmp(want, "auto");

	why[0] = 0;
	skips[0] = 0;
	if (!strcmp(want, "none")) {
		snprintf(why, why_n, "MEMPHIS_BACKEND=none");
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		char reason[512];
		if (!automatic && strcmp(want, table[i]->name))
			continue;
		reason[0] = 0;
		memset(out, 0, sizeof(*out));
		out->precise_ip = -1;
		if (table[i]->probe(p, out, reason, sizeof(reason)) == 0) {
			if (automatic) {
				size_t k = (size_t)snprintf(why, why_n, "auto: the first usable of");
				for (size_t j = 0; j < n && k < why_n; j++)
					k += (size_t)snprintf(why + k, why_n - k, "%s %s", j ? "," : "",
							      table[j]->name);
			} else
				snprintf(why, why_n, "MEMPHIS_BACKEND=%s", want);
			return table[i];
		}
		/* "name: reason", the reason without the name when it starts with it */
		size_t used = strlen(skips), k = strlen(table[i]->name);
		const char *r = reason;
		if (!strncmp(r, table[i]->name, k) && r[k] == ':' && r[k + 1] == ' ')
			r += k + 2;
		snprintf(skips + used, skips_n - used, "%s: %s\n", table[i]->name, r);
		/* one backend asked for: its reason; auto: the last one's (the most common
		 * source, soft, whose fix is the usual one) */
		snprintf(why, why_n, "%s", reason);
		if (!automatic)
			return NULL;
	}
	if (!why[0])
		snprintf(why, why_n,
			 "MEMPHIS_BACKEND=%s: no such backend (use " MEMPHIS__BACKEND_CHOICES ")", want);
	return NULL;
}

const struct memphis__backend *memphis__backend_select(const char *want,
						       const struct memphis__backend_params *p,
						       struct memphis__sampling *out, char *why, size_t why_n,
						       char *skips, size_t skips_n)
{
#define ENTRY(name) &memphis__backend_##name,
	static const struct memphis__backend *const table[] = { MEMPHIS__BACKENDS(ENTRY) };
#undef ENTRY

	return memphis__backend_choose(table, sizeof(table) / sizeof(table[0]), want, p,
				       out, why, why_n, skips, skips_n);
}
