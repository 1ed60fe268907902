/* tests/fuzz/fuzz_compare_json.c - libFuzzer entry for compare's reader of saved reports
 * (post/compare/compare_parse.c): the input is the text of a file given to `memphis-report
 * compare` as A or B, which may be anything. Checks, besides ASan/UBSan: a parse either
 * succeeds with a consistent model (node count in range, per-node arrays there, items'
 * remote/local sums equal to their per-node counts) or fails with a message; both free
 * cleanly. Built by `make fuzz`, run by t_fuzz.sh. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmp_side s;
	char err[1024] = "";
	int rc;

	memset(&s, 0, sizeof(s));
	s.path = strdup("fuzz.json");
	if (!s.path)
		return 0;
	rc = cmp_parse(&s, (const char *)data, size, err, sizeof(err));
	if (rc == -EINVAL && !err[0])
		abort(); /* a refusal without its one line */
	if (rc == 0) {
		if (s.nnodes == 0 || !s.remote || !s.local)
			abort();
		for (size_t i = 0; i < s.nitems; i++) {
			uint64_t r = 0, l = 0;
			for (uint32_t c = 0; c < s.nnodes; c++)
				r += s.items[i].remote[c], l += s.items[i].local[c];
			if (r != s.items[i].remote_all || l != s.items[i].local_all)
				abort(); /* the totals are the per-node counts' sums */
		}
	}
	cmp_side_free(&s);
	return 0;
}
