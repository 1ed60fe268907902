/* tests/unit/unit_bigmem.c - common/bigmem: small arrays from malloc as they are; from 2 MiB
 * up, whole huge pages advised (VmFlags "hg" in /proc/self/smaps: the kernel took the
 * advice) and, for the nofork variant, kept from a child (VmFlags "dc"), which a child
 * then sees unmapped; a nofork array grown keeps its contents, and freed gives back memory
 * that a child gets again. The advice's checks skip where the kernel has no transparent
 * huge pages. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bigmem.h"
#include "tap.h"

#define MIB ((size_t)1 << 20)

/* The VmFlags line of the mapping of /proc/self/smaps that holds p, in flags; 0, or -1
 * when none does. */
static int vm_flags(const void *p, char *flags, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int in = 0, rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(flags, len, "%s", line + 8);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

static int has_flag(const char *flags, const char *f)
{
	char pat[8];

	snprintf(pat, sizeof(pat), " %s", f);
	return strstr(flags, pat) != NULL;
}

int main(void)
{
	char flags[512] = "";
	unsigned char *s = mph_big_alloc(1000), *b = mph_big_alloc(5 * MIB);
	unsigned char *n = mph_big_alloc_nofork(3 * MIB);
	int thp = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;
	pid_t pid;
	int st = 0;

	ok(s && b && n, "bigmem: 1000 bytes, 5 MiB and 3 MiB allocated");
	if (!s || !b || !n)
		return tap_done();
	memset(s, 1, 1000);
	memset(b, 2, 5 * MIB);
	memset(n, 3, 3 * MIB);
	ok((uintptr_t)b % (2 * MIB) == 0 && (uintptr_t)n % (2 * MIB) == 0,
	   "bigmem: the large arrays start on a 2 MiB boundary");
	if (!thp) {
		tap_skip("no transparent huge pages in this kernel", "bigmem: advice taken");
	} else {
		ok(vm_flags(b + 4 * MIB, flags, sizeof(flags)) == 0 && has_flag(flags, "hg") &&
			   !has_flag(flags, "dc"),
		   "bigmem: a 5 MiB array's last huge page advised, kept in a child (VmFlags%s)",
		   flags);
		ok(vm_flags(n, flags, sizeof(flags)) == 0 && has_flag(flags, "hg") &&
			   has_flag(flags, "dc"),
		   "bigmem: the nofork array advised and kept from a child (VmFlags%s)", flags);
	}
	/* in a child: the plain array as it was, the nofork one not mapped at all */
	pid = fork();
	if (pid == 0) {
		if (b[5 * MIB - 1] != 2)
			_exit(2);
		_exit(msync(n, 4096, MS_ASYNC) == 0 ? 3 : 0); /* ENOMEM: not mapped */
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;
	ok(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "bigmem: a child reads the plain array and has no nofork one (exit %d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	b = realloc(b, 9 * MIB);
	ok(b && b[0] == 2 && b[5 * MIB - 1] == 2, "bigmem: a plain realloc to 9 MiB keeps the contents");
	if (b)
		memset(b + 5 * MIB, 4, 4 * MIB);
	n = mph_big_realloc_nofork(n, 3 * MIB, 7 * MIB);
	ok(n && n[0] == 3 && n[3 * MIB - 1] == 3 &&
		   (!thp || (vm_flags(n + 6 * MIB, flags, sizeof(flags)) == 0 && has_flag(flags, "dc"))),
	   "bigmem: a nofork array grown to 7 MiB keeps its contents and stays kept from a child");
	mph_big_free_nofork(n, 7 * MIB);
	/* glibc's free of a mapped 9 MiB chunk raises its mmap threshold: a nofork array of
	 * 3 MiB then comes from malloc's heap, and goes back to it, for any allocation */
	free(b);
	n = mph_big_alloc_nofork(3 * MIB);
	if (n)
		memset(n, 5, 3 * MIB);
	mph_big_free_nofork(n, 3 * MIB);
	ok(vm_flags(n, flags, sizeof(flags)) != 0 || !has_flag(flags, "dc"),
	   "bigmem: a freed nofork array's memory no longer kept from a child (VmFlags%s)", flags);
	free(s);
	return tap_done();
}
