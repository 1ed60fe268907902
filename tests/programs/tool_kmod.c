/* tests/programs/tool_kmod.c - drive /dev/memphismod directly, for the guest tests
 * (tests/vm/guest-tests/kmod.guest.sh). Each command prints one summary line and exits 0
 * when its check passed.
 *
 *   tool_kmod info                 GET_VERSION; lseek on the device is ESPIPE
 *   tool_kmod open                 open the device: exit 0, or 3 (EACCES/EPERM), 4 (ENOENT)
 *   tool_kmod sample SECONDS [THREADS]
 *                                  sample this process while THREADS (default 2) spin; every
 *                                  record must be this pid, one of its tids, a user ip, a
 *                                  time inside the run and a CPU below nr_cpus; at least 10
 *                                  records, every spinning thread's among them: until then
 *                                  it samples on, up to 8 times SECONDS (a starved guest's
 *                                  threads spend most of a second in its kernel, where the
 *                                  clock takes no sample: the summary gives user/sys time)
 *   tool_kmod sample-cpu SECONDS [THREADS]
 *                                  the same with CONFIGURE's MEMPHISMOD_CONFIG_PER_CPU (one
 *                                  event per CPU, filtered to this process by the module);
 *                                  exit 1 when caps lack MEMPHISMOD_CAP_PER_CPU
 *   tool_kmod idle-timer SECONDS   one spinning thread, pinned to CPU 0 with the main
 *                                  thread, sampled at 1 ms in turn by no session, a
 *                                  first-version (40-byte, no flags) CONFIGURE and a
 *                                  per-CPU one: the other CPUs' local timer interrupts a
 *                                  second (/proc/interrupts LOC). Per CPU puts a timer on
 *                                  every CPU, per thread on the sampled thread's only:
 *                                  exit 0 when the per-CPU session added >= 100 a second
 *                                  and the first-version one under a quarter of that
 *   tool_kmod hold SECONDS         start sampling, print "sampling", spin (unload test)
 *   tool_kmod throttle SECONDS     sample at 100 us as `sample` does, with the guest's
 *                                  kernel.perf_event_max_sample_rate at 1 (one sample a
 *                                  tick, set by the caller): every throttle is told, by
 *                                  its sample's REC_THROTTLED or READ's throttled (the
 *                                  64-byte READ), and every spinning thread has one;
 *                                  exit 2 when the kernel throttled nothing
 *   tool_kmod lost SECONDS [cpu]   a 16 KiB buffer at 100 us, read only after STOP: drops are
 *                                  told per thread by LOST records; a thread START excludes
 *                                  (exclude_tid) has neither samples nor LOST records;
 *                                  exit 2 when the buffer never filled (no drop to tell);
 *                                  cpu: with MEMPHISMOD_CONFIG_PER_CPU (the excluded thread
 *                                  then runs under the session's events)
 *   tool_kmod faults               FAULTS: every page one thread touches has its fault
 *                                  record (READ_FAULTS), the excluded thread's none
 *   tool_kmod hwkinds              the hardware kinds (IBS op, PEBS load latency): each is
 *                                  configurable exactly when caps has it, else CONFIGURE
 *                                  says EOPNOTSUPP; ldlat is refused for the clock kind and
 *                                  a first-version (40-byte) CONFIGURE still works; the
 *                                  per-CPU flag only for the clock at 100 us or more,
 *                                  unknown flag bits refused
 *   tool_kmod fork-eperm           a forked child may not START or READ the parent's session
 *   tool_kmod fuzz CALLS SEED      random commands (FAULTS, READ_FAULTS and per-CPU sessions
 *                                  too), sizes,
 *                                  pointers and sequences; any record
 *                                  returned must be valid as above; exit 0 unless a record
 *                                  was bad or the process was killed
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memphis/memphismod.h"

#define MAXT 64

static uint64_t config_flags; /* CONFIGURE's: MEMPHISMOD_CONFIG_PER_CPU (sample-cpu, lost cpu) */

static unsigned long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static int open_dev(void)
{
	int fd = open(MEMPHISMOD_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "tool_kmod: open %s: %s\n", MEMPHISMOD_DEVICE, strerror(errno));
	return fd;
}

static int get_version(int fd, struct memphismod_version *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	return ioctl(fd, MEMPHISMOD_IOC_GET_VERSION, v);
}

/* ---- checking records ---- */

static pid_t tids[MAXT];
static int ntids;
static pthread_mutex_t tids_lock = PTHREAD_MUTEX_INITIALIZER;

struct tally {
	unsigned long long records, foreign, kernel, bad, lost, lost_records, faults;
	unsigned long long throttled, throttled_untold; /* REC_THROTTLED samples; READ's */
	unsigned long long per_tid[MAXT];
	unsigned long long throttled_tid[MAXT];
	unsigned long long lost_tid[MAXT]; /* told by LOST records */
	unsigned long long per_cpu[8];
};

