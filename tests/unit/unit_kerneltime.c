/* tests/unit/unit_kerneltime.c - post/report/kerneltime.c: kernel samples by entry (a
 * variable's fault, a system call's line) and kernel function, by region; two workers'
 * counts merged with their ids renamed; the entries and functions in order. TAP output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/kerneltime.h"

#include "tap.h"

int main(void)
{
	struct mr_ktime a, b;
	struct mr_ktime_entry *e = NULL;
	uint32_t fn[3], vm[8] = { 0, 5, 6, 7, 0, 0, 0, 0 }, lm[8] = { 0, 3, 4, 0, 0, 0, 0, 0 };
	uint64_t fnn[3];
	const uint64_t *v;
	size_t n;

	if (mr_ktime_init(&a) || mr_ktime_init(&b))
		return 1;
	/* worker a: variable 1 faulted 3 times in function 10, once in 11; a system call at
	 * line 1 twice in function 12, region 2 */
	for (int i = 0; i < 3; i++)
		mr_ktime_add(&a, 0, 1, 10, 1);
	mr_ktime_add(&a, 0, 1, 11, 1);
	mr_ktime_add(&a, 1, 1, 12, 2);
	mr_ktime_add(&a, 1, 1, 12, 2);
	/* worker b: its own variable 2 (6 once renamed) */
	mr_ktime_add(&b, 0, 2, 10, 1);
	mr_ktime_add(&b, 0, 2, MR_KTIME_NOFUNC, 1);
	ok(a.total == 6 && a.syscalls == 2 && b.total == 2, "totals %llu %llu, syscalls %llu",
	   (unsigned long long)a.total, (unsigned long long)b.total, (unsigned long long)a.syscalls);
	/* b's variable 2 is 6 after the pass, its lines unchanged */
	ok(mr_ktime_merge(&a, &b, vm, 8, NULL, 0) == 0 && a.total == 8, "merged: 8");
	n = mr_ktime_entries(&a, &e);
	ok(n == 3 && e, "3 entries (%zu)", n);
	if (n == 3 && e) {
		ok(!e[0].syscall && e[0].id == 1 && e[0].n == 4 && e[0].func[0] == 10 &&
		   e[0].func_n[0] == 3 && e[0].func[1] == 11 && e[0].func[2] == MR_KTIME_NOFUNC,
		   "first: variable 1, 4 samples: function 10 (3), 11 (1)");
		ok(!e[1].syscall && e[1].id == 6 && e[1].n == 2, "then b's variable renamed 6 (2; ties: variables first)");
		ok(e[2].syscall && e[2].id == 1 && e[2].n == 2 && e[2].func[0] == 12,
		   "then the system call at line 1 (2)");
	}
	free(e);
	n = mr_ktime_functions(&a, fn, fnn, 3);
	ok(n == 3 && fn[0] == 10 && fnn[0] == 4 && fn[1] == 12 && fnn[1] == 2 && fn[2] == 11,
	   "functions: 10 (4), 12 (2), 11 (1) of 4 (%zu)", n);
	v = mph_u64map_get(&a.regions, 1);
	ok(v && *v == 6, "region 1: 6 (a's 4 and b's 2)");
	v = mph_u64map_get(&a.regions, 2);
	ok(v && *v == 2, "region 2: 2");
	/* a line renamed by the line map */
	mr_ktime_free(&b);
	mr_ktime_init(&b);
	mr_ktime_add(&b, 1, 2, 12, 2);
	mr_ktime_merge(&a, &b, NULL, 0, lm, 8);
	n = mr_ktime_entries(&a, &e);
	ok(n == 4 && e[3].syscall && e[3].id == 4 && e[3].n == 1, "a system call's line renamed by the line map (2 -> 4)");
	free(e);
	mr_ktime_free(&a);
	mr_ktime_free(&b);
	return tap_done();
}
