/* tests/programs/tool_format.c - a run directory rewritten into format 2 or 3
 * (include/memphis/format.h): t_format3.sh checks that the report of either is the same.
 *   tool_format 2|3 SRC DST   DST (created) gets every file of SRC: FILE blocks with that
 *                             format_version, SAMPLES blocks of any layout as layout 2
 *                             (format 2) or 3, STACKS blocks as layout 1 or 2, every other
 *                             block as it is.
 * From the first block it cannot parse (damage) to the end, a file is copied unchanged.
 * Exit status 0, or 1 with a message. */
#include "layouts.h"
#include "rewrite.h"

/* rewrite_block_fn: FILE, SAMPLES and STACKS blocks in the format *(int *)arg. */
static int block(FILE *out, const struct memphis_block *h, const unsigned char *payload, void *arg)
{
	int format = *(int *)arg;
	uint16_t samples = format == 3 ? 3 : 2, stacks = format == 3 ? 2 : 1;
	unsigned char *p = NULL;
	size_t n = 0;

	if (h->type == MPH_BLK_FILE && h->length >= sizeof(struct memphis_rec_file)) {
		p = malloc(h->length);
		if (!p)
			return -1;
		memcpy(p, payload, h->length);
		((struct memphis_rec_file *)p)->format_version = (uint32_t)format;
		rewrite_put(out, h->type, h->version, p, h->length);
		free(p);
		return 1;
	}
	if (h->type == MPH_BLK_SAMPLES && h->version >= 1 && h->version <= 3) {
		p = layout_samples_to(samples, h->version, payload, h->length, &n);
		if (!p)
			return 0; /* damaged: copied as it is */
		rewrite_put(out, h->type, samples, p, (uint32_t)n);
		free(p);
		return 1;
	}
	if (h->type == MPH_BLK_STACKS && (h->version == 1 || h->version == 2)) {
		p = layout_stacks_to(stacks, h->version, payload, h->length, &n);
		if (!p)
			return 0;
		rewrite_put(out, h->type, stacks, p, (uint32_t)n);
		free(p);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int format = argc == 4 ? atoi(argv[1]) : 0;

	if (format != 2 && format != 3) {
		fprintf(stderr, "usage: tool_format 2|3 SRC DST\n");
		return 1;
	}
	return rewrite_dir("tool_format", argv[2], argv[3], block, &format);
}