static void check_records(const unsigned char *buf, unsigned long long n, unsigned long long rec_size,
			  unsigned long long nr_cpus, unsigned long long t0, struct tally *t)
{
	unsigned long long t1 = now_ns();

	for (unsigned long long i = 0; i < n; i++) {
		struct memphismod_record r;
		int k, found = -1;

		memcpy(&r, buf + i * rec_size, sizeof(r));
		t->records++;
		if (r.ip >= (1ull << 47) || (r.flags & MEMPHISMOD_REC_KERNEL) ||
		    ((r.flags & MEMPHISMOD_REC_ADDR) && r.addr >= (1ull << 47))) {
			t->kernel++;
			continue;
		}
		pthread_mutex_lock(&tids_lock);
		for (k = 0; k < ntids; k++)
			if (tids[k] == (pid_t)r.tid)
				found = k;
		pthread_mutex_unlock(&tids_lock);
		if (r.pid == (uint32_t)getpid() && found >= 0 && (r.flags & MEMPHISMOD_REC_LOST) &&
		    r.ip == 0 && r.cpu < nr_cpus && r.weight > 0) {
			t->lost_records++;
			t->lost_tid[found] += r.weight;
			continue;
		}
		if (r.pid == (uint32_t)getpid() && found >= 0 && (r.flags & MEMPHISMOD_REC_FAULT) &&
		    (r.flags & MEMPHISMOD_REC_ADDR) && r.ip != 0 && r.cpu < nr_cpus) {
			t->faults++; /* READ_FAULTS: a page fault of ours */
			continue;
		}
		if (r.pid != (uint32_t)getpid() || found < 0) {
			if (t->foreign < 3)
				printf("# foreign record: pid %u tid %u (mine: pid %d)\n", r.pid, r.tid,
				       (int)getpid());
			t->foreign++;
			continue;
		}
		if (r.cpu >= nr_cpus || r.time < t0 || r.time > t1 ||
		    !(r.flags & MEMPHISMOD_REC_REGS) || r.regs[8] != r.ip) {
			if (t->bad < 3)
				printf("# bad record: cpu %u time %llu (run %llu..%llu"
				       ") flags %#x regs[ip] %#llx ip %#llx\n", r.cpu, r.time,
				       t0, t1, r.flags, r.regs[8], r.ip);
			t->bad++;
			continue;
		}
		t->per_tid[found]++;
		t->per_cpu[r.cpu & 7]++;
		if (r.flags & MEMPHISMOD_REC_THROTTLED) {
			t->throttled++;
			t->throttled_tid[found]++;
		}
	}
}

/* STOP, then read what the buffers still hold into t (buf holds 256 records). */
static void stop_and_drain(int fd, unsigned char *buf, const struct memphismod_version *v,
			   unsigned long long t0, struct tally *t)
{
	ioctl(fd, MEMPHISMOD_IOC_STOP, 0);
	for (;;) {
		struct memphismod_read rd = { .size = sizeof(rd), .buf = (uintptr_t)buf,
					      .buf_size = 256 * v->record_size };
		if (ioctl(fd, MEMPHISMOD_IOC_READ, &rd) < 0)
			break;
		t->lost += rd.lost;
		t->throttled_untold += rd.throttled;
		if (rd.nr_records == 0)
			break;
		check_records(buf, rd.nr_records, v->record_size, v->nr_cpus, t0, t);
	}
}

static void add_self(void)
{
	pthread_mutex_lock(&tids_lock);
	if (ntids < MAXT)
		tids[ntids++] = (pid_t)syscall(SYS_gettid);
	pthread_mutex_unlock(&tids_lock);
}

static volatile int stop_spin;
static double sink[1 << 16];

static void *spin(void *arg)
{
	unsigned x = (unsigned)(uintptr_t)arg * 2654435761u + 1;

	add_self();
	while (!stop_spin) {
		x = x * 1103515245u + 12345u;
		sink[x & ((1 << 16) - 1)] += 1.0;
	}
	return NULL;
}

/* CPU time of this process so far, user and system, in ms */
static void cpu_ms(unsigned long long *user, unsigned long long *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (unsigned long long)ru.ru_utime.tv_sec * 1000 + (unsigned long long)ru.ru_utime.tv_usec / 1000;
	*sys = (unsigned long long)ru.ru_stime.tv_sec * 1000 + (unsigned long long)ru.ru_stime.tv_usec / 1000;
}

static int threads_seen(const struct tally *t)
{
	int seen = 0;

	for (int k = 0; k < ntids; k++)
		seen += t->per_tid[k] > 0;
	return seen;
}

/* ---- commands ---- */

static int cmd_info(void)
{
	struct memphismod_version v;
	int fd = open_dev(), seek;

	if (fd < 0)
		return 1;
	if (get_version(fd, &v) < 0) {
		printf("GET_VERSION: %s\n", strerror(errno));
		return 1;
	}
	printf("abi %llu caps %#llx record %llu bytes, buffer %llu..%llu"
	       " (default %llu) bytes/cpu, period %llu..%llu ns, nr_cpus %llu"
	       "\n", v.abi_version, v.caps, v.record_size, v.buffer_min, v.buffer_max,
	       v.buffer_default, v.period_min, v.period_max, v.nr_cpus);
	/* the module has no llseek (6.12 removed no_llseek): nonseekable_open() must still
	 * make it ESPIPE */
	errno = 0;
	seek = lseek(fd, 0, SEEK_SET) < 0 && errno == ESPIPE;
	printf("lseek: %s\n", seek ? "ESPIPE" : errno ? strerror(errno) : "allowed!");
	return v.abi_version == MEMPHISMOD_ABI_VERSION && v.size == sizeof(v) && seek ? 0 : 1;
}

