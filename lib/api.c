/* lib/api.c - the public API (include/memphis.h), library start and shutdown, regions.
 *
 * Start (a constructor, so no init call is needed): settings, run directory with run
 * information, topology and maps, allocator tracking, backend choice, the drain thread,
 * then the threads that exist. First-touch tracking runs from here on; sampling runs only
 * while a region is open. Shutdown (a destructor) closes an open region and the files.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "memphis.h"

#define EXPORT __attribute__((visibility("default")))

struct memphis__global memphis__g = {
	.api_lock = PTHREAD_MUTEX_INITIALIZER,
	.drain_lock = PTHREAD_MUTEX_INITIALIZER,
};
static int sample_err; /* why sampling is impossible (-errno), 0 if it is possible */

/* Errors with a meaning of their own in memphis; others are described by strerror(). */
#define MEMPHIS_ERRORS(X)                                                                  \
	X(0, "success")                                                                    \
	X(EINVAL, "no region is open, or an invalid argument")                             \
	X(EACCES, "sampling is not permitted here (perf_event_paranoid, seccomp or LSM)")  \
	X(EPERM, "sampling is not permitted here (perf_event_paranoid, seccomp or LSM)")   \
	X(ENOSYS, "the kernel has no perf_event_open")                                     \
	X(ENOTSUP, "memphis is disabled or could not start (see its message on stderr)")   \
	X(ENOSPC, "the run directory's disk is full; sampling stopped")

EXPORT const char *memphis_strerror(int err)
{
	if (err > 0)
		err = -err;
#define X(code, text) if (err == -(code)) return text;
	MEMPHIS_ERRORS(X)
#undef X
	return strerror(-err);
}

EXPORT const char *memphis_version(void)
{
#define STR2(x) #x
#define STR(x) STR2(x)
	return STR(MEMPHIS_VERSION_MAJOR) "." STR(MEMPHIS_VERSION_MINOR) "." STR(MEMPHIS_VERSION_PATCH);
}

void memphis__note(int level, const char *fmt, ...)
{
	char buf[512];
	uint64_t now = memphis__now();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memphis__log(level, "%s", buf);
	memphis__writer_block2(-1, MPH_BLK_NOTE, &now, sizeof(now), buf, strlen(buf));
}

/* ---- run information ---- */

static int find_build_id(struct dl_phdr_info *info, size_t size, void *ctx)
{
	char *out = ctx;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		const unsigned char *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const unsigned char *name = p + sizeof(*n);
			const unsigned char *desc = name + ((n->n_namesz + 3) & ~3u);
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && desc + n->n_descsz <= end && n->n_descsz <= 64) {
				for (unsigned k = 0; k < n->n_descsz; k++)
					sprintf(out + 2 * k, "%02x", desc[k]);
				return 1;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 1; /* the first object is the executable: stop after it */
}

static void append(char *buf, size_t n, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t n, const char *key, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + strlen(key) + 2 >= n)
		return;
	used += (size_t)snprintf(buf + used, n - used, "%s=", key);
	va_start(ap, fmt);
	vsnprintf(buf + used, n - used, fmt, ap);
	va_end(ap);
	/* one line per key: values never contain a newline */
	for (char *p = buf + used; *p; p++)
		if (*p == '\n')
			*p = ' ';
	used = strlen(buf);
	if (used + 1 < n) {
		buf[used] = '\n';
		buf[used + 1] = 0;
	}
}

