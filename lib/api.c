/* lib/api.c - the public API (include/memphis.h), library start and shutdown, regions.
 *
 * Start (a constructor, so no init call is needed): settings, run directory with run
 * information, topology and maps, allocator tracking, backend choice, the drain thread,
 * then the threads that exist. First-touch tracking runs from here on; sampling runs only
 * while a region is open (region.c). Shutdown (a destructor) closes an open region and the
 * files. This file owns the library's lifecycle, the configuration (read once, handed
 * down as arguments) and the process id and start time.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "backend/backend.h"
#include "config.h"
#include "stack.h"
#include "counters.h"
#include "drain.h"
#include "fd.h"
#include "heap.h"
#include "heapmap.h"
#include "io.h"
#include "log.h"
#include "maps.h"
#include "memphis.h"
#include "numastat.h"
#include "place.h"
#include "rank.h"
#include "region.h"
#include "self.h"
#include "thread.h"
#include "tls.h"
#include "topology.h"
#include "writer.h"

#define EXPORT __attribute__((visibility("default")))

enum lifecycle {
	NOT_STARTED, /* the constructor has not run yet */
	RUNNING,     /* profiling: regions may open */
	OFF,         /* disabled, failed to start, or a fork child: the API says -ENOTSUP */
	FINISHED,    /* shut down: the run directory is closed */
};

static enum lifecycle state = NOT_STARTED;
static struct memphis__config cfg; /* read once by memphis_init, never written again */
static pid_t pid;
static struct memphis__rank rank; /* read once by memphis_init: a rank of a parallel job? */
static int sample_err; /* why sampling is impossible (-errno), 0 if it is possible */
static int start_err;  /* why the library could not start (-errno; a line was printed) */

/* Errors with a meaning of their own in memphis; others are described by strerror(). */
#define MEMPHIS_ERRORS(X)                                                                  \
	X(0, "success")                                                                    \
	X(EINVAL, "no region is open, or an invalid argument")                             \
	X(EACCES, "not permitted: sampling (perf_event_paranoid, seccomp or LSM) or writing " \
		  "the run directory; memphis said which on stderr")                      \
	X(EPERM, "not permitted: sampling (perf_event_paranoid, seccomp or LSM) or writing "  \
		 "the run directory; memphis said which on stderr")                       \
	X(ENOSYS, "the kernel has no perf_event_open")                                     \
	X(ENOTSUP, "memphis is off: MEMPHIS_DISABLE, MEMPHIS_BACKEND=none, or a fork child")  \
	X(ENOSPC, "the run directory's disk is full; sampling stopped")                    \
	X(ENOTEMPTY, "the run directory (MEMPHIS_OUTPUT) holds files that are not a memphis "  \
		     "run; nothing is sampled")                                            \
	X(EDQUOT, "the run directory reached its size cap (MEMPHIS_MAX_BYTES), the free space " \
		  "memphis leaves the program, or a disk quota; sampling stopped")          \
	X(EDEADLK, "called while this thread was inside memphis (from a signal handler?)")

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
	/* one line per key: a value's backslashes and newlines (a path may hold them) are
	 * written as \\ and \n (the RUN key escape=c says so) */
	for (char *p = buf + used; *p; p++) {
		if (*p != '\n' && *p != '\\')
			continue;
		if (strlen(buf) + 1 >= n) {
			*p = 0; /* no room to escape it: the value ends here */
			break;
		}
		memmove(p + 1, p, strlen(p) + 1);
		p[1] = *p == '\n' ? 'n' : '\\';
		*p++ = '\\';
	}
	used = strlen(buf);
	if (used + 1 < n) {
		buf[used] = '\n';
		buf[used + 1] = 0;
	}
}

/* Which loaded module holds the library's own code (found by an address of it). */
struct self_module {
	uintptr_t addr;
	int found, is_exe;
	char name[4096];      /* as the dynamic linker names it (the TLS records' path) */
};

static int find_self(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct self_module *s = ctx;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || s->addr < lo || s->addr - lo >= ph->p_memsz)
			continue;
		s->found = 1;
		s->is_exe = !info->dlpi_name || !info->dlpi_name[0];
		snprintf(s->name, sizeof(s->name), "%s", s->is_exe ? "" : info->dlpi_name);
		return 1;
	}
	return 0;
}

/* The path of the mapping holding addr as /proc/self/maps writes it into out ("" when not
 * found): the name the report sees the library under in the MAPS blocks. */