static int cmd_hwkinds(void)
{
	static const struct { __u64 kind, cap; const char *name; } k[] = {
		{ MEMPHISMOD_KIND_IBS_OP, MEMPHISMOD_CAP_IBS_OP, "IBS op" },
		{ MEMPHISMOD_KIND_PEBS_LDLAT, MEMPHISMOD_CAP_PEBS, "PEBS load latency" },
	};
	struct memphismod_version v;
	struct memphismod_config c;
	int fd = open_dev(), bad = 0, r;

	if (fd < 0 || get_version(fd, &v) < 0)
		return 1;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.kind = k[i].kind;
		r = ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, &c);
		printf("%s: %s in caps %#llx, CONFIGURE: %s\n", k[i].name,
		       (v.caps & k[i].cap) ? "offered" : "not offered", (unsigned long long)v.caps,
		       r == 0 ? "ok" : strerror(errno));
		if ((v.caps & k[i].cap) ? r != 0 : (r == 0 || errno != EOPNOTSUPP))
			bad++;
	}
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.ldlat = 30;
	r = ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, &c);
	printf("cpu clock with ldlat 30: %s\n", r == 0 ? "accepted" : strerror(errno));
	bad += r == 0 || errno != EINVAL;
	c.size = MEMPHISMOD_CONFIG_SIZE_VER0;
	r = ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, &c); /* ldlat lies beyond the 40 bytes sent */
	printf("cpu clock, first-version CONFIGURE (40 bytes): %s\n", r == 0 ? "ok" : strerror(errno));
	bad += r != 0;
	/* the per-CPU flag: the cpu clock only, 100 us or more; other bits refused */
	static const struct { __u64 kind, period, flags; int ok; const char *what; } f[] = {
		{ MEMPHISMOD_KIND_CPU_CLOCK, 0, MEMPHISMOD_CONFIG_PER_CPU, 1, "per CPU, 1 ms" },
		{ MEMPHISMOD_KIND_CPU_CLOCK, MEMPHISMOD_PER_CPU_PERIOD_MIN, MEMPHISMOD_CONFIG_PER_CPU,
		  1, "per CPU, 100 us" },
		{ MEMPHISMOD_KIND_CPU_CLOCK, 10000, MEMPHISMOD_CONFIG_PER_CPU, 0, "per CPU, 10 us" },
		{ MEMPHISMOD_KIND_CPU_CLOCK, 10000, 0, 1, "per thread, 10 us" },
		{ MEMPHISMOD_KIND_CPU_CLOCK, 0, 1ULL << 1, 0, "flags bit 1" },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.kind = f[i].kind;
		c.period = f[i].period;
		c.flags = f[i].flags;
		r = ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, &c);
		printf("cpu clock, %s: %s\n", f[i].what, r == 0 ? "ok" : strerror(errno));
		bad += f[i].ok ? r != 0 : r == 0 || errno != EINVAL;
	}
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.kind = k[i].kind;
		c.flags = MEMPHISMOD_CONFIG_PER_CPU;
		r = ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, &c);
		printf("%s per CPU: %s\n", k[i].name, r == 0 ? "accepted" : strerror(errno));
		/* EOPNOTSUPP where the kind is not offered, EINVAL where it is */
		bad += r == 0 || errno != ((v.caps & k[i].cap) ? EINVAL : EOPNOTSUPP);
	}
	close(fd);
	return bad ? 1 : 0;
}

static int cmd_open(void)
{
	int fd = open(MEMPHISMOD_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd >= 0) {
		printf("open: ok\n");
		return 0;
	}
	printf("open: %s\n", strerror(errno));
	return errno == EACCES || errno == EPERM ? 3 : errno == ENOENT ? 4 : 1;
}

enum sample_mode { SAMPLE, HOLD, THROTTLE };

