/* post/report/report_pprof.c - --format pprof (docs/export.md). */
#include "base/err.h"
#include "report_impl.h"
#include "profile.pb-c.h"

int report_write_pprof(const struct report *r, const uint32_t *ids, size_t nids)
{
	(void)r;
	(void)ids;
	(void)nids;
	return mr_error(MR_EXIT_DATA, "--format pprof: not written yet");
}
