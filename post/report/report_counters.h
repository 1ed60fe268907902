/* post/report/report_counters.h - the counters section of the report (COUNTERS records): per
 * selected region, PAPI events per thread, per node of the thread's CPU and summed, the
 * events not counted and why, the kernel's NUMA counters per node, and derived ratios. */
#ifndef MR_REPORT_COUNTERS_H
#define MR_REPORT_COUNTERS_H

#include <stdio.h>

#include "base/json.h"
#include "report_impl.h"

/* The text section on f; nothing for a run without COUNTERS records. */
void report_counters_text(const struct report *r, FILE *f);
/* The "counters" member (into the open object); nothing for a run without them. */
void report_counters_json(struct mr_json *j, const struct report *r);

#endif /* MR_REPORT_COUNTERS_H */
