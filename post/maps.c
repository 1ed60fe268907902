/* post/maps.c - parsing /proc/self/maps snapshots. */
#include "maps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_map(const void *a, const void *b)
{
	const struct mr_mapping *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

int mr_maps_parse(const char *text, uint64_t time, struct mr_maps *out)
{
	size_t lines = 1;
	char *save = NULL;

	memset(out, 0, sizeof(*out));
	out->time = time;
	out->text = strdup(text);
	if (!out->text)
		return -ENOMEM;
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	out->map = calloc(lines, sizeof(*out->map));
	if (!out->map) {
		free(out->text);
		out->text = NULL;
		return -ENOMEM;
	}
	for (char *line = strtok_r(out->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct mr_mapping m = { 0 };
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &s, &e, perms, &off, &pos) < 4 || !pos)
			continue;
		m.start = s;
		m.end = e;
		m.offset = off;
		memcpy(m.perms, perms, 4);
		m.perms[4] = '\0';
		line += pos;
		while (*line == ' ' || *line == '\t')
			line++;
		m.path = line;
		out->map[out->n++] = m;
	}
	qsort(out->map, out->n, sizeof(*out->map), cmp_map);
	return 0;
}

void mr_maps_free(struct mr_maps *m)
{
	if (!m)
		return;
	free(m->map);
	free(m->text);
	m->map = NULL;
	m->text = NULL;
	m->n = 0;
}

const struct mr_mapping *mr_maps_find(const struct mr_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->map[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && addr < m->map[lo - 1].end)
		return &m->map[lo - 1];
	return NULL;
}
