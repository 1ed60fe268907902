/* post/report/kerneltime.h - the kernel's time on behalf of the program (issue 41 item 1): the
 * samples the software sampler took in the kernel (MPH_S_KERNEL), by what entered it (a
 * page fault or an interrupt before a user instruction's access: the variable it accessed;
 * a system call: its line), by the kernel function sampled, and by region.
 *
 * Counted in the report's sample pass by each worker, merged with the ids renamed as the
 * aggregate's are. Pure counting; memory is per distinct (entry, kernel function).
 */
#ifndef MR_KERNELTIME_H
#define MR_KERNELTIME_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

#define MR_KTIME_NOFUNC 0xffffffffu /* a kernel address no symbol names */

struct mr_ktime {
	struct mph_u64map cells;   /* syscall << 63 | id << 32 | kernel function -> samples */
	struct mph_u64map regions; /* region seq -> samples */
	uint64_t total, syscalls;
};

/* One entry's (a variable's, or a system call line's) kernel samples. */
struct mr_ktime_entry {
	uint32_t id;               /* variable id (0: <unknown>), or line id of a system call */
	int syscall;
	uint64_t n;
	uint32_t func[3];          /* its kernel functions with the most samples (MR_KTIME_NOFUNC
				    * also for none) */
	uint64_t func_n[3];
};

int mr_ktime_init(struct mr_ktime *k);
void mr_ktime_free(struct mr_ktime *k);

/* One kernel sample: in a system call at line id `id` (syscall 1), else of the access to
 * variable id `id`; in kernel function func (MR_KTIME_NOFUNC: unnamed); of region seq
 * region. 0 or -ENOMEM. */
int mr_ktime_add(struct mr_ktime *k, int syscall, uint32_t id, uint32_t func, uint32_t region);

/* Add src into dst, ids renamed by var_map and line_map ([old] = new, covering nvar and
 * nline ids; NULL: kept). 0 or -ENOMEM. */
int mr_ktime_merge(struct mr_ktime *dst, const struct mr_ktime *src, const uint32_t *var_map,
		   size_t nvar, const uint32_t *line_map, size_t nline);

/* The entries, most samples first (ties: variables first, then lower id), into a malloc'd
 * *out; returns their count (0 with *out NULL when none or out of memory). */
size_t mr_ktime_entries(const struct mr_ktime *k, struct mr_ktime_entry **out);

/* The kernel functions over all entries, most samples first, into out[0 .. max) with their
 * samples in n[]; returns how many were written. */
size_t mr_ktime_functions(const struct mr_ktime *k, uint32_t *out, uint64_t *n, size_t max);

#endif /* MR_KERNELTIME_H */