static void maps_path_of(uintptr_t addr, char *out, size_t n)
{
	FILE *f = memphis__fopen("/proc/self/maps");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct mph_mapping m;

	out[0] = '\0';
	if (!f)
		return;
	while ((len = getline(&line, &cap, f)) > 0) {
		const char *eol = line + len - (line[len - 1] == '\n');

		if (!mph_maps_parse_line(line, eol, &m) || addr < m.start || addr >= m.end)
			continue;
		if (m.path_len < n) {
			memcpy(out, m.path, m.path_len);
			out[m.path_len] = '\0';
		}
		break;
	}
	free(line);
	fclose(f);
}

/* RUN keys lib and lib_name: which object is the library itself, so that the report sets
 * aside the samples of its code and data instead of naming them as the program's. */
static void append_self(char *run, size_t len)
{
	static char path[4096];
	static struct self_module s;

	memset(&s, 0, sizeof(s));
	s.addr = (uintptr_t)&find_self;
	dl_iterate_phdr(find_self, &s);
	if (!s.found)
		return;
	if (s.is_exe) {
		append(run, len, "lib", "%s", ""); /* linked into the executable */
		return;
	}
	maps_path_of(s.addr, path, sizeof(path));
	if (!path[0])
		return;
	append(run, len, "lib", "%s", path);
	if (strcmp(path, s.name))
		append(run, len, "lib_name", "%s", s.name);
}

/* The kernel's boot id: the report names kernel addresses by /proc/kallsyms only in the
 * boot that ran the program (the kernel's base moves at every boot). */
static void append_boot_id(char *run, size_t len)
{
	FILE *f = memphis__fopen("/proc/sys/kernel/random/boot_id");
	char id[64];

	if (!f)
		return;
	if (fgets(id, sizeof(id), f)) {
		id[strcspn(id, "\n")] = 0;
		append(run, len, "boot_id", "%s", id);
	}
	fclose(f);
}

/* A rank's keys (docs/format.md); none for a process that is not a rank. */
static void append_rank(char *run, size_t len)
{
	if (!rank.launcher)
		return;
	append(run, len, "mpi_rank", "%ld", rank.rank);
	if (rank.size >= 0)
		append(run, len, "mpi_size", "%ld", rank.size);
	if (rank.local_rank >= 0)
		append(run, len, "mpi_local_rank", "%ld", rank.local_rank);
	if (rank.local_size >= 0)
		append(run, len, "mpi_local_size", "%ld", rank.local_size);
	append(run, len, "job_id", "%s", rank.job_id);
	append(run, len, "launcher", "%s", rank.launcher);
}

/* What the RUN block needs beyond the configuration. */
struct run_info {
	const char *exe;
	const struct memphis__backend *backend; /* NULL: none */
	struct memphis__sampling sm;             /* what it samples (probe); period_ns the
						  * configured one when none */
	int first_touch;                         /* as it runs */
	const char *why, *skips, *error_line;
};

