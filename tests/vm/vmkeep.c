/* vmkeep - hold one perf event open for the whole guest run, so that the kernel's perf
 * static keys stay enabled: perf_swevent_enabled[PAGE_FAULTS] (a page-fault event) and
 * perf_sched_events (any per-task event). The tests' events then only move the keys'
 * counts, and the kernel never rewrites its own code for them. It did on every first
 * event and 1 s after every last one: text_poke_bp puts an int3 on each site. A 2x2
 * guest that fell silent right after a single-stepped run started had all four vCPUs in
 * exc_int3, kprobe_int3_handler and get_kprobe, twice 25 s apart: the handler's path for
 * an int3 no longer in memory, which backs up to re-execute it; a vCPU that still runs
 * a stale translation of the int3 (QEMU TCG 7.2, a thread per vCPU) loops there.
 * Counts, never samples; sleeps until the guest powers off. Exit 1 when the event cannot
 * be opened. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (syscall(SYS_perf_event_open, &a, 0, -1, -1, 0) < 0) {
		perror("vmkeep: perf_event_open");
		return 1;
	}
	for (;;)
		pause();
}
