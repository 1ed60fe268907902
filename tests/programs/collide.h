/* tests/programs/collide.h - what prog_collide.c and collide_b.c (beside it) share. */
#ifndef COLLIDE_H
#define COLLIDE_H

#define COLLIDE_N (1u << 21) /* doubles in each file's work: 16 MiB */
#define COLLIDE_M (1u << 20) /* random indices */

/* collide_b.c's own static work[COLLIDE_N]. */
double *collide_b_work(void);

#endif /* COLLIDE_H */