static int cmd_sample(double seconds, int nthreads, enum sample_mode mode)
{
	struct memphismod_version v;
	struct memphismod_config c = { .size = sizeof(c), .kind = MEMPHISMOD_KIND_CPU_CLOCK,
				       .period = mode == THROTTLE ? 100000 : 1000000,
				       .flags = config_flags };
	struct memphismod_start st = { .size = sizeof(st) };
	struct tally t = { 0 };
	pthread_t th[MAXT];
	unsigned char *buf;
	unsigned long long t0 = now_ns(), end, end_max, user0, sys0, user, sys;
	int fd, seen;

	if (nthreads < 1 || nthreads > MAXT - 1)
		nthreads = 2;
	fd = open_dev();
	if (fd < 0)
		return 1;
	if (get_version(fd, &v) < 0 || ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, &c) < 0) {
		printf("GET_VERSION/CONFIGURE%s: %s\n", config_flags ? " (per CPU)" : "",
		       strerror(errno));
		return 1;
	}
	if (config_flags && !(v.caps & MEMPHISMOD_CAP_PER_CPU)) {
		printf("caps %#llx: no MEMPHISMOD_CAP_PER_CPU\n", (unsigned long long)v.caps);
		return 1;
	}
	buf = malloc(256 * v.record_size);
	if (!buf)
		return 1;
	cpu_ms(&user0, &sys0);
	add_self();
	/* threads both before and after START: present and future threads are sampled */
	pthread_create(&th[0], NULL, spin, (void *)1);
	if (ioctl(fd, MEMPHISMOD_IOC_START, &st) < 0) {
		printf("START: %s\n", strerror(errno));
		return 1;
	}
	if (mode == HOLD) {
		printf("sampling\n");
		fflush(stdout);
	}
	for (int i = 1; i < nthreads; i++)
		pthread_create(&th[i], NULL, spin, (void *)(uintptr_t)(i + 1));
	end = t0 + (unsigned long long)(seconds * 1e9);
	end_max = t0 + (unsigned long long)(8 * seconds * 1e9);
	while (now_ns() < end ||
	       (mode != HOLD && (t.records < 10 || threads_seen(&t) < nthreads) && now_ns() < end_max)) {
		struct memphismod_read rd = { .size = sizeof(rd), .buf = (uintptr_t)buf,
					      .buf_size = 256 * v.record_size };
		usleep(20000);
		if (ioctl(fd, MEMPHISMOD_IOC_READ, &rd) < 0) {
			printf("READ: %s\n", strerror(errno));
			return 1;
		}
		t.lost += rd.lost;
		t.throttled_untold += rd.throttled;
		check_records(buf, rd.nr_records, v.record_size, v.nr_cpus, t0, &t);
	}
	stop_and_drain(fd, buf, &v, t0, &t);
	stop_spin = 1;
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	cpu_ms(&user, &sys);
	seen = threads_seen(&t);
	printf("pid %d%s: %llu records, %d of %d threads sampled, foreign %llu"
	       ", kernel %llu, bad %llu, lost %llu; by cpu %llu %llu %llu %llu; throttled: "
	       "%llu samples tell it, %llu told by READ; %.1f s, cpu time user %llu ms, sys %llu ms"
	       "\n", (int)getpid(), config_flags ? " (per CPU)" : "", t.records, seen, ntids,
	       t.foreign, t.kernel, t.bad, t.lost,
	       t.per_cpu[0], t.per_cpu[1], t.per_cpu[2], t.per_cpu[3], t.throttled,
	       t.throttled_untold, (double)(now_ns() - t0) / 1e9, user - user0, sys - sys0);
	free(buf);
	close(fd);
	if (t.records < 10 || t.foreign || t.kernel || t.bad || seen < nthreads)
		return 1;
	if (mode == THROTTLE) {
		int throttled_threads = 0;

		for (int k = 0; k < ntids; k++)
			throttled_threads += t.throttled_tid[k] > 0;
		if (!t.throttled && !t.throttled_untold)
			return 2; /* perf_event_max_sample_rate not lowered: nothing to tell */
		/* one sample a tick: nearly every sample set the throttle off */
		printf("threads with a throttled sample: %d of %d\n", throttled_threads, ntids);
		return throttled_threads >= nthreads && t.throttled * 2 >= t.records ? 0 : 1;
	}
	return 0;
}

static pid_t excluded_tid;

static void *spin_excluded(void *arg)
{
	unsigned x = 7;

	__atomic_store_n(&excluded_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!stop_spin) {
		x = x * 1103515245u + 12345u;
		sink[x & ((1 << 16) - 1)] += 1.0;
	}
	return NULL;
}

