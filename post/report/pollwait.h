/* post/report/pollwait.h - the waits the program writes itself (issue 41 item 3): the samples
 * of its poll loops (binary/pollloop.h), by loop, line and variable.
 *
 * Counted in the report's sample pass by each worker, merged with the ids renamed as the
 * aggregate's are; the header's wait line says them per loop: its share, its lines and the
 * variable it polls. Pure counting; memory is per distinct (line, variable).
 */
#ifndef MR_POLLWAIT_H
#define MR_POLLWAIT_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct mr_pollwait {
	struct mph_u64map n;    /* line << 32 | var -> samples */
	struct mph_u64map head; /* line -> the first instruction of its loop (the lowest, when
				 * a line's code is in more than one) */
	uint64_t total;
};

/* One loop as the report says it. */
struct mr_pollwait_loop {
	uint64_t head, n;
	uint32_t line[3];  /* its lines by samples, 0: none */
	uint32_t var;      /* the variable it reads most, a program's variable before a
			    * function's local; 0: no sample had an address */
};

int mr_pollwait_init(struct mr_pollwait *p);
void mr_pollwait_free(struct mr_pollwait *p);

/* One sample in the loop starting at head, of line id `line`, variable id var (0: none).
 * 0 or -ENOMEM. */
int mr_pollwait_add(struct mr_pollwait *p, uint64_t head, uint32_t line, uint32_t var);

/* Add src into dst, ids renamed by var_map and line_map ([old] = new, covering nvar and
 * nline ids; NULL: kept). 0 or -ENOMEM. */
int mr_pollwait_merge(struct mr_pollwait *dst, const struct mr_pollwait *src,
		      const uint32_t *var_map, size_t nvar, const uint32_t *line_map, size_t nline);

/* The loops, most samples first (ties: lower head), into out[0 .. max); returns how many
 * loops there are (maybe more than max). is_local(arg, var): whether var is a function's
 * local. */
size_t mr_pollwait_loops(const struct mr_pollwait *p, int (*is_local)(const void *, uint32_t),
			 const void *arg, struct mr_pollwait_loop *out, size_t max);

#endif /* MR_POLLWAIT_H */
