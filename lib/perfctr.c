/* lib/perfctr.c - events counted per thread by the library's own perf_event_open(2)
 * (contracts in perfctr.h). */
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "perf.h"
#include "perfctr.h"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_ret;

static void pfm_init_once(void)
{
	pfm_ret = pfm_initialize(); /* idempotent: PAPI and the pebs backend call it too */
}

/* The kind of PMU libpfm4 says event idx belongs to (PFM_PMU_TYPE_*), or -1. */
static int pmu_type(int idx)
{
	pfm_event_info_t ev;
	pfm_pmu_info_t pmu;

	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
		return -1;
	memset(&pmu, 0, sizeof(pmu));
	pmu.size = sizeof(pmu);
	if (pfm_get_pmu_info(ev.pmu, &pmu) != PFM_SUCCESS)
		return -1;
	return (int)pmu.type;
}

/* libpfm4's `perf` and `perf_raw` PMUs (perf::PAGE-FAULTS, perf::CYCLES, perf_raw::rNNNN)
 * are "OS generic": pfm_perf_detect() only asks whether /proc/sys/kernel/perf_event_paranoid
 * exists (lib/pfmlib_perf_event_pmu.c, v4.13.0), so they encode where libpfm4 knows no core
 * PMU of the CPU (Debian 12's 4.13 on AMD family 26, a VM). PAPI 7.0 disables its whole
 * perf_event component there ("Error libpfm4 no default PMU found": pe_libpfm4_events.c
 * wants a PFM_PMU_TYPE_CORE PMU other than ix86arch), software events included; this path
 * needs no core PMU in libpfm4, only the kernel's events. */
int memphis__perfctr_encode(const char *name, struct perf_event_attr *attr, char *why, size_t n)
{
	pfm_perf_encode_arg_t e;
	int ret, type;

	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_ret != PFM_SUCCESS) {
		snprintf(why, n, "libpfm4 does not start: %s", pfm_strerror(pfm_ret));
		return -ENOENT;
	}
	memset(attr, 0, sizeof(*attr));
	memset(&e, 0, sizeof(e));
	e.attr = attr;
	e.size = sizeof(e);
	ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &e);
	if (ret != PFM_SUCCESS) {
		snprintf(why, n, "libpfm4: %s", pfm_strerror(ret));
		return -ENOENT;
	}
	type = pmu_type(e.idx);
	if (type != PFM_PMU_TYPE_CORE && type != PFM_PMU_TYPE_OS_GENERIC) {
		snprintf(why, n, "an event of a PMU counted per CPU, not per thread");
		return -EOPNOTSUPP;
	}
	if (e.cpu >= 0 || e.flags) {
		snprintf(why, n, "counted per thread: cpu= is not taken");
		return -EINVAL;
	}
	if (attr->sample_period || attr->freq || attr->precise_ip) {
		snprintf(why, n, "counted, not sampled: period=, freq=, precise= are not taken");
		return -EINVAL;
	}
	attr->size = sizeof(*attr);
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->disabled = 0;
	attr->inherit = 0;
	return 0;
}

int memphis__perfctr_delta(const struct memphis__perfctr_read *start,
			   const struct memphis__perfctr_read *end,
			   struct memphis__perfctr_count *out)
{
	uint64_t v, en, run;
	unsigned __int128 scaled;

	*out = (struct memphis__perfctr_count){ .coverage = MEMPHIS__PERFCTR_FULL };
	if (end->value < start->value || end->enabled < start->enabled ||
	    end->running < start->running)
		return -ERANGE;
	v = end->value - start->value;
	en = end->enabled - start->enabled;
	run = end->running - start->running;
	out->value = v;
	if (run >= en) /* counting whenever enabled (the kernel never gives running > enabled) */
		return 0;
	if (run == 0) {
		out->coverage = 0;
		return -EBUSY;
	}
	scaled = ((unsigned __int128)v * en + run / 2) / run;
	out->value = scaled > UINT64_MAX ? UINT64_MAX : (uint64_t)scaled;
	out->coverage = (uint32_t)((unsigned __int128)run * MEMPHIS__PERFCTR_FULL / en);
	if (!out->coverage)
		out->coverage = 1;
	out->multiplexed = 1;
	return 0;
}

int memphis__perfctr_open(struct memphis__perfctr_set *s, const struct perf_event_attr *attr,
			  int n, pid_t tid)
{
	int open = 0;

	memset(s, 0, sizeof(*s));
	s->n = n < MEMPHIS__PERFCTR_MAX ? n : MEMPHIS__PERFCTR_MAX;
	for (int k = 0; k < s->n; k++) {
		struct perf_event_attr a = attr[k];
		int fd = memphis__perf_take(&a, tid, -1, -1, &s->fid[k]);

		s->fd[k] = -1;
		if (fd < 0) {
			s->err[k] = fd;
			continue;
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &s->id[k]) < 0) {
			s->err[k] = -errno;
			memphis__fd_close(&fd, &s->fid[k]);
			continue;
		}
		s->fd[k] = fd;
		open++;
	}
	return open;
}

/* Is event k's descriptor still its event? If not, it is forgotten (never closed). */
static int still_ours(struct memphis__perfctr_set *s, int k)
{
	uint64_t id;

	if (s->fd[k] < 0)
		return 0;
	/* the inode first: PERF_EVENT_IOC_ID goes only to a perf event */
	if (memphis__fd_is(s->fd[k], &s->fid[k], NULL) &&
	    ioctl(s->fd[k], PERF_EVENT_IOC_ID, &id) == 0 && id == s->id[k])
		return 1;
	memphis__fd_forget(&s->fd[k]);
	s->err[k] = -EBADF;
	return 0;
}

int memphis__perfctr_read(struct memphis__perfctr_set *s, int k, struct memphis__perfctr_read *r)
{
	uint64_t v[3];
	ssize_t got;

	if (k < 0 || k >= s->n)
		return -EINVAL;
	if (!still_ours(s, k))
		return s->err[k] ? s->err[k] : -EBADF;
	do
		got = read(s->fd[k], v, sizeof(v));
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -errno;
	if (got == 0) /* error state: a pinned event that found no counter stays off */
		return s->err[k] = -ENOSPC;
	if (got != (ssize_t)sizeof(v))
		return -EIO;
	*r = (struct memphis__perfctr_read){ .value = v[0], .enabled = v[1], .running = v[2] };
	return 0;
}

void memphis__perfctr_close(struct memphis__perfctr_set *s)
{
	for (int k = 0; k < s->n; k++)
		if (still_ours(s, k))
			memphis__fd_close(&s->fd[k], &s->fid[k]);
	s->n = 0;
}
