/* shim_numamaps.c - preloaded by the tests of `memphis apply` (tests/lib/t_apply.sh, the
 * 2-node guest's numa-place): at exit, where the kernel put the program's memory, for a
 * program they did not change. Into $SHIM_NUMAMAPS.maps and .numa: copies of
 * /proc/self/maps and /proc/self/numa_maps (each mapping's policy: "prefer:0", "bind:0",
 * "interleave:0-1", "default", and its pages per node). Into $SHIM_NUMAMAPS.pages, for
 * each variable of static storage in the plan the program was placed by (MEMPHIS_PLACE's
 * "var" and "sym" lines, docs/apply.md): "NAME\tADDRESS\tBYTES\tNODES", NODES the node of
 * each of its pages as move_pages(2) tells it, "-" for a page never touched. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void copy(const char *from, const char *base, const char *suffix)
{
	char path[4096], buf[65536];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s.%s", base, suffix);
	if ((in = open(from, O_RDONLY)) < 0)
		return;
	if ((out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				break;
		close(out);
	}
	close(in);
}

static int exe_bias(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	*(uintptr_t *)ctx = info->dlpi_addr;
	return 1;
}

/* One line of f for [addr, addr + bytes) of name. */
static void homes(FILE *f, const char *name, uintptr_t addr, unsigned long bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = addr & ~(uintptr_t)(page - 1);
	size_t n = (addr + bytes - lo + (size_t)page - 1) / (size_t)page;
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));

	if (!pages || !status)
		goto out;
	for (size_t i = 0; i < n; i++)
		pages[i] = (void *)(lo + i * (size_t)page);
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0))
		goto out;
	fprintf(f, "%s\t%#lx\t%lu\t", name, (unsigned long)addr, bytes);
	for (size_t i = 0; i < n; i++)
		status[i] >= 0 ? fprintf(f, "%s%d", i ? " " : "", status[i])
			       : fprintf(f, "%s-", i ? " " : "");
	fprintf(f, "\n");
out:
	free(pages);
	free(status);
}

static void plan_homes(const char *base)
{
	const char *plan = getenv("MEMPHIS_PLACE");
	char path[4096], name[256] = "", line[512];
	uintptr_t bias = 0;
	FILE *in, *out;

	if (!plan || !*plan || !(in = fmemopen((void *)plan, strlen(plan), "r")))
		return;
	snprintf(path, sizeof(path), "%s.pages", base);
	if (!(out = fopen(path, "w"))) {
		fclose(in);
		return;
	}
	dl_iterate_phdr(exe_bias, &bias);
	while (fgets(line, sizeof(line), in)) {
		unsigned long vaddr, bytes;

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "var ", 4)) {
			char *p = strchr(line + 4, ' '); /* policy, mode, then the name */

			p = p ? strchr(p + 1, ' ') : NULL;
			snprintf(name, sizeof(name), "%s", p ? p + 1 : "?");
		} else if (sscanf(line, "sym %lx %lu", &vaddr, &bytes) == 2) {
			homes(out, name, bias + vaddr, bytes);
		}
	}
	fclose(out);
	fclose(in);
}

__attribute__((destructor)) static void dump(void)
{
	const char *base = getenv("SHIM_NUMAMAPS");
	int err = errno;

	if (!base || !*base)
		return;
	copy("/proc/self/maps", base, "maps");
	copy("/proc/self/numa_maps", base, "numa");
	plan_homes(base);
	errno = err;
}
