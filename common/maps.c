/* common/maps.c - parsing /proc/PID/maps text (see maps.h). */
#include "maps.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Parse a hex number at *s (at least one digit), advance past it. 0 when there is none. */
static int hexnum(const char **s, const char *eol, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	for (; p < eol; p++) {
		unsigned d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (*p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		*v = *v * 16 + d;
	}
	if (p == *s)
		return 0;
	*s = p;
	return 1;
}

/* Skip blanks, then return the end of the token (non-blank run) starting there. */
static const char *token(const char **s, const char *eol)
{
	const char *p = *s;

	while (p < eol && is_blank(*p))
		p++;
	*s = p;
	while (p < eol && !is_blank(*p))
		p++;
	return p;
}

int mph_maps_parse_line(const char *line, const char *eol, struct mph_mapping *out)
{
	const char *p = line, *end;
	uint64_t v;
	size_t n;

	memset(out, 0, sizeof(*out));
	while (p < eol && is_blank(*p))
		p++;
	if (!hexnum(&p, eol, &out->start) || p >= eol || *p++ != '-' ||
	    !hexnum(&p, eol, &out->end))
		return 0;
	end = token(&p, eol); /* perms */
	if (end == p)
		return 0;
	n = (size_t)(end - p) < 4 ? (size_t)(end - p) : 4;
	memcpy(out->perms, p, n);
	p = end;
	token(&p, eol);
	if (!hexnum(&p, eol, &out->offset))
		return 0;
	end = token(&p, eol); /* major:minor */
	if (end == p)
		return 0;
	if (hexnum(&p, end, &v)) {
		out->dev_major = (unsigned)v;
		if (p < end && *p == ':' && (p++, hexnum(&p, end, &v)))
			out->dev_minor = (unsigned)v;
	}
	p = end;
	end = token(&p, eol); /* inode */
	if (end == p)
		return 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		out->inode = out->inode * 10 + (uint64_t)(*p - '0');
	p = end;
	while (p < eol && is_blank(*p))
		p++;
	out->path = p;
	out->path_len = (size_t)(eol - p);
	return 1;
}

static int cmp_start(const void *a, const void *b)
{
	const struct mph_mapping *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

int mph_maps_parse(const char *text, uint64_t time, struct mph_maps *out)
{
	size_t lines = 1;
	char *line;

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
	for (line = out->text; *line;) {
		char *eol = strchr(line, '\n'), *next;
		struct mph_mapping m;

		if (!eol)
			eol = line + strlen(line);
		next = *eol ? eol + 1 : eol;
		*eol = '\0'; /* the path ends with its line */
		if (mph_maps_parse_line(line, eol, &m))
			out->map[out->n++] = m;
		line = next;
	}
	qsort(out->map, out->n, sizeof(*out->map), cmp_start);
	return 0;
}

void mph_maps_free(struct mph_maps *m)
{
	if (!m)
		return;
	free(m->map);
	free(m->text);
	m->map = NULL;
	m->text = NULL;
	m->n = 0;
}

const struct mph_mapping *mph_maps_find(const struct mph_maps *m, uint64_t addr)
{
	size_t i = mph_upper_bound(m->map, m->n, sizeof(*m->map),
				   offsetof(struct mph_mapping, start), addr);

	if (i > 0 && addr < m->map[i - 1].end)
		return &m->map[i - 1];
	return NULL;
}
