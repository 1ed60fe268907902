/* tests/fuzz/fuzz_maps.c - libFuzzer entry for the /proc/PID/maps text parser and its lookup
 * (common/maps.c): the input is the text of one snapshot (MPH_BLK_MAPS holds what the
 * library read from /proc/self/maps; the report trusts nothing of it). Checks, besides
 * ASan/UBSan: every mapping found holds the address asked for, and where the parsed
 * mappings do not overlap (every real maps file) the lookup agrees with a linear scan.
 * Built by `make fuzz`, run by t_fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The parser under test, named once: the names and header of the maps parser. */
#include "maps.h"
typedef struct mph_maps maps_t;
typedef struct mph_mapping mapping_t;
#define maps_parse mph_maps_parse
#define maps_find mph_maps_find
#define maps_free mph_maps_free

/* The mapping holding addr by a linear scan of non-overlapping mappings, or NULL. */
static const mapping_t *scan(const maps_t *m, uint64_t addr)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->map[i].start <= addr && addr < m->map[i].end)
			return &m->map[i];
	return NULL;
}

static void probe(const maps_t *m, uint64_t addr, int disjoint)
{
	const mapping_t *f = maps_find(m, addr);

	if (f && !(f->start <= addr && addr < f->end))
		abort(); /* found a mapping that does not hold addr */
	if (disjoint && f != scan(m, addr))
		abort(); /* the binary search missed (or invented) a mapping */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	maps_t m;
	int disjoint = 1;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (maps_parse(text, 1, &m) == 0) {
		for (size_t i = 0; i < m.n; i++) {
			if (strlen(m.map[i].perms) > 4 || !m.map[i].path)
				abort();
			if (m.map[i].start >= m.map[i].end ||
			    (i > 0 && m.map[i].start < m.map[i - 1].end))
				disjoint = 0;
		}
		for (size_t i = 0; i < m.n; i++) {
			probe(&m, m.map[i].start, disjoint);
			probe(&m, m.map[i].end - 1, disjoint);
			probe(&m, m.map[i].end, disjoint);
			probe(&m, m.map[i].start - 1, disjoint);
		}
		probe(&m, 0, disjoint);
		probe(&m, UINT64_MAX, disjoint);
		maps_free(&m);
	}
	free(text);
	return 0;
}
