/* A pipeline the program synchronises itself (issue 41 item 3): two OpenMP threads, a
 * producer and a consumer, hand blocks of `data` (heap) over through a shared flag array
 * `flag`, as hand-pipelined solvers do. The producer does WORK passes over a block, then
 * publishes it (__sync_synchronize, then flag[b] = round + 1); the consumer polls the flag
 * with __sync_synchronize between reads (GCC: lock orq $0,(%rsp), a fence on its stack top),
 * then copies the block into a local array `tmp` on its stack and works there. So the
 * consumer waits in its poll loop while the producer works, and does real work on its
 * stack. Each thread measures its own CPU time in the poll loop and overall, and the
 * program prints the share of the threads' CPU time spent polling (the data's page faults
 * are taken before the region: the region's time is user time, what the software sampler
 * sees):
 *   pipeline: R rounds, wait share: cpu 37.5 %
 * One memphis region around the rounds.
 *   prog_pipeline [ROUNDS [WORK]]   (default 40 rounds, the producer does 48 passes) */
#include <memphis.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NB 64            /* blocks */
#define BS 16384         /* doubles per block: 128 KiB, a stack array of the consumer; a
			  * block takes long beside the clock's system call around the poll */

int flag[NB];            /* block b of round r is ready when flag[b] > r */
static double *data;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void produce(double *blk, long work)
{
	for (long k = 0; k < work; k++)
		for (size_t i = 0; i < BS; i++)
			blk[i] = 0.5 * blk[i] + 1.0;
}

/* The consumer's work on block blk, in a copy on its stack. */
static __attribute__((noinline)) double consume(const double *blk)
{
	double tmp[BS], s = 0;

	for (size_t i = 0; i < BS; i++)
		tmp[i] = blk[i];
	for (size_t i = 1; i < BS; i++) {
		tmp[i] += 0.25 * tmp[i - 1];
		s += tmp[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 40;
	long heavy = argc > 2 ? atol(argv[2]) : 48;
	double cpu_all = 0, cpu_wait = 0, sum = 0;

	data = malloc((size_t)NB * BS * sizeof(*data));
	if (!data || rounds < 1 || heavy < 1)
		return 1;
	for (size_t i = 0; i < (size_t)NB * BS; i++) /* its page faults before the region */
		data[i] = (double)(i % 5);
	memphis_mark_named("pipeline");
#pragma omp parallel num_threads(2) reduction(+ : cpu_all, cpu_wait, sum)
	{
		int t = omp_get_thread_num();
		double c0 = thread_cpu();

		for (long r = 0; r < rounds && omp_get_num_threads() == 2; r++)
			for (int b = 0; b < NB; b++) {
				double *blk = data + (size_t)b * BS;

				if (t == 0) {
					produce(blk, heavy);
					__sync_synchronize();
					flag[b] = (int)r + 1;
				} else {
					double w0 = thread_cpu();

					while (flag[b] <= r) /* the poll */
						__sync_synchronize();
					cpu_wait += thread_cpu() - w0;
					sum += consume(blk);
				}
			}
		cpu_all += thread_cpu() - c0;
	}
	memphis_print();
	printf("pipeline: %ld rounds, wait share: cpu %.1f %% (sum %.3e)\n", rounds,
	       100 * cpu_wait / cpu_all, sum);
	free(data);
	return 0;
}
