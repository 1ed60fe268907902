/* post/report/report_trace.c - --format trace: the Chrome trace event JSON of a run
 * (docs/export.md). */
#include "base/err.h"
#include "report_impl.h"

int report_write_trace(const struct report *r, const uint32_t *ids, size_t nids)
{
	(void)r;
	(void)ids;
	(void)nids;
	return mr_error(MR_EXIT_DATA, "--format trace: not written yet");
}
