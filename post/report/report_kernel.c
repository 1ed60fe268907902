/* post/report/report_kernel.c - the kernel's time on behalf of the program in `memphis-report
 * report` (issue 41 item 1): the samples taken in the kernel (kerneltime.h), apart from the
 * tables, which hold the program's own accesses. The header says their share, what entered
 * the kernel and its functions, and per region name its share; a section names the
 * variables whose pages faulted (or the lines whose system calls) the kernel worked for,
 * with its functions; the JSON member samples.kernel_time holds the same. A run sampled
 * without kernel mode says so in one line. Kernel addresses are named by /proc/kallsyms when
 * the report runs in the boot that made the run (its RUN boot_id): report_kernel_load, through
 * a copy kept for the boot (kcache_path). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/json.h"
#include "report_impl.h"

#define SHOWN 10

/* The kallsyms cache's path into buf (len bytes): in the directory MEMPHIS_REPORT_CACHE
 * names ("0": no cache), else $XDG_CACHE_HOME/memphis, else $HOME/.cache/memphis, made
 * (0700) where missing. The directory must be this user's and writable by no one else (a
 * report run by root with a user's HOME keeps no copy there). 0, or -1: no cache. */
static int kcache_path(char *buf, size_t len)
{
	const char *env = getenv("MEMPHIS_REPORT_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct stat st;
	int n;

	if (env && !strcmp(env, "0"))
		return -1;
	if (env && *env) {
		n = snprintf(buf, len, "%s", env);
	} else if (xdg && *xdg == '/') {
		mkdir(xdg, 0700);
		n = snprintf(buf, len, "%s/memphis", xdg);
	} else if (home && *home == '/' && stat(home, &st) == 0 && st.st_uid == geteuid()) {
		n = snprintf(buf, len, "%s/.cache", home);
		if (n > 0 && (size_t)n < len)
			mkdir(buf, 0700);
		n = snprintf(buf, len, "%s/.cache/memphis", home);
	} else {
		return -1;
	}
	if (n <= 0 || (size_t)n >= len || (mkdir(buf, 0700) && errno != EEXIST) ||
	    stat(buf, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return -1;
	n += snprintf(buf + n, len - (size_t)n, "/kallsyms");
	return (size_t)n < len ? 0 : -1;
}

/* The kernel's functions of r loaded (a thread's start routine), through the cache of
 * this boot's symbols (mr_kallsyms_load_cached). */
static void *load_ksyms(void *arg)
{
	struct report *r = arg;
	char cache[PATH_MAX];
	int cached = kcache_path(cache, sizeof(cache)) == 0;
	uint64_t key = cached ? mr_kallsyms_key(mr_run_get(r->run, "boot_id"), "/proc/modules") : 0;

	if (mr_kallsyms_load_cached(&r->ksyms, "/proc/kallsyms", cached ? cache : NULL, key))
		r->ksyms_why = "/proc/kallsyms gives no addresses here (run the report as root, "
			       "or lower kernel.kptr_restrict)";
	return NULL;
}

void report_kernel_load(struct report *r)
{
	const char *run_boot = mr_run_get(r->run, "boot_id");
	char boot[64] = "";
	FILE *f;

	r->ksyms_why = NULL;
	if (mr_run_get_u64(r->run, "kernel_samples", 0) != 1)
		return;
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (fgets(boot, sizeof(boot), f))
			boot[strcspn(boot, "\n")] = 0;
		fclose(f);
	}
	if (!run_boot || strcmp(run_boot, boot))
		r->ksyms_why = "the run was made in another boot or on another machine, whose "
			       "kernel addresses this one's /proc/kallsyms does not give";
	/* the kernel makes the file's text as it is read, most of a small run's report
	 * (40 ms here): beside the opening of the objects' symbols and DWARF */
	else if (pthread_create(&r->ksyms_th, NULL, load_ksyms, r) == 0)
		r->ksyms_loading = 1;
	else
		load_ksyms(r);
}

void report_kernel_wait(struct report *r)
{
	if (r->ksyms_loading)
		pthread_join(r->ksyms_th, NULL);
	r->ksyms_loading = 0;
}

uint32_t report_kernel_func(const struct report *r, struct mr_kallsyms_cache *c,
			    uint64_t kernel_ip)
{
	long i = mr_kallsyms_find_cached(&r->ksyms, c, kernel_ip);

	return i < 0 ? MR_KTIME_NOFUNC : (uint32_t)i;
}

static const char *func_name(const struct report *r, uint32_t f)
{
	return f == MR_KTIME_NOFUNC ? "[kernel]" : mr_kallsyms_name(&r->ksyms, f);
}

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

/* The name of entry e: its variable, or "system call at LINE". */
static void entry_name(const struct report *r, const struct mr_ktime_entry *e, char *buf,
		       size_t len)
{
	if (e->syscall)
		snprintf(buf, len, "system call at %s",
			 e->id ? mr_attrib_line(r->a, e->id) : "unknown code");
	else
		snprintf(buf, len, "%s", mr_attrib_var(r->a, e->id)->name);
}

/* Regions by name: "NAME 41.0 %" of each name's samples, in the run's order. */
static void by_region_text(const struct report *r, FILE *f)
{
	const struct mr_run *run = r->run;
	const char *sep = "kernel by region:";

	for (size_t i = 0; i < run->nregions; i++) {
		const char *name = run->regions[i].name;
		uint64_t k = 0, n = 0;
		size_t j, times = 0;

		for (j = 0; j < i && strcmp(run->regions[j].name, name); j++)
			;
		if (j < i || !report_region_selected(r, run->regions[i].seq))
			continue; /* said with its name's first */
		for (j = i; j < run->nregions; j++) {
			const uint64_t *v;

			if (strcmp(run->regions[j].name, name) ||
			    !report_region_selected(r, run->regions[j].seq))
				continue;
			v = mph_u64map_get(&r->kt.regions, run->regions[j].seq);
			k += v ? *v : 0;
			n += run->regions[j].samples;
			times++;
		}
		fprintf(f, "%s %s %.1f %%", sep, mr_esc(name), pct(k, n));
		if (times > 1)
			fprintf(f, " (x%zu)", times);
		sep = ",";
	}
	if (strcmp(sep, "kernel by region:"))
		fprintf(f, "\n");
}

void report_kernel_text(const struct report *r, FILE *f)
{
	uint32_t fn[3];
	uint64_t fnn[3];
	size_t nf;
	char a[32], b[32];

	if (mr_run_get(r->run, "kernel_samples") && mr_run_get_u64(r->run, "kernel_samples", 0) == 0) {
		const char *why = mr_run_get(r->run, "kernel_why");

		fprintf(f, "kernel: not seen (%s): the time of page faults and system calls is "
			"missing from the samples\n", why && *why ? mr_esc(why) : "not sampled");
		return;
	}
	if (!r->kt.total)
		return;
	fprintf(f, "kernel: %s of %s samples (%.1f %%) in the kernel on the program's behalf, in "
		"no table: page faults and interrupts %.1f %%, system calls %.1f %%",
		mr_fmt_count(a, r->kt.total), mr_fmt_count(b, r->st.total), pct(r->kt.total, r->st.total),
		pct(r->kt.total - r->kt.syscalls, r->st.total), pct(r->kt.syscalls, r->st.total));
	nf = mr_ktime_functions(&r->kt, fn, fnn, 3);
	for (size_t i = 0; i < nf; i++)
		fprintf(f, "%s%s %.1f %%", i ? ", " : "; most in ", mr_esc(func_name(r, fn[i])),
			pct(fnn[i], r->st.total));
	fprintf(f, "\n");
	if (r->ksyms_why)
		fprintf(f, "  kernel functions unnamed: %s\n", r->ksyms_why);
	by_region_text(r, f);
}

void report_kernel_section(const struct report *r, FILE *f)
{
	struct mr_ktime_entry *e;
	size_t n = r->kt.total ? mr_ktime_entries(&r->kt, &e) : 0;
	char name[512], a[32];

	if (!n)
		return;
	fprintf(f, "\nKernel time by variable (the kernel's samples while an access to the variable "
		"faulted, or at a system call's line; the kernel functions with the most):\n");
	for (size_t i = 0; i < n && i < SHOWN; i++) {
		entry_name(r, &e[i], name, sizeof(name));
		fprintf(f, "  %s: %s samples, %.1f %% of the kernel's", mr_esc(name),
			mr_fmt_count(a, e[i].n), pct(e[i].n, r->kt.total));
		for (size_t k = 0; k < 3 && e[i].func_n[k]; k++)
			fprintf(f, "%s%s %.1f %%", k ? ", " : ": ", mr_esc(func_name(r, e[i].func[k])),
				pct(e[i].func_n[k], e[i].n));
		fprintf(f, "\n");
	}
	if (n > SHOWN)
		fprintf(f, "  ... %zu more\n", n - SHOWN);
	free(e);
}

void report_kernel_json(const struct report *r, struct mr_json *j)
{
	struct mr_ktime_entry *e = NULL;
	size_t n;

	if (!mr_run_get(r->run, "kernel_samples"))
		return;
	mr_json_key(j, "kernel_time");
	mr_json_obj(j);
	mr_json_key(j, "seen");
	mr_json_bool(j, mr_run_get_u64(r->run, "kernel_samples", 0) == 1);
	mr_json_key(j, "why");
	mr_json_str(j, mr_run_get_u64(r->run, "kernel_samples", 0) == 1 ? r->ksyms_why
									: mr_run_get(r->run, "kernel_why"));
	mr_json_key(j, "samples");
	mr_json_u64(j, r->kt.total);
	mr_json_key(j, "share");
	mr_json_dbl(j, r->st.total ? (double)r->kt.total / (double)r->st.total : 0.0);
	mr_json_key(j, "syscalls");
	mr_json_u64(j, r->kt.syscalls);
	mr_json_key(j, "entries");
	mr_json_arr(j);
	n = r->kt.total ? mr_ktime_entries(&r->kt, &e) : 0;
	for (size_t i = 0; i < n; i++) {
		mr_json_obj(j);
		mr_json_key(j, e[i].syscall ? "syscall_line" : "variable");
		mr_json_str(j, e[i].syscall ? (e[i].id ? mr_attrib_line(r->a, e[i].id) : NULL)
					    : mr_attrib_var(r->a, e[i].id)->name);
		mr_json_key(j, "samples");
		mr_json_u64(j, e[i].n);
		mr_json_key(j, "functions");
		mr_json_arr(j);
		for (size_t k = 0; k < 3 && e[i].func_n[k]; k++) {
			mr_json_obj(j);
			mr_json_key(j, "name");
			mr_json_str(j, func_name(r, e[i].func[k]));
			mr_json_key(j, "samples");
			mr_json_u64(j, e[i].func_n[k]);
			mr_json_obj_end(j);
		}
		mr_json_arr_end(j);
		mr_json_obj_end(j);
	}
	free(e);
	mr_json_arr_end(j);
	mr_json_obj_end(j);
}
