/* The node x node pattern: one thread per NUMA node; the thread on node k first touches
 * array k (so its pages live on node k), then, inside the region, reads array (k+1) mod N.
 * memphis-report's matrix for `ring` must put >= 95 % of row k in column (k+1) mod N.
 * Prints "node K tid TID reads ARRAY" per thread.
 *   prog_ring [WORDS [REPS]]   (doubles per array, default 2 Mi; passes, default 8) */
#include <memphis.h>
#include <numa.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAXN 64
static uint32_t words = 2u << 20; /* 16 MiB per node */
static int reps = 8;

static double *ring[MAXN];
static int nnodes;
static pthread_barrier_t touched, measured;
static double sums[MAXN];

static void *worker(void *arg)
{
	int k = (int)(intptr_t)arg, j = (k + 1) % nnodes;
	uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
	double s = 0;

	if (numa_available() >= 0)
		numa_run_on_node(k);
	ring[k] = malloc(words * sizeof(double));
	if (!ring[k])
		exit(1);
	for (uint32_t i = 0; i < words; i++)
		ring[k][i] = 1.0;
	pthread_barrier_wait(&touched);
	pthread_barrier_wait(&measured); /* main has marked */
	printf("node %d tid %ld reads %d\n", k, (long)syscall(SYS_gettid), j);
	for (int r = 0; r < reps; r++)
		for (uint32_t i = 0; i < words; i++) {
			h ^= h << 13, h ^= h >> 7, h ^= h << 17;
			s += ring[j][h % words];
		}
	sums[k] = s;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXN];

	if (argc > 1)
		words = (uint32_t)atol(argv[1]);
	if (argc > 2)
		reps = atoi(argv[2]);
	if (words < 1 || reps < 1)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	nnodes = numa_available() >= 0 ? numa_max_node() + 1 : 1;
	if (nnodes > MAXN)
		nnodes = MAXN;
	pthread_barrier_init(&touched, NULL, (unsigned)nnodes + 1);
	pthread_barrier_init(&measured, NULL, (unsigned)nnodes + 1);
	for (int k = 0; k < nnodes; k++)
		pthread_create(&t[k], NULL, worker, (void *)(intptr_t)k);
	pthread_barrier_wait(&touched);
	memphis_mark_named("ring");
	pthread_barrier_wait(&measured);
	for (int k = 0; k < nnodes; k++)
		pthread_join(t[k], NULL);
	memphis_print();
	double total = 0;
	for (int k = 0; k < nnodes; k++)
		total += sums[k];
	printf("nodes %d total %.0f\n", nnodes, total);
	return 0;
}
