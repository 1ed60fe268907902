/* common/maps.h - the text of /proc/PID/maps: one line at a time (no allocation, for the
 * library's executable-mapping cache) or a whole snapshot sorted by address (for the
 * report's MPH_BLK_MAPS blocks).
 *
 * A line reads "start-end perms offset major:minor inode [path]", numbers in hex except
 * the decimal inode; the path is everything after the blanks that follow the inode (""
 * for anonymous memory, "[heap]", "/lib/x.so (deleted)"). */
#ifndef MPH_MAPS_H
#define MPH_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct mph_mapping {
	uint64_t start, end;   /* [start, end) */
	uint64_t offset;       /* file offset mapped at start */
	uint64_t inode;        /* 0 for anonymous memory */
	unsigned dev_major, dev_minor;
	char perms[5];         /* "r-xp", NUL-terminated */
	const char *path;      /* into the parsed text, path_len bytes (see the parser) */
	size_t path_len;
};

/* Parse the line line[0..eol) (eol at its '\n' or NUL) into *out; out->path points into
 * the line and is not NUL-terminated there (path_len says its length). Allocates
 * nothing. Returns 1 when the line parsed, 0 when it is not a maps line (*out is then
 * unspecified). Callers filter (e.g. executable, start < end) themselves. */
int mph_maps_parse_line(const char *line, const char *eol, struct mph_mapping *out);

/* One snapshot: the mappings of a maps text, sorted by start. */
struct mph_maps {
	uint64_t time;
	struct mph_mapping *map; /* sorted by start; paths NUL-terminated, point into text */
	size_t n;
	char *text;              /* owned copy of the text the paths point into */
};

/* Parse a whole maps text into *out (time is kept as out->time). Empty lines and lines
 * that do not parse are skipped. out owns its memory (mph_maps_free). Returns 0, or
 * -ENOMEM with *out empty. */
int mph_maps_parse(const char *text, uint64_t time, struct mph_maps *out);

/* Free what mph_maps_parse allocated; m may be NULL or already freed. */
void mph_maps_free(struct mph_maps *m);

/* The mapping of m that contains addr, or NULL. Valid until mph_maps_free(m). */
const struct mph_mapping *mph_maps_find(const struct mph_maps *m, uint64_t addr);

#endif /* MPH_MAPS_H */