static void write_run_info(const char *exe, const char *why, const char *skips,
			   const char *error_line)
{
	static char run[16384];
	char build_id[129] = "", cmdline[4096] = "", host[256] = "";
	struct timespec rt;
	FILE *f;

	dl_iterate_phdr(find_build_id, build_id);
	f = fopen("/proc/self/cmdline", "re");
	if (f) {
		size_t n = fread(cmdline, 1, sizeof(cmdline) - 1, f);
		fclose(f);
		for (size_t i = 0; i + 1 < n; i++)
			if (!cmdline[i])
				cmdline[i] = ' ';
		cmdline[n] = 0;
	}
	gethostname(host, sizeof(host) - 1);
	clock_gettime(CLOCK_REALTIME, &rt);
	run[0] = 0;
	append(run, sizeof(run), "memphis_version", "%s", memphis_version());
	append(run, sizeof(run), "pid", "%d", (int)memphis__g.pid);
	append(run, sizeof(run), "exe", "%s", exe);
	append(run, sizeof(run), "build_id", "%s", build_id);
	append(run, sizeof(run), "cmdline", "%s", cmdline);
	append(run, sizeof(run), "hostname", "%s", host);
	append(run, sizeof(run), "start_realtime", "%llu",
	       (unsigned long long)rt.tv_sec * 1000000000ull + (unsigned long long)rt.tv_nsec);
	append(run, sizeof(run), "backend", "%s",
	       memphis__g.backend ? memphis__g.backend->name : "none");
	append(run, sizeof(run), "backend_why", "%s", why);
	for (const char *p = skips; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		append(run, sizeof(run), "backend_skip", "%.*s", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
	append(run, sizeof(run), "period_ns", "%llu", (unsigned long long)memphis__g.cfg.period_ns);
	append(run, sizeof(run), "weight", "%s",
	       memphis__g.backend ? memphis__g.backend->weight : "none");
	append(run, sizeof(run), "first_touch", "%d", memphis__g.cfg.first_touch);
	append(run, sizeof(run), "callsite_depth", "%d", memphis__g.cfg.callsite_depth);
	append(run, sizeof(run), "page_size", "%ld", sysconf(_SC_PAGESIZE));
	if (error_line[0])
		append(run, sizeof(run), "sampling_error", "%s", error_line);
	memphis__writer_block(-1, MPH_BLK_RUN, run, strlen(run));
}

/* ---- start and shutdown ---- */

static void atfork_child(void)
{
	/* The child is a different process: it must not write into the parent's run. */
	memphis__g.state = 2;
}

__attribute__((constructor)) static void memphis_init(void)
{
	static char why[1024], skips[2048], error_line[1200];
	char exe[4096] = "";
	const char *base;

	if (memphis__g.state != 0)
		return;
	memphis__g.state = 2; /* until everything below worked */
	memphis__config_read(&memphis__g.cfg);
	if (memphis__g.cfg.disabled)
		return;
	memphis__internal++;
	memphis__g.pid = getpid();
	memphis__g.start_time = memphis__now();
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	if (memphis__writer_open(memphis__g.cfg.output, base[0] ? base : "prog", memphis__g.pid,
				 memphis__g.start_time) < 0)
		goto out;

	memphis__g.backend = memphis__backend_select(memphis__g.cfg.backend, why, sizeof(why),
						     skips, sizeof(skips));
	if (!memphis__g.backend) {
		sample_err = -EACCES;
		if (strcmp(memphis__g.cfg.backend, "none")) {
			snprintf(error_line, sizeof(error_line),
				 "cannot sample memory accesses: %s. The program runs unprofiled.", why);
			memphis__warn_once("%s", error_line);
		} else {
			sample_err = -ENOTSUP;
		}
	}
	memphis__g.sampling_ok = memphis__g.backend != NULL;
	/* Without perf the first-touch stream cannot run either. */
	if (!memphis__g.sampling_ok)
		memphis__g.cfg.first_touch = 0;
	write_run_info(exe, why, skips, error_line);
	memphis__topology_write();
	memphis__maps_write();
	memphis__heap_init();
	if (memphis__drain_start() < 0)
		goto out;
	pthread_atfork(NULL, NULL, atfork_child);
	memphis__g.state = 1;
	memphis__thread_attach_self();
	memphis__thread_scan();
out:
	memphis__internal--;
	if (memphis__g.state == 1 && memphis__g.cfg.auto_region[0])
		memphis_mark_named(memphis__g.cfg.auto_region);
}

static void close_region(void);

__attribute__((destructor)) static void memphis_fini(void)
{
	if (memphis__g.state != 1 || getpid() != memphis__g.pid)
		return;
	pthread_mutex_lock(&memphis__g.api_lock);
	if (memphis__g.region.open)
		close_region();
	pthread_mutex_unlock(&memphis__g.api_lock);
	memphis__drain_stop();
	memphis__internal++;
	pthread_mutex_lock(&memphis__g.drain_lock);
	memphis__drain_all();
	memphis__flush_samples();
	memphis__touch_flush();
	memphis__heap_stop();
	memphis__g.state = 3;
	memphis__writer_close();
	pthread_mutex_unlock(&memphis__g.drain_lock);
	memphis__internal--;
}

/* ---- regions ---- */

static void enable_one(struct memphis__thread *t, void *ctx)
{
	if (t->sample.fd >= 0 && !t->gone)
		memphis__g.backend->enable(t, *(int *)ctx);
}

/* Open (on = 1) or close the region for sampling: the flag under the registry lock, so a
 * thread attaching meanwhile sees it, then every thread's stream, then the process-wide
 * hook of backends that have one. Caller holds drain_lock. */
static void region_sampling(int on)
{
	memphis__thread_lock();
	memphis__g.region.open = on;
	memphis__thread_unlock();
	if (!memphis__g.sampling_ok)
		return;
	memphis__thread_foreach(enable_one, &on);
	if (memphis__g.backend->start)
		memphis__g.backend->start(on);
}

static void loss_one(struct memphis__thread *t, void *ctx)
{
	struct memphis_rec_loss r = {
		.region = memphis__g.region.seq,
		.tid = (uint32_t)t->tid,
		.samples = t->r_samples,
		.lost = t->r_lost,
		.throttled = t->r_throttled,
	};

	memphis__g.region.lost += t->r_lost;
	memphis__g.region.throttled += t->r_throttled;
	if (t->r_samples || t->r_lost || t->r_throttled)
		memphis__writer_block(-1, MPH_BLK_LOSS, &r, sizeof(r));
	t->r_samples = t->r_lost = t->r_throttled = 0;
}

/* Stop sampling, drain everything, write the region's pages, losses and record.
 * Caller holds api_lock and a region is open. */
static void close_region(void)
{
	struct memphis_rec_region r;
	uint64_t *pages;
	size_t npages = 0;

	memphis__internal++;
	pthread_mutex_lock(&memphis__g.drain_lock);
	region_sampling(0);
	memphis__drain_all();
	memphis__flush_samples();
	pages = memphis__region_pages_take(&npages);
	if (pages)
		memphis__pages_write(memphis__g.region.seq, pages, npages);
	free(pages);
	memphis__touch_flush();
	memphis__heap_flush();
	memphis__thread_foreach(loss_one, NULL);
	memset(&r, 0, sizeof(r));
	r.seq = memphis__g.region.seq;
	r.t_start = memphis__g.region.t_start;
	r.t_end = memphis__now();
	r.samples = memphis__g.region.samples;
	r.lost = memphis__g.region.lost;
	r.throttled = memphis__g.region.throttled;
	r.dropped = memphis__g.region.dropped;
	memcpy(r.name, memphis__g.region.name, sizeof(r.name));
	memphis__writer_block(-1, MPH_BLK_REGION, &r, sizeof(r));
	memphis__maps_write();
	memphis__thread_reap();
	pthread_mutex_unlock(&memphis__g.drain_lock);
	memphis__internal--;
}

EXPORT int memphis_mark_named_len(const char *name, unsigned long len)
{
	char buf[MEMPHIS_NAME_MAX];

	if (memphis__g.state == 0)
		memphis_init();
	if (memphis__g.state != 1)
		return -ENOTSUP;
	if (!name)
		len = 0;
	while (len > 0 && (name[len - 1] == ' ' || name[len - 1] == '\0'))
		len--;
	if (len == 0) {
		name = "default";
		len = 7;
	}
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, name, len);
	buf[len] = 0;
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';

	pthread_mutex_lock(&memphis__g.api_lock);
	if (memphis__g.region.open)
		close_region();
	pthread_mutex_lock(&memphis__g.drain_lock);
	memset(&memphis__g.region, 0, sizeof(memphis__g.region));
	memcpy(memphis__g.region.name, buf, len + 1);
	memphis__g.region.seq = ++memphis__g.region_seq;
	memphis__g.region.t_start = memphis__now();
	region_sampling(1);
	pthread_mutex_unlock(&memphis__g.drain_lock);
	pthread_mutex_unlock(&memphis__g.api_lock);
	return memphis__g.sampling_ok ? 0 : (sample_err ? sample_err : memphis__writer_error());
}

EXPORT int memphis_mark_named(const char *name)
{
	return memphis_mark_named_len(name, name ? strlen(name) : 0);
}

EXPORT int memphis_mark(void)
{
	return memphis_mark_named(NULL);
}

EXPORT int memphis_print(void)
{
	int err = 0;

	if (memphis__g.state != 1)
		return -ENOTSUP;
	pthread_mutex_lock(&memphis__g.api_lock);
	if (!memphis__g.region.open) {
		memphis__note(MPH_LOG_WARN, "memphis_print() without an open region: ignored");
		err = -EINVAL;
	} else {
		close_region();
		err = memphis__writer_error();
	}
	pthread_mutex_unlock(&memphis__g.api_lock);
	return err;
}
