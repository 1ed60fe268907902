/* tests/programs/tool_v1.c - a run directory of format 2 or 3 rewritten as format 1 (the
 * layout of include/memphis/format.h before SAMPLES layout version 2), so that a
 * memphis-report of format 1 can read what today's library wrote: t_identity.sh compares
 * that old report's output with today's.
 *   tool_v1 SRC DST   DST (created) gets every file of SRC: FILE blocks with
 *                     format_version 1, SAMPLES blocks of layout 2 or 3 as layout 1 (the
 *                     first 56 bytes of each record, new checksum), STACKS blocks of
 *                     layout 2 as layout 1 (every entry with its bytes), every other block
 *                     as it is.
 * From the first block it cannot parse (damage) to the end, a file is copied unchanged.
 * Exit status 0, or 1 with a message. */
#include "layouts.h"
#include "rewrite.h"

/* rewrite_block_fn: FILE blocks of format 1, SAMPLES blocks as layout 1, STACKS as 1. */
static int block(FILE *out, const struct memphis_block *h, const unsigned char *payload, void *arg)
{
	unsigned char *p;
	size_t n = 0;

	(void)arg;
	if (h->type == MPH_BLK_FILE && h->length >= sizeof(struct memphis_rec_file)) {
		p = malloc(h->length);
		if (!p)
			return -1;
		memcpy(p, payload, h->length);
		((struct memphis_rec_file *)p)->format_version = 1;
		rewrite_put(out, h->type, h->version, p, h->length);
		free(p);
		return 1;
	}
	if (h->type == MPH_BLK_SAMPLES && (h->version == 2 || h->version == 3))
		p = layout_samples_to(1, h->version, payload, h->length, &n);
	else if (h->type == MPH_BLK_STACKS && h->version == 2)
		p = layout_stacks_to(1, 2, payload, h->length, &n);
	else
		return 0;
	if (!p)
		return 0; /* damaged: copied as it is */
	rewrite_put(out, h->type, 1, p, (uint32_t)n);
	free(p);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: tool_v1 SRC DST\n");
		return 1;
	}
	return rewrite_dir("tool_v1", argv[1], argv[2], block, NULL);
}
