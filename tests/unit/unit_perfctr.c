/* tests/unit/unit_perfctr.c - the library's own counters (lib/perfctr.h).
 *  - memphis__perfctr_delta, table-driven: a count made all the time is as read; one the
 *    kernel multiplexed is scaled by enabled / running and flagged with its coverage; one
 *    never running is refused; reads out of order are refused.
 *  - memphis__perfctr_encode: libpfm4 names to attributes (the kernel's generic events,
 *    which encode on any machine, and a core PMU's event of an inactive PMU,
 *    LIBPFM_ENCODE_INACTIVE=1), and what is refused: a CPU, sampling, a name libpfm4 does
 *    not know. (An uncore event is not encoded without its PMU in sysfs: -EOPNOTSUPP is
 *    not reached here.)
 *  - live, on this thread and on a thread that ends: page faults counted exactly, the
 *    times read, a descriptor the program took over refused (-EBADF) and never closed.
 * TAP output; the live part skips where perf_event_open is refused. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perfctr.h"
#include "self.h"

#include "tap.h"

#define FULL MEMPHIS__PERFCTR_FULL

static const struct {
	int line;
	struct memphis__perfctr_read a, b;
	int ret;
	uint64_t value;
	uint32_t coverage;
	int multiplexed;
} deltas[] = {
	/* counting whenever enabled: as read */
	{ __LINE__, { 100, 1000, 1000 }, { 4100, 9000, 9000 }, 0, 4000, FULL, 0 },
	/* never enabled in between (the thread did not run): nothing missed */
	{ __LINE__, { 5, 7, 7 }, { 5, 7, 7 }, 0, 0, FULL, 0 },
	/* half the time: twice the count, coverage one half */
	{ __LINE__, { 0, 0, 0 }, { 2000, 1000, 500 }, 0, 4000, FULL / 2, 1 },
	/* deltas, not totals: the region's start had run all the time */
	{ __LINE__, { 1000, 1000, 1000 }, { 3000, 5000, 3000 }, 0, 4000, FULL / 2, 1 },
	/* rounded to nearest: 10 * 3 / 2 = 15; 7 * 3 / 2 = 10.5 -> 11 */
	{ __LINE__, { 0, 0, 0 }, { 10, 3, 2 }, 0, 15, 666666, 1 },
	{ __LINE__, { 0, 0, 0 }, { 7, 3, 2 }, 0, 11, 666666, 1 },
	/* a sliver of the time: coverage at least 1 millionth */
	{ __LINE__, { 0, 0, 0 }, { 1, 100000000, 1 }, 0, 100000000, 1, 1 },
	/* past 64 bits after scaling: saturates */
	{ __LINE__, { 0, 0, 0 }, { UINT64_MAX / 2, 4, 1 }, 0, UINT64_MAX, FULL / 4, 1 },
	/* enabled, never running: nothing to scale */
	{ __LINE__, { 0, 0, 0 }, { 0, 1000, 0 }, -EBUSY, 0, 0, 0 },
	/* the end before the start */
	{ __LINE__, { 10, 10, 10 }, { 9, 20, 20 }, -ERANGE, 0, FULL, 0 },
	{ __LINE__, { 10, 10, 10 }, { 20, 9, 9 }, -ERANGE, 0, FULL, 0 },
};

static void test_delta(void)
{
	for (size_t i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++) {
		struct memphis__perfctr_count c;
		int ret = memphis__perfctr_delta(&deltas[i].a, &deltas[i].b, &c);

		if (ret)
			tap(ret == deltas[i].ret && c.coverage == deltas[i].coverage, deltas[i].line,
			    "delta refused: %d, coverage %u", ret, c.coverage);
		else
			tap(ret == deltas[i].ret && c.value == deltas[i].value &&
				    c.coverage == deltas[i].coverage &&
				    c.multiplexed == deltas[i].multiplexed,
			    deltas[i].line, "delta: %d, value %llu, coverage %u, multiplexed %d", ret,
			    (unsigned long long)c.value, c.coverage, c.multiplexed);
	}
}

