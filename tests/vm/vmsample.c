/* vmsample - perf_event_open checks run inside the QEMU guest (static, no memphis).
 *
 *   vmsample spread [MS]   sample this thread with task-clock (1 ms period, IP, TID, CPU,
 *                          REGS_USER) while it runs a 7-instruction random gather loop for
 *                          MS milliseconds (default 500), longer until 200 samples are in
 *                          (at most 40 x MS); print the sample count and how
 *                          the loop's samples fall over its instructions. Exit 0 when there
 *                          are >= 50 samples, every sample's user regs carry its IP, and the
 *                          loop's samples are spread: >= 3 distinct IPs and under half on
 *                          the loop head. Under TCG that holds only with single-stepping on
 *                          (otherwise every sample lands on the first instruction of a
 *                          translation block, the loop head); on real hardware the skid
 *                          puts most samples just after the gather load.
 *   vmsample eacces        opening the same event must fail with EACCES (run it as an
 *                          unprivileged user with perf_event_paranoid = 3).
 *   vmsample open          opening the same event must succeed.
 *
 * Exit 0 when the check holds, 1 when it does not, 2 on setup errors.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PERF_REG_X86_IP 8
#define RING_PAGES 512 /* data pages: 2 MiB, far more than 20 s of 1 kHz samples */
#define SAMPLE_BYTES 48 /* header, ip, pid/tid, cpu/res, abi, regs[1] */
#define WANT_SAMPLES 200
#define DATA_LEN (1u << 20) /* 1 M entries of 8 bytes: 8 MiB, past the caches */
#define IDX_LEN (1u << 16)  /* the loop walks these indices round and round */

/* The loop, with global labels so samples can be attributed to its instructions.
 * rdi = idx, rsi = data, rdx = iterations; returns the sum (keeps the loads live). */
extern uint64_t gather(const uint32_t *idx, const uint64_t *data, uint64_t n);
extern const char gather_loop[], gather_end[];
__asm__(".text\n"
	".globl gather\n.type gather,@function\n"
	"gather:\n"
	"  xor %eax, %eax\n"
	"  xor %ecx, %ecx\n"
	".globl gather_loop\n"
	"gather_loop:\n"
	"  mov (%rdi,%rcx,4), %r8d\n"     /* i = idx[k] */
	"  mov (%rsi,%r8,8), %r9\n"       /* the gather load: data[i] */
	"  add %r9, %rax\n"
	"  inc %rcx\n"
	"  and $0xffff, %rcx\n"        /* IDX_LEN - 1 */
	"  dec %rdx\n"
	"  jnz gather_loop\n"
	".globl gather_end\n"
	"gather_end:\n"
	"  ret\n"
	".size gather, .-gather\n");

static struct perf_event_attr sampling_attr(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 1000000; /* ns */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER;
	a.sample_regs_user = 1ull << PERF_REG_X86_IP;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	a.wakeup_events = 1000000;
	return a;
}

static int open_event(void)
{
	struct perf_event_attr a = sampling_attr();
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmd_spread(double ms)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t ring_len = (size_t)(RING_PAGES + 1) * psz;
	uint32_t *idx = malloc(IDX_LEN * sizeof(*idx));
	uint64_t *data = malloc((size_t)DATA_LEN * sizeof(*data)), sum = 0;
	int fd = open_event();

	if (fd < 0) {
		printf("perf_event_open: %s\n", strerror(errno));
		return 1;
	}
	if (!idx || !data)
		return 2;
	srand(42);
	for (uint32_t k = 0; k < IDX_LEN; k++)
		idx[k] = (uint32_t)(((uint64_t)rand() * 2654435761u) % DATA_LEN);
	for (uint32_t k = 0; k < DATA_LEN; k++)
		data[k] = k;

	struct perf_event_mmap_page *meta =
		mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED) {
		printf("mmap ring: %s\n", strerror(errno));
		return 2;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/* At least MS, then on until WANT_SAMPLES are in (at most 40 x MS): a vCPU starved by
	 * a busy host gets late timer interrupts, and the hrtimer folds missed periods into
	 * one sample, so the count per wall-clock second varies with the host's load. */
	double t0 = now_ms(), elapsed;
	uint64_t iters = 0;
	while ((elapsed = now_ms() - t0) < ms ||
	       (__atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) < WANT_SAMPLES * SAMPLE_BYTES &&
		elapsed < 40 * ms)) {
		sum += gather(idx, data, 4096);
		iters += 4096;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	/* Walk the records: header, ip, pid/tid, cpu/res, abi, regs[1]. */
	const char *base = (const char *)meta + psz;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), lost = 0;
	uint64_t dsize = meta->data_size;
	long total = 0, in_loop = 0, regs_ok = 0;
	long per_insn[64] = { 0 };
	uintptr_t lo = (uintptr_t)gather_loop, hi = (uintptr_t)gather_end;

	if (head > dsize) {
		printf("ring wrapped (%llu bytes)\n", (unsigned long long)head);
		return 2;
	}
	for (uint64_t off = 0; off < head;) {
		const struct perf_event_header *h = (const void *)(base + off);
		if (h->size == 0)
			break;
		if (h->type == PERF_RECORD_SAMPLE) {
			const uint64_t *w = (const uint64_t *)(h + 1);
			uint64_t ip = w[0], abi = w[3], rip = w[4];
			total++;
			if (abi == PERF_SAMPLE_REGS_ABI_64 && rip == ip)
				regs_ok++;
			if (ip >= lo && ip < hi) {
				in_loop++;
				if (ip - lo < 64)
					per_insn[ip - lo]++;
			}
		} else if (h->type == PERF_RECORD_LOST) {
			lost += ((const uint64_t *)(h + 1))[1];
		}
		off += h->size;
	}

	int distinct = 0;
	printf("%.0f ms, %.1f M loop iterations/s, samples=%ld in_loop=%ld regs_ok=%ld lost=%llu loop:",
	       elapsed, iters / elapsed / 1e3, total, in_loop, regs_ok, (unsigned long long)lost);
	for (unsigned o = 0; o < hi - lo && o < 64; o++)
		if (per_insn[o]) {
			printf(" +%u:%ld", o, per_insn[o]);
			distinct++;
		}
	printf(" (sum %llu)\n", (unsigned long long)(sum & 0xff));
	return total >= 50 && regs_ok == total && in_loop > 0 && distinct >= 3 &&
			       per_insn[0] * 2 < in_loop ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "spread") == 0)
		return cmd_spread(argc > 2 ? atof(argv[2]) : 500);
	if (argc == 2 && (strcmp(argv[1], "eacces") == 0 || strcmp(argv[1], "open") == 0)) {
		int want_fail = argv[1][0] == 'e';
		int fd = open_event(), err = errno;
		printf("uid %d: perf_event_open -> %s\n", (int)getuid(),
		       fd >= 0 ? "fd" : strerror(err));
		if (want_fail)
			return fd < 0 && err == EACCES ? 0 : 1;
		return fd >= 0 ? 0 : 1;
	}
	fprintf(stderr, "usage: vmsample spread [MS] | eacces | open\n");
	return 2;
}