static void write_run_info(const struct run_info *ri)
{
	static char run[16384];
	char build_id[129] = "", cmdline[4096] = "", host[256] = "";
	struct timespec rt;
	FILE *f;

	dl_iterate_phdr(find_build_id, build_id);
	f = memphis__fopen("/proc/self/cmdline");
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
	append(run, sizeof(run), "escape", "c");
	append(run, sizeof(run), "memphis_version", "%s", memphis_version());
	append(run, sizeof(run), "pid", "%d", (int)pid);
	append(run, sizeof(run), "exe", "%s", ri->exe);
	append(run, sizeof(run), "build_id", "%s", build_id);
	append_self(run, sizeof(run));
	append(run, sizeof(run), "cmdline", "%s", cmdline);
	append(run, sizeof(run), "hostname", "%s", host);
	append_rank(run, sizeof(run));
	append(run, sizeof(run), "start_realtime", "%llu",
	       (unsigned long long)rt.tv_sec * 1000000000ull + (unsigned long long)rt.tv_nsec);
	append(run, sizeof(run), "backend", "%s", ri->backend ? ri->backend->name : "none");
	append(run, sizeof(run), "backend_why", "%s", ri->why);
	for (const char *p = ri->skips; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		append(run, sizeof(run), "backend_skip", "%.*s", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
	/* a time period for time-based sources; the hardware's own unit for hardware ones */
	if (ri->sm.period_ns || !ri->backend)
		append(run, sizeof(run), "period_ns", "%llu", (unsigned long long)ri->sm.period_ns);
	if (ri->sm.hw_period) {
		append(run, sizeof(run), "hw_period", "%llu", (unsigned long long)ri->sm.hw_period);
		append(run, sizeof(run), "hw_period_unit", "%s", ri->sm.hw_unit ? ri->sm.hw_unit : "");
	}
	if (ri->sm.hw_events[0])
		append(run, sizeof(run), "hw_events", "%s", ri->sm.hw_events);
	if (ri->sm.hw_notes[0])
		append(run, sizeof(run), "hw_notes", "%s", ri->sm.hw_notes);
	if (ri->sm.precise_ip >= 0)
		append(run, sizeof(run), "precise_ip", "%d", ri->sm.precise_ip);
	if (ri->sm.ldlat)
		append(run, sizeof(run), "ldlat", "%u", ri->sm.ldlat);
	if (ri->sm.kmod_kind)
		append(run, sizeof(run), "kmod_kind", "%s", ri->sm.kmod_kind);
	if (ri->sm.scope) {
		append(run, sizeof(run), "scope", "%s", ri->sm.scope);
		append(run, sizeof(run), "kernel_samples", "%d", ri->sm.kernel_samples);
		if (ri->sm.kernel_why[0])
			append(run, sizeof(run), "kernel_why", "%s", ri->sm.kernel_why);
	}
	append_boot_id(run, sizeof(run));
	append(run, sizeof(run), "weight", "%s",
	       ri->backend && ri->sm.weight ? ri->sm.weight : "none");
	append(run, sizeof(run), "first_touch", "%d", ri->first_touch);
	append(run, sizeof(run), "unwritten_max_ns", "%llu", MEMPHIS__DRAIN_UNWRITTEN_NS);
	append(run, sizeof(run), "callsite_depth", "%d", cfg.callsite_depth);
	append(run, sizeof(run), "stack_bytes", "%u", memphis__stack_bytes());
	append(run, sizeof(run), "page_size", "%ld", sysconf(_SC_PAGESIZE));
	append(run, sizeof(run), "heap_sample_below", "%u", MEMPHIS__HEAP_SAMPLE_BELOW);
	append(run, sizeof(run), "heap_sample_every", "%u", cfg.heap_sample);
	append(run, sizeof(run), "heap_map", "%d", memphis__heapmap_on());
	if (ri->error_line[0])
		append(run, sizeof(run), "sampling_error", "%s", ri->error_line);
	memphis__writer_block(-1, MPH_BLK_RUN, run, strlen(run));
}

/* ---- start and shutdown ---- */

static void atfork_child(void)
{
	/* The child is a different process: it must not write into the parent's run. */
	state = OFF;
	start_err = 0;
	memphis__thread_deactivate();
}

static int mark(const char *name, unsigned long len);

/* The logger's own copy of the stderr the program was started with (log.h): a program
 * that closes 2 and opens its results there never gets the library's lines in them. A
 * descriptor of the library's share (fd.h); without one (2 closed, the share used up) the
 * library's lines go nowhere. */
static void log_to_own_stderr(void)
{
	struct memphis__fdid id = { 0, 0 };
	sigset_t old;
	int fd;

	memphis__fd_fork_hold(&old);
	fd = memphis__fd_take(fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0), 0, &id);
	memphis__fd_fork_release(&old);
	memphis__log_set_fd(fd < 0 ? -1 : fd, id.dev, id.ino);
}

/* MEMPHIS_SCOPE=auto means cpu only for a process that knows of no other profiled process
 * beside it: each opens events on every CPU, so N ranks of one host (or N children of
 * `memphis run --children`) would take every CPU's timer interrupt N times per period and
 * record every page fault N times. A rank whose host holds other ranks, or may (its local
 * size unknown in a job of several), and a launched program's child are sampled per
 * thread unless cpu is asked for. */
static int scope_for(int want, const struct memphis__rank *rk, int launched_child)
{
	if (want != MEMPHIS__SCOPE_AUTO)
		return want;
	if (launched_child)
		return MEMPHIS__SCOPE_THREAD;
	if (rk->launcher && (rk->local_size > 1 || (rk->local_size < 0 && rk->size != 1)))
		return MEMPHIS__SCOPE_THREAD;
	return MEMPHIS__SCOPE_AUTO;
}

static pid_t place_pid; /* the process that carries out MEMPHIS_PLACE, 0 none */

static int exe_bias(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	*(uint64_t *)ctx = info->dlpi_addr; /* the first object is the executable */
	return 1;
}

/* Carry out the plan in MEMPHIS_PLACE (place.h); 1 when there is one. */
static int place_start(void)
{
	const char *plan = getenv("MEMPHIS_PLACE");
	uint64_t bias = 0;

	if (!plan || !*plan)
		return 0;
	dl_iterate_phdr(exe_bias, &bias);
	memphis__enter();
	memphis__heap_set_depth(cfg.callsite_depth);
	if (memphis__place_init(plan, bias) >= 0)
		place_pid = getpid();
	memphis__leave();
	return 1;
}

/* The plan's lines on stderr and, in a run being written, as RUN keys (once). */
static void place_finish(void)
{
	static char text[16384];
	size_t n;

	if (!place_pid || getpid() != place_pid)
		return;
	memphis__enter();
	n = memphis__place_report(text, sizeof(text));
	if (n && state == RUNNING)
		memphis__writer_block(-1, MPH_BLK_RUN, text, n);
	memphis__leave();
}

__attribute__((constructor)) static void memphis_init(void)
{
	static char why[1024], skips[2048], error_line[1200];
	char exe[4096] = "";
	const char *base;
	uint64_t start_time;

	if (state != NOT_STARTED)
		return;
	state = OFF; /* until everything below worked */
	memphis__config_read(&cfg);
	/* off: nothing more is said, as nothing more is done */
	if (cfg.disabled) {
		memphis__log_set_fd(-1, 0, 0);
		return;
	}
	/* a process the launched program started, which inherited LD_PRELOAD: not asked for */
	if (cfg.launched_pid && cfg.launched_pid != getpid() && !cfg.children) {
		memphis__log_set_fd(-1, 0, 0);
		return;
	}
	/* `memphis apply`: placed (before the program's first touch), maybe not profiled */
	if (place_start() && !cfg.profile) {
		log_to_own_stderr();
		return;
	}
	if (memphis__fd_limit() < MEMPHIS__FD_LIMIT_MIN) {
		memphis__warn_once("the descriptor limit (ulimit -n %ld) is under %d: memphis takes "
				   "none of the program's descriptors, the program runs unprofiled",
				   memphis__fd_limit(), MEMPHIS__FD_LIMIT_MIN);
		memphis__log_set_fd(-1, 0, 0);
		return;
	}
	log_to_own_stderr();
	memphis__enter();
	memphis__pin(); /* until out: */
	pid = getpid();
	start_time = memphis__now();
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	base = strrchr(exe, '/');
	base = base ? base + 1 : exe;
	/* `memphis run --children -o DIR`: the launched program writes DIR, each other
	 * process DIR.PID */
	char output[sizeof(cfg.output) + 24];
	if (cfg.output[0] && cfg.launched_pid && cfg.launched_pid != pid)
		snprintf(output, sizeof(output), "%s.%d", cfg.output, (int)pid);
	else
		snprintf(output, sizeof(output), "%s", cfg.output);
	memphis__rank_read(&rank);
	/* before the first file: the run's files then live in the I/O thread's table only */
	int io_err = memphis__io_start(memphis__tls_thread_stack());
	memphis__writer_set_format(cfg.format);
	if ((start_err = memphis__writer_open(output, base[0] ? base : "prog", &rank, pid,
					      start_time, cfg.max_bytes)) < 0)
		goto out;

	const struct memphis__backend_params bp = {
		.period_ns = cfg.period_ns, .pid = pid, .event = cfg.event, .ldlat = cfg.ldlat,
		.hw_period = cfg.hw_period, .ibs_cnt_ctl = cfg.ibs_cnt_ctl,
		.ibs_l3missonly = cfg.ibs_l3missonly, .sysfs = "/sys", .kmod_kind = cfg.kmod_kind,
		.scope = scope_for(cfg.scope, &rank, cfg.launched_pid && cfg.launched_pid != pid),
		.kernel = cfg.kernel,
	};
	memphis__stack_init(cfg.stack_bytes); /* before the probe opens an event with it */
	static struct run_info ri; /* its sampling description is 1 KiB: off the stack */
	ri = (struct run_info){ .exe = exe, .why = why, .skips = skips, .error_line = error_line };
	ri.backend = memphis__backend_select(cfg.backend, &bp, &ri.sm, why, sizeof(why),
					     skips, sizeof(skips));
	if (!ri.backend)
		ri.sm = (struct memphis__sampling){ .period_ns = cfg.period_ns, .precise_ip = -1 };
	if (!ri.backend) {
		sample_err = -EACCES;
		if (strcmp(cfg.backend, "none")) {
			snprintf(error_line, sizeof(error_line),
				 "cannot sample memory accesses: %s. The program runs unprofiled.", why);
			memphis__warn_once("%s", error_line);
		} else {
			sample_err = -ENOTSUP;
		}
	}
	/* Without perf the first-touch stream cannot run either. */
	ri.first_touch = ri.backend ? cfg.first_touch : 0;
	if (cfg.heap_map && cfg.heap_sample > 1)
		memphis__heapmap_init(); /* -ENOMEM: off, the RUN block says so */
	write_run_info(&ri);
	memphis__topology_write();
	memphis__maps_write();
	memphis__heap_init(cfg.callsite_depth, cfg.heap_min, cfg.heap_sample);
	const struct memphis__drain_params dp = { .backend = ri.backend,
						  .first_touch = ri.first_touch,
						  .pid = pid,
						  /* not where the backend has its own (kmod) */
						  .touch_per_cpu = ri.sm.scope && !strcmp(ri.sm.scope, "cpu") &&
								   !ri.backend->touch_start,
						  .start_time = start_time };
	if ((start_err = memphis__drain_start(&dp)) < 0) {
		memphis__warn_once("cannot start: %s; the program runs unprofiled",
				   strerror(-start_err));
		goto out;
	}
	/* counted per region: PAPI only when events are asked for */
	memphis__numastat_enable(cfg.numa_counters);
	if (memphis__counters_init(cfg.papi_events) > 0)
		memphis__thread_set_observer(memphis__counters_thread_added);
	if (io_err < 0)
		memphis__note(MPH_LOG_INFO, "no I/O thread of its own (%s): the library's files "
			      "are opened in the program's descriptor table", strerror(-io_err));
	pthread_atfork(NULL, NULL, atfork_child);
	state = RUNNING;
	memphis__thread_activate(pid);
	memphis__thread_attach_self();
	memphis__thread_scan();
out:
	if (state != RUNNING)
		memphis__io_stop();
	memphis__unpin();
	memphis__leave();
	if (state == RUNNING && cfg.auto_region[0])
		mark(cfg.auto_region, strlen(cfg.auto_region));
}

__attribute__((destructor)) static void memphis_fini(void)
{
	place_finish();
	if (state != RUNNING || getpid() != pid)
		return;
	memphis__region_end();
	memphis__drain_stop();
	state = FINISHED;
	memphis__thread_deactivate();
	memphis__drain_finish();
	memphis__io_stop();
}

void memphis__finish_now(const char *how)
{
	int saved = errno;

	place_finish();
	if (state != RUNNING || getpid() != pid)
		goto out;
	/* Bounded: exec or _exit may come from a signal handler that interrupted the
	 * library; then nothing is flushed and the report says what may be missing. */
	if (memphis__region_end_within(200) < 0)
		goto out;
	memphis__note(MPH_LOG_INFO, "%s: the run ends here, everything written", how);
	/* an image on its way to another (a shell, a wrapper) that took no sample leaves no
	 * run directory: the exec'd image may take its name */
	if (!strcmp(how, "exec"))
		memphis__writer_keep_if(1);
	memphis__drain_stop();
	state = FINISHED;
	memphis__thread_deactivate();
	memphis__drain_finish();
out:
	errno = saved;
}

/* Entering the public API on the calling thread. A thread already inside the library (a
 * signal handler that interrupted memphis_mark or memphis_print, the allocator's
 * recording or the thread's registration) would wait forever on a lock it holds itself:
 * -EDEADLK instead. Otherwise cancellation is off (the API holds locks across cancellation
 * points) and the thread counts as inside the library until api_leave(*cancel). */
static int api_enter(int *cancel)
{
	if (memphis__inside())
		return -EDEADLK;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, cancel);
	memphis__enter();
	return 0;
}

static void api_leave(int cancel)
{
	memphis__leave();
	pthread_setcancelstate(cancel, &cancel);
}

/* memphis_mark_named_len inside the API (see api_enter). */
static int mark(const char *name, unsigned long len)
{
	char buf[MEMPHIS_NAME_MAX];

	if (state == NOT_STARTED)
		memphis_init();
	if (state != RUNNING)
		return state == OFF && start_err ? start_err : -ENOTSUP;
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

	memphis__region_open(buf);
	if (memphis__writer_error())
		return memphis__writer_error();
	return memphis__drain_sampling() ? 0 : sample_err;
}

EXPORT int memphis_mark_named_len(const char *name, unsigned long len)
{
	int cancel, err = api_enter(&cancel);

	if (err < 0)
		return err;
	err = mark(name, len);
	api_leave(cancel);
	return err;
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
	int cancel, err = api_enter(&cancel);

	if (err < 0)
		return err;
	if (state == RUNNING)
		err = memphis__region_close();
	else
		err = state == OFF && start_err ? start_err : -ENOTSUP;
	api_leave(cancel);
	return err;
}