static const struct {
	int line;
	const char *name;
	int ret;
	uint32_t type;
	uint64_t config;
} names[] = {
	{ __LINE__, "perf::PAGE-FAULTS", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ __LINE__, "perf::TASK-CLOCK", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ __LINE__, "perf::CYCLES", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ __LINE__, "perf::INSTRUCTIONS", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ __LINE__, "perf::CACHE-MISSES", 0, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	/* a core PMU's event (Skylake-SP, inactive here: LIBPFM_ENCODE_INACTIVE) */
	{ __LINE__, "skx::INST_RETIRED:ANY_P", 0, PERF_TYPE_RAW, 0xc0 },
	/* what a count of one thread is not */
	{ __LINE__, "perf::PAGE-FAULTS:cpu=0", -EINVAL, 0, 0 },
	{ __LINE__, "perf::PAGE-FAULTS:period=100", -EINVAL, 0, 0 },
	{ __LINE__, "PAPI_TOT_CYC", -ENOENT, 0, 0 },
	{ __LINE__, "perf::NO-SUCH-EVENT", -ENOENT, 0, 0 },
};

static void test_encode(void)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct perf_event_attr a;
		char why[128] = "";
		int ret = memphis__perfctr_encode(names[i].name, &a, why, sizeof(why));

		if (names[i].ret)
			tap(ret == names[i].ret && why[0], names[i].line, "%s refused: %d (%s)",
			    names[i].name, ret, why);
		else
			tap(ret == 0 && a.type == names[i].type && a.config == names[i].config &&
				    a.exclude_kernel && !a.sample_period && !a.disabled &&
				    !a.inherit && a.size == sizeof(a) &&
				    a.read_format == (PERF_FORMAT_TOTAL_TIME_ENABLED |
						      PERF_FORMAT_TOTAL_TIME_RUNNING),
			    names[i].line, "%s: %d, type %u config %#llx read_format %#llx",
			    names[i].name, ret, a.type, (unsigned long long)a.config,
			    (unsigned long long)a.read_format);
	}
}

/* Fault in n new pages (and give them back). */
static void touch(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	madvise((void *)p, n * page, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < n; i++)
		p[i * page] = 1;
	munmap((void *)p, n * page);
}

static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t worker_tid;

static void *worker(void *arg)
{
	(void)arg;
	worker_tid = memphis__gettid();
	pthread_mutex_lock(&go_lock); /* until its events are open */
	pthread_mutex_unlock(&go_lock);
	touch(300);
	return NULL;
}

static void test_live(void)
{
	struct perf_event_attr a[2];
	struct memphis__perfctr_set s;
	struct memphis__perfctr_read r0, r1;
	struct memphis__perfctr_count c;
	char why[128];
	pthread_t t;
	int fd, n, rc;

	memphis__perfctr_encode("perf::PAGE-FAULTS", &a[0], why, sizeof(why));
	memphis__perfctr_encode("perf::TASK-CLOCK", &a[1], why, sizeof(why));
	n = memphis__perfctr_open(&s, a, 2, memphis__gettid());
	if (n == 0 && s.err[0] == -EACCES) {
		tap_skip("perf_event_open refused", "live counts");
		return;
	}
	ok(n == 2 && s.fd[0] >= 0 && s.fd[1] >= 0, "two events open on this thread: %d", n);
	ok(memphis__perfctr_read(&s, 0, &r0) == 0, "read at the start");
	touch(1000);
	rc = memphis__perfctr_read(&s, 0, &r1);
	ok(rc == 0 && memphis__perfctr_delta(&r0, &r1, &c) == 0, "read at the end");
	/* the mapping, the loop's and the read's own pages: a few more than 1000 */
	ok(c.value >= 1000 && c.value <= 1010 && !c.multiplexed && c.coverage == FULL,
	   "1000 pages touched: %llu page faults, coverage %u",
	   (unsigned long long)c.value, c.coverage);
	ok(r1.enabled > r0.enabled && r1.running == r1.enabled,
	   "a software event runs whenever enabled: enabled %llu running %llu",
	   (unsigned long long)r1.enabled, (unsigned long long)r1.running);

	/* the program puts its own file on the event's number: refused, not closed */
	fd = open("/dev/null", O_RDONLY);
	ok(fd >= 0 && dup2(fd, s.fd[1]) == s.fd[1], "the program takes the number of event 1");
	ok(memphis__perfctr_read(&s, 1, &r0) == -EBADF && s.err[1] == -EBADF && s.fd[1] == -1,
	   "its read is refused: -EBADF, forgotten");
	{
		int keep = s.fd[0];
		memphis__perfctr_close(&s);
		ok(fcntl(keep, F_GETFD) < 0, "close: event 0 closed");
	}
	close(fd);

	/* another thread's event, read after the thread ended: its final count */
	pthread_mutex_lock(&go_lock);
	pthread_create(&t, NULL, worker, NULL);
	while (!__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	n = memphis__perfctr_open(&s, a, 1, worker_tid);
	pthread_mutex_unlock(&go_lock);
	pthread_join(t, NULL);
	rc = n == 1 ? memphis__perfctr_read(&s, 0, &r1) : -1;
	ok(rc == 0 && r1.value >= 300 && r1.value <= 310,
	   "a thread that ended: %llu page faults for its 300 pages",
	   (unsigned long long)r1.value);
	memphis__perfctr_close(&s);
}

int main(void)
{
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1); /* before libpfm4 starts */
	test_delta();
	test_encode();
	test_live();
	return tap_done();
}