static pid_t start_excluded(pthread_t *th)
{
	pthread_create(th, NULL, spin_excluded, NULL);
	while (!__atomic_load_n(&excluded_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	return excluded_tid;
}

/* 100 us, not the module's 10 us floor: at 10 us (400 samples a 4 ms tick, perf's
 * throttling limit at the default 100,000 a second) one guest run got no record at all. */
static int cmd_lost(double seconds)
{
	struct memphismod_version v;
	struct memphismod_config c = { .size = sizeof(c), .kind = MEMPHISMOD_KIND_CPU_CLOCK,
				       .period = 100000, .buffer_size = 16384,
				       .flags = config_flags };
	struct memphismod_start st = { .size = sizeof(st) };
	struct tally t = { 0 };
	pthread_t th[3];
	unsigned char *buf;
	unsigned long long t0 = now_ns(), told = 0;
	int fd, threads_told = 0;

	fd = open_dev();
	if (fd < 0 || get_version(fd, &v) < 0 || ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, &c) < 0) {
		printf("open/GET_VERSION/CONFIGURE: %s\n", strerror(errno));
		return 1;
	}
	buf = malloc(256 * v.record_size);
	if (!buf)
		return 1;
	add_self();
	pthread_create(&th[0], NULL, spin, (void *)1);
	pthread_create(&th[1], NULL, spin, (void *)2);
	st.exclude_tid = (uint64_t)start_excluded(&th[2]);
	while (ntids < 3)
		usleep(1000);
	if (ioctl(fd, MEMPHISMOD_IOC_START, &st) < 0) {
		printf("START with exclude_tid: %s\n", strerror(errno));
		return 1;
	}
	usleep((useconds_t)(seconds * 1e6));
	stop_and_drain(fd, buf, &v, t0, &t);
	stop_spin = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	for (int k = 0; k < ntids; k++) {
		told += t.lost_tid[k];
		threads_told += t.lost_tid[k] > 0;
	}
	printf("pid %d%s: %llu records (%llu LOST records telling %llu drops, of %d threads), "
	       "%llu drops untold; excluded tid %d: foreign %llu, kernel %llu, bad %llu\n",
	       (int)getpid(), config_flags ? " (per CPU)" : "", t.records, t.lost_records, told, threads_told, t.lost,
	       (int)excluded_tid, t.foreign, t.kernel, t.bad);
	free(buf);
	close(fd);
	if (!t.lost_records && !t.lost && t.foreign == 0 && t.kernel == 0 && t.bad == 0) {
		/* nothing to tell: the buffer never filled (a guest starved by its host takes
		 * few samples a second) */
		printf("the buffer never filled in %g s\n", seconds);
		return 2;
	}
	return t.records > t.lost_records && told > 0 && t.foreign == 0 && t.kernel == 0 &&
	       t.bad == 0 ? 0 : 1;
}

#define FAULT_PAGES 256
static char *fault_area;

static volatile int fault_go;

static void *touch_pages(void *arg)
{
	char *p = arg;

	for (int i = 0; i < FAULT_PAGES; i++)
		p[(size_t)i * 4096] = 1;
	return NULL;
}

/* The excluded thread: says its tid, waits for FAULTS, touches the second half. */
static void *touch_excluded(void *arg)
{
	__atomic_store_n(&excluded_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!fault_go)
		usleep(1000);
	return touch_pages(fault_area + FAULT_PAGES * 4096);
}

static int cmd_faults(void)
{
	struct memphismod_version v;
	struct memphismod_faults f = { .size = sizeof(f) };
	unsigned long long records = 0, other = 0, bad = 0, excluded = 0;
	static unsigned char seen[FAULT_PAGES];
	pthread_t th, ex;
	pid_t tid;
	unsigned char *buf;
	int fd, pages = 0;

	fd = open_dev();
	if (fd < 0 || get_version(fd, &v) < 0 || !(v.caps & MEMPHISMOD_CAP_FAULTS)) {
		printf("open/GET_VERSION, or no MEMPHISMOD_CAP_FAULTS\n");
		return 1;
	}
	buf = malloc(256 * v.record_size);
	fault_area = mmap(NULL, 2 * FAULT_PAGES * 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!buf || fault_area == MAP_FAILED)
		return 1;
	pthread_create(&ex, NULL, touch_excluded, NULL);
	while (!(tid = __atomic_load_n(&excluded_tid, __ATOMIC_ACQUIRE)))
		usleep(1000);
	f.exclude_tid = (uint64_t)tid;
	if (ioctl(fd, MEMPHISMOD_IOC_FAULTS, &f) < 0) {
		printf("FAULTS: %s\n", strerror(errno));
		return 1;
	}
	/* the excluded thread touches the second half: no record may say so */
	fault_go = 1;
	pthread_join(ex, NULL);
	/* a thread created after FAULTS inherits the event */
	pthread_create(&th, NULL, touch_pages, fault_area);
	pthread_join(th, NULL);
	for (;;) {
		struct memphismod_read rd = { .size = sizeof(rd), .buf = (uintptr_t)buf,
					      .buf_size = 256 * v.record_size,
					      .flags = MEMPHISMOD_READ_FAULTS };
		if (ioctl(fd, MEMPHISMOD_IOC_READ, &rd) < 0 || rd.nr_records == 0)
			break;
		for (unsigned long long i = 0; i < rd.nr_records; i++) {
			struct memphismod_record r;
			unsigned long long off;

			memcpy(&r, buf + i * v.record_size, sizeof(r));
			records++;
			off = r.addr - (unsigned long long)(uintptr_t)fault_area;
			if (!(r.flags & MEMPHISMOD_REC_FAULT) || !(r.flags & MEMPHISMOD_REC_ADDR) ||
			    r.pid != (uint32_t)getpid() || r.ip == 0 || r.ip >= (1ull << 47) ||
			    r.addr >= (1ull << 47) || r.cpu >= v.nr_cpus)
				bad++;
			else if ((pid_t)r.tid == tid || off - FAULT_PAGES * 4096ull < FAULT_PAGES * 4096ull)
				excluded++;
			else if (off < FAULT_PAGES * 4096ull)
				seen[off / 4096] = 1;
			else
				other++;
		}
	}
	for (int i = 0; i < FAULT_PAGES; i++)
		pages += seen[i] > 0;
	printf("pid %d: %llu fault records: %d of %d pages of a thread born after FAULTS, %llu "
	       "elsewhere (the main thread), %llu of the excluded thread (or its pages), %llu bad\n",
	       (int)getpid(), records, pages, FAULT_PAGES, other, excluded, bad);
	free(buf);
	close(fd);
	return pages == FAULT_PAGES && excluded == 0 && bad == 0 ? 0 : 1;
}

/* The local timer interrupts of every CPU so far (/proc/interrupts LOC), into loc[]; the
 * number of CPUs, 0 when unreadable. */
static int local_timer(unsigned long long *loc, int max)
{
	char line[4096];
	FILE *f = fopen("/proc/interrupts", "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "LOC:", 4))
			continue;
		for (p += 4; n < max; n++, p = end) {
			loc[n] = strtoull(p, &end, 10);
			if (end == p)
				break;
		}
		break;
	}
	fclose(f);
	return n;
}

/* The CPUs but 0: their local timer interrupts a second while `seconds` pass with a session
 * configured by c (NULL: none) sampling this process, whose threads run on CPU 0. */
static double idle_rate(const struct memphismod_config *c, double seconds, struct tally *t)
{
	unsigned long long a[64], b[64], t0 = now_ns(), w0, w1, sum = 0; /* t0: records' earliest */
	struct memphismod_version v;
	struct memphismod_start st = { .size = sizeof(st) };
	unsigned char *buf = NULL;
	int fd = -1, n, m;

	if (c) {
		fd = open_dev();
		if (fd < 0 || get_version(fd, &v) < 0 || ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, c) < 0 ||
		    !(buf = malloc(256 * v.record_size)) || ioctl(fd, MEMPHISMOD_IOC_START, &st) < 0) {
			printf("session (CONFIGURE of %llu bytes, flags %#llx): %s\n",
			       (unsigned long long)c->size, (unsigned long long)c->flags, strerror(errno));
			return -1;
		}
	}
	n = local_timer(a, 64);
	w0 = now_ns();
	while (now_ns() - w0 < (unsigned long long)(seconds * 1e9)) {
		usleep(100000);
		if (fd >= 0) {
			struct memphismod_read rd = { .size = sizeof(rd), .buf = (uintptr_t)buf,
						      .buf_size = 256 * v.record_size };
			if (ioctl(fd, MEMPHISMOD_IOC_READ, &rd) == 0)
				check_records(buf, rd.nr_records, v.record_size, v.nr_cpus, t0, t);
		}
	}
	m = local_timer(b, 64);
	w1 = now_ns();
	if (fd >= 0) {
		stop_and_drain(fd, buf, &v, t0, t);
		close(fd);
	}
	free(buf);
	if (n < 2 || m != n)
		return -1;
	for (int k = 1; k < n; k++)
		sum += b[k] - a[k];
	return (double)sum / (n - 1) / ((double)(w1 - w0) / 1e9);
}

