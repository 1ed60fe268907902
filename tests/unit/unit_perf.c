/* tests/unit/unit_perf.c - losses of a perf ring that nobody read (lib/perf.h): a page-fault
 * event of this thread, a ring of one page, 1,000 pages touched without reading it. The
 * kernel keeps the first ~100 records and counts the rest, but writes their LOST record
 * only with a later record: memphis__ring_lost must tell them at once, and the LOST record
 * that comes with the next fault must not tell them again. Then a slow reader: decoding
 * a record makes two more (as the drain's first decoding of a function takes long enough
 * for a ring to fill); read in slices with copies (the drain's pass) nothing is lost and
 * records come oldest first, while the same reader without slices loses some. TAP output;
 * skips where perf is refused or the kernel has no PERF_FORMAT_LOST (before 6.0). */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf.h"
#include "self.h"

#include "tap.h"

struct seen {
	uint64_t samples, lost;
	uint64_t last_time, disorder; /* the slow reader's */
	int slow;                     /* records that still make two more when decoded */
};

static void touch(size_t n);

static void on_rec(const void *rec, size_t len, void *ctx)
{
	const struct perf_event_header *h = rec;
	struct seen *s = ctx;

	if (h->type == PERF_RECORD_SAMPLE) {
		s->samples++;
		if (len >= sizeof(*h) + 32) { /* ip, pid/tid, time */
			uint64_t t;
			memcpy(&t, (const char *)rec + sizeof(*h) + 16, sizeof(t));
			s->disorder += t < s->last_time;
			s->last_time = t;
		}
		if (s->slow > 0) {
			s->slow--;
			touch(2);
		}
	} else if (h->type == PERF_RECORD_LOST && len >= sizeof(*h) + 16) {
		uint64_t n;
		memcpy(&n, (const char *)rec + sizeof(*h) + 8, sizeof(n));
		s->lost += n;
	}
}

/* Fault in n new pages. */
static void touch(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < n; i++)
		p[i * page] = 1;
	munmap((void *)p, n * page);
}

int main(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.watermark = 1,
	};
	struct memphis__ring r;
	struct seen s = { 0 };
	uint64_t told, again;
	int err;

	a.read_format = memphis__perf_lost_format();
	if (!a.read_format) {
		printf("1..0 # SKIP no PERF_FORMAT_LOST here (kernel before 6.0, or perf refused)\n");
		return 0;
	}
	err = memphis__ring_open(&r, &a, 0, 1, 2);
	if (err < 0) {
		printf("1..0 # SKIP page-fault event refused: %s\n", strerror(-err));
		return 0;
	}
	ok(memphis__ring_lost(&r) == 0, "an empty ring lost nothing");
	memphis__ring_enable(&r, 1);
	touch(1000);
	memphis__ring_enable(&r, 0);
	memphis__ring_drain(&r, on_rec, &s);
	told = memphis__ring_lost(&r);
	ok(s.lost == 0 && told > 0 && s.samples + told >= 1000,
	   "1,000 faults into one page: %llu read, %llu lost told without their LOST record",
	   (unsigned long long)s.samples, (unsigned long long)told);
	ok(memphis__ring_lost(&r) == 0, "told once: the next ask tells none");

	memphis__ring_enable(&r, 1);
	touch(10);
	memphis__ring_enable(&r, 0);
	s.samples = 0;
	memphis__ring_drain(&r, on_rec, &s);
	again = memphis__ring_lost(&r);
	ok(s.samples >= 10 && s.lost == 0 && again == 0,
	   "the LOST record that came with the next faults tells none again (%llu read, %llu, %llu)",
	   (unsigned long long)s.samples, (unsigned long long)s.lost, (unsigned long long)again);
	memphis__ring_close(&r);

	/* The slow reader: 60 records in the ring, and the first 40 decoded make 80 more; a
	 * ring of one page holds about 100 of these 40-byte records. */
	a.sample_type |= PERF_SAMPLE_TIME;
	for (int sliced = 0; sliced < 2; sliced++) {
		struct seen w = { .slow = 40 };
		uint64_t lost;

		if (memphis__ring_open(&r, &a, 0, 1, 2) < 0)
			break;
		memphis__ring_enable(&r, 1);
		touch(60);
		if (!sliced) {
			memphis__ring_drain(&r, on_rec, &w);
		} else {
			/* lib/drain.c's pass, with a slice over at once: a record at a time */
			for (;;) {
				memphis__ring_slice(memphis__now());
				memphis__ring_drain(&r, on_rec, &w);
				if (!memphis__ring_behind())
					break;
				memphis__ring_copying(1);
				memphis__ring_drain(&r, on_rec, &w);
				memphis__ring_copying(0);
			}
			memphis__ring_slice(0);
		}
		memphis__ring_enable(&r, 0);
		memphis__ring_drain(&r, on_rec, &w);
		lost = memphis__ring_lost(&r) + w.lost;
		if (sliced)
			ok(lost == 0 && w.samples >= 140 && !w.disorder,
			   "a slow reader in slices with copies: %llu records (140 made), %llu lost, "
			   "%llu out of order", (unsigned long long)w.samples, (unsigned long long)lost,
			   (unsigned long long)w.disorder);
		else
			ok(lost > 0, "the same reader without slices lost %llu of %llu",
			   (unsigned long long)lost, (unsigned long long)(lost + w.samples));
		memphis__ring_close(&r);
	}
	return tap_done();
}