static int cmd_idle_timer(double seconds)
{
	struct memphismod_config old = { .size = MEMPHISMOD_CONFIG_SIZE_VER0,
					 .kind = MEMPHISMOD_KIND_CPU_CLOCK, .period = 1000000 };
	struct memphismod_config cpu = { .size = sizeof(cpu), .kind = MEMPHISMOD_KIND_CPU_CLOCK,
					 .period = 1000000, .flags = MEMPHISMOD_CONFIG_PER_CPU };
	struct tally t_old = { 0 }, t_cpu = { 0 };
	double none, r_old, r_cpu;
	cpu_set_t set;
	pthread_t th;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		printf("sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}
	add_self();
	pthread_create(&th, NULL, spin, (void *)1);
	none = idle_rate(NULL, seconds, NULL);
	r_old = idle_rate(&old, seconds, &t_old);
	r_cpu = idle_rate(&cpu, seconds, &t_cpu);
	stop_spin = 1;
	pthread_join(th, NULL);
	printf("local timer interrupts a second on the CPUs but 0, the sampled threads on CPU 0 "
	       "at 1 ms: %.0f unsampled, %.0f per thread (first-version CONFIGURE, %llu records), "
	       "%.0f per CPU (%llu records); foreign %llu, bad %llu\n", none, r_old,
	       t_old.records, r_cpu, t_cpu.records, t_old.foreign + t_cpu.foreign,
	       t_old.bad + t_cpu.bad + t_old.kernel + t_cpu.kernel);
	if (none < 0 || r_old < 0 || r_cpu < 0 || t_old.foreign + t_cpu.foreign ||
	    t_old.bad + t_cpu.bad + t_old.kernel + t_cpu.kernel || !t_old.records || !t_cpu.records)
		return 1;
	return r_cpu - none >= 100 && (r_old - none) * 4 < r_cpu - none ? 0 : 1;
}

static int cmd_fork_eperm(void)
{
	struct memphismod_start st = { .size = sizeof(st) };
	struct memphismod_read rd = { .size = sizeof(rd) };
	int fd = open_dev(), status;
	pid_t pid;

	if (fd < 0)
		return 1;
	if (ioctl(fd, MEMPHISMOD_IOC_START, &st) < 0) {
		printf("START: %s\n", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		int a = ioctl(fd, MEMPHISMOD_IOC_READ, &rd) < 0 && errno == EPERM;
		int b = ioctl(fd, MEMPHISMOD_IOC_START, &st) < 0 && errno == EPERM;
		int c = ioctl(fd, MEMPHISMOD_IOC_STOP, 0) < 0 && errno == EPERM;
		printf("child: READ %s, START %s, STOP %s\n", a ? "EPERM" : "allowed!",
		       b ? "EPERM" : "allowed!", c ? "EPERM" : "allowed!");
		_exit(a && b && c ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	if (ioctl(fd, MEMPHISMOD_IOC_READ, &rd) < 0) {
		printf("parent READ after the child: %s\n", strerror(errno));
		return 1;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

/* ---- fuzzer ---- */

static unsigned long long rng;
static unsigned long long rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmd_fuzz(long calls, unsigned long long seed)
{
	static const unsigned long cmds[] = { MEMPHISMOD_IOC_GET_VERSION, MEMPHISMOD_IOC_CONFIGURE,
					      MEMPHISMOD_IOC_START, MEMPHISMOD_IOC_STOP,
					      MEMPHISMOD_IOC_READ, MEMPHISMOD_IOC_FAULTS };
	static const unsigned long long sizes[] = { 0, 1, 7, 8, 15, 16, 39, 40, 48, 55, 56, 64, 79, 80, 88,
					  4095, 4096, 4097, 1ull << 32, ~0ull };
	struct memphismod_version v;
	struct tally t = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *area, *guard, *out;
	unsigned long long t0 = now_ns(), ok = 0, fails = 0, reopens = 0, forks = 0;
	long errs[256] = { 0 };
	int fd;

	rng = seed ? seed : 88172645463325252ull;
	fd = open_dev();
	if (fd < 0 || get_version(fd, &v) < 0)
		return 1;
	/* two pages, the second inaccessible: arguments that straddle into it */
	area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	out = malloc(64 * v.record_size);
	if (area == MAP_FAILED || !out || mprotect(area + page, page, PROT_NONE) < 0)
		return 1;
	guard = area + page;
	add_self();
	for (long i = 0; i < calls; i++) {
		unsigned long long arg_words[16];
		unsigned long cmd;
		unsigned long arg;
		unsigned char *argp;
		size_t argsz;
		unsigned long long r = rnd();
		int ret;

		/* sequences: now and then a new session, or a child poking the inherited one */
		if (r % 5000 == 0) {
			close(fd);
			fd = open_dev();
			if (fd < 0)
				return 1;
			reopens++;
		}
		if (r % 20000 == 1) {
			pid_t pid = fork();
			if (pid == 0) {
				struct memphismod_read rd = { .size = sizeof(rd), .buf = (uintptr_t)out,
							      .buf_size = 64 * v.record_size };
				for (int k = 0; k < 50; k++)
					if (ioctl(fd, cmds[k % 5], &rd) == 0 && k % 5 == 4 &&
					    rd.nr_records)
						_exit(2); /* the parent's samples in a child */
				_exit(0);
			}
			if (pid > 0) {
				int st;
				waitpid(pid, &st, 0);
				if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
					t.foreign++;
				forks++;
			}
		}
		/* a well-formed START or READ now and then, so that records flow and get checked */
		if (r % 16 == 2 || r % 16 == 3) {
			struct memphismod_start st = { .size = sizeof(st) };
			struct memphismod_read rd = { .size = sizeof(rd), .buf = (uintptr_t)out,
						      .buf_size = 64 * v.record_size };
			if (r % 16 == 2) {
				ret = ioctl(fd, MEMPHISMOD_IOC_START, &st);
			} else {
				ret = ioctl(fd, MEMPHISMOD_IOC_READ, &rd);
				if (ret == 0)
					check_records(out, rd.nr_records, v.record_size, v.nr_cpus, t0, &t);
			}
			if (ret == 0)
				ok++;
			else {
				fails++;
				errs[errno & 255]++;
			}
			continue;
		}
		/* command: mostly valid numbers, some with wrong direction/size bits, some random */
		switch (rnd() % 8) {
		case 0:
			cmd = (unsigned long)(uint32_t)rnd();
			break;
		case 1:
			cmd = _IOC(rnd() % 4, MEMPHISMOD_IOC_MAGIC, rnd() % 8, rnd() % 256);
			break;
		default:
			cmd = cmds[rnd() % 6];
			break;
		}
		/* argument: a struct of random size and fields, placed anywhere */
		for (int k = 0; k < 16; k++)
			arg_words[k] = rnd() % 3 ? rnd() % 4096 : rnd();
		arg_words[0] = rnd() % 2 ? sizes[rnd() % (sizeof(sizes) / sizeof(sizes[0]))]
					 : rnd() % 128;
		if (rnd() % 2) { /* plausible READ */
			arg_words[1] = rnd() % 4 ? (uintptr_t)out : rnd() % 2 ? (uintptr_t)guard - 100 :
				       0xffff888000000000ull + rnd() % 4096;
			arg_words[2] = rnd() % 4 ? rnd() % (64 * v.record_size + 1) : rnd();
			arg_words[3] = rnd() % 8 ? (rnd() % 2 ? MEMPHISMOD_READ_FAULTS : 0) : rnd();
		}
		if (rnd() % 2) { /* plausible CONFIGURE */
			arg_words[1] = rnd() % 4;
			arg_words[2] = rnd() % 3 ? 10000 + rnd() % 5000000 : rnd();
			arg_words[3] = rnd() % 3 ? (rnd() % 512) << 10 : rnd();
			/* flags: 0, MEMPHISMOD_CONFIG_PER_CPU, or anything */
			arg_words[4] = rnd() % 8 ? rnd() % 2 : rnd();
		}
		argsz = 8 * (1 + rnd() % 16);
		switch (rnd() % 8) {
		case 0:
			arg = 0;
			argp = NULL;
			break;
		case 1:
			arg = (unsigned long)rnd(); /* wild, kernel or unmapped */
			argp = NULL;
			break;
		case 2:
			arg = 0xffffffff81000000ul + rnd() % 65536;
			argp = NULL;
			break;
		case 3: /* ends in the guard page */
			argp = guard - (rnd() % argsz);
			memcpy(argp, arg_words, (size_t)(guard - argp));
			arg = (unsigned long)argp;
			break;
		default:
			argp = area + (rnd() % (page - 128 - 1)); /* unaligned too */
			memcpy(argp, arg_words, sizeof(arg_words));
			arg = (unsigned long)argp;
			break;
		}
		ret = ioctl(fd, cmd, arg);
		if (ret == 0) {
			/* whatever READ returned into our buffer must be ours and user space */
			struct memphismod_read rd;

			ok++;
			if (cmd == MEMPHISMOD_IOC_READ && argp && argp + sizeof(rd) <= guard) {
				memcpy(&rd, argp, sizeof(rd));
				if (rd.buf == (uintptr_t)out && rd.nr_records)
					check_records(out, rd.nr_records, v.record_size, v.nr_cpus, t0, &t);
			}
		} else {
			fails++;
			errs[errno & 255]++;
		}
	}
	printf("%ld calls: %llu ok, %llu refused (EINVAL %ld, EFAULT %ld, ENOTTY %ld, "
	       "E2BIG %ld, EOPNOTSUPP %ld, EBUSY %ld, ENOMEM %ld, other %llu), %llu"
	       " reopens, %llu forks; records checked %llu (page faults %llu): foreign %llu"
	       ", kernel %llu, bad %llu\n", calls, ok, fails, errs[EINVAL], errs[EFAULT],
	       errs[ENOTTY], errs[E2BIG], errs[EOPNOTSUPP], errs[EBUSY], errs[ENOMEM],
	       fails - errs[EINVAL] - errs[EFAULT] - errs[ENOTTY] - errs[E2BIG] - errs[EOPNOTSUPP] -
	       errs[EBUSY] - errs[ENOMEM], reopens, forks, t.records, t.faults, t.foreign, t.kernel,
	       t.bad);
	close(fd);
	return t.foreign == 0 && t.kernel == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "info"))
		return cmd_info();
	if (argc >= 2 && !strcmp(argv[1], "open"))
		return cmd_open();
	if (argc >= 3 && !strcmp(argv[1], "sample"))
		return cmd_sample(atof(argv[2]), argc >= 4 ? atoi(argv[3]) : 2, SAMPLE);
	if (argc >= 3 && !strcmp(argv[1], "sample-cpu")) {
		config_flags = MEMPHISMOD_CONFIG_PER_CPU;
		return cmd_sample(atof(argv[2]), argc >= 4 ? atoi(argv[3]) : 2, SAMPLE);
	}
	if (argc >= 3 && !strcmp(argv[1], "idle-timer"))
		return cmd_idle_timer(atof(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "hold"))
		return cmd_sample(atof(argv[2]), 2, HOLD);
	if (argc >= 3 && !strcmp(argv[1], "throttle"))
		return cmd_sample(atof(argv[2]), 2, THROTTLE);
	if (argc >= 3 && !strcmp(argv[1], "lost")) {
		if (argc >= 4 && !strcmp(argv[3], "cpu"))
			config_flags = MEMPHISMOD_CONFIG_PER_CPU;
		return cmd_lost(atof(argv[2]));
	}
	if (argc >= 2 && !strcmp(argv[1], "faults"))
		return cmd_faults();
	if (argc >= 2 && !strcmp(argv[1], "hwkinds"))
		return cmd_hwkinds();
	if (argc >= 2 && !strcmp(argv[1], "fork-eperm"))
		return cmd_fork_eperm();
	if (argc >= 4 && !strcmp(argv[1], "fuzz"))
		return cmd_fuzz(atol(argv[2]), strtoull(argv[3], NULL, 0));
	fprintf(stderr, "usage: tool_kmod info|open|sample S [T]|sample-cpu S [T]|idle-timer S|hold S|throttle S|lost S [cpu]|faults|hwkinds|fork-eperm|fuzz N SEED\n");
	return 2;
}
