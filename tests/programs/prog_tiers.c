/* tests/programs/prog_tiers.c - issue 44's program for the guest with a memory-only node: a hot
 * array of HOT_MIB MiB that every OpenMP thread streams through in each round (shared, a
 * steady stream) and a cold array of COLD_MIB MiB written once and read once in a while.
 * With --far NODE the process's memory policy binds its allocations to NODE first (as
 * numactl --membind=NODE would, but inside the program, so that `memphis apply` runs it
 * directly): both arrays are first touched there, on the memory-only node. At the end it
 * prints, for each array, where its pages are and the policy the kernel holds for it:
 *   ARRAY BYTES pages N node0 K0 node1 K1 ... policy MODE nodes LIST
 * the pages' nodes from move_pages(2) (a page not present counts on no node), MODE and
 * LIST from get_mempolicy(2) at its middle byte (MODE 6: MPOL_WEIGHTED_INTERLEAVE).
 * With --pause FILE it writes its pid to FILE and stops itself (SIGSTOP) after the first
 * touches, before its region, and again after it: the guest single-steps only the region
 * (tiers.guest.sh).
 * In each round it reads a word of each page of a 1/SLICE of cold (--slice, default 8: the
 * guest's cost is per instruction; a host, where a page's miss costs a hundred loads of a
 * stream, wants a larger SLICE for cold to stay cold).
 * Arguments: ROUNDS [--far NODE] [--hot MIB] [--cold MIB] [--slice SLICE] [--pause FILE]. */
#include <numa.h>
#include <numaif.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <memphis.h>

#define MAX_NODES 64

/* One line: where a's pages are and its policy. */
static void where(const char *name, const char *a, size_t bytes)
{
	long psz = sysconf(_SC_PAGESIZE);
	size_t n = bytes / (size_t)psz, on[MAX_NODES] = { 0 };
	void **pages = malloc(n * sizeof(*pages));
	int *status = malloc(n * sizeof(*status)), mode = -1;
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };

	if (!pages || !status)
		exit(1);
	for (size_t i = 0; i < n; i++)
		pages[i] = (void *)(a + i * (size_t)psz);
	if (move_pages(0, n, pages, NULL, status, 0) == 0)
		for (size_t i = 0; i < n; i++)
			if (status[i] >= 0 && status[i] < MAX_NODES)
				on[status[i]]++;
	if (get_mempolicy(&mode, mask, MAX_NODES, (void *)(a + bytes / 2), MPOL_F_ADDR))
		mode = -1;
	printf("%s %zu pages %zu", name, bytes, n);
	for (int k = 0; k <= numa_max_node() && k < MAX_NODES; k++)
		printf(" node%d %zu", k, on[k]);
	printf(" policy %d nodes", mode);
	for (int k = 0, first = 1; k < MAX_NODES; k++)
		if (mask[k / (8 * sizeof(unsigned long))] >> (k % (8 * sizeof(unsigned long))) & 1) {
			printf("%s%d", first ? " " : ",", k);
			first = 0;
		}
	printf("\n");
	free(pages);
	free(status);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 10, far = -1;
	size_t hot_mib = 32, cold_mib = 512, slice = 8;
	uint64_t sum = 0;
	const char *pause = NULL;

	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--far"))
			far = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--hot"))
			hot_mib = (size_t)atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--cold"))
			cold_mib = (size_t)atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--slice"))
			slice = (size_t)atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--pause"))
			pause = argv[i + 1];
	}
	if (far >= 0) {
		unsigned long m[MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };

		m[far / (8 * sizeof(unsigned long))] |= 1ul << (far % (8 * sizeof(unsigned long)));
		if (set_mempolicy(MPOL_BIND, m, MAX_NODES)) {
			perror("set_mempolicy");
			return 1;
		}
	}
	size_t nh = (hot_mib << 20) / sizeof(uint64_t), nc = (cold_mib << 20) / sizeof(uint64_t);
	uint64_t *hot = malloc(nh * sizeof(*hot)); /* SITE:hot */
	uint64_t *cold = malloc(nc * sizeof(*cold)); /* SITE:cold */

	if (!hot || !cold || !slice || slice > nc / 512)
		return 1;
	for (size_t k = 0; k < nh; k++) /* first touch: the master's */
		hot[k] = k;
	for (size_t k = 0; k < nc; k++)
		cold[k] = k;
	if (pause) {
		FILE *f = fopen(pause, "w");

		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f))
			return 1;
		raise(SIGSTOP);
	}
	memphis_mark_named("tiers"); /* the steady part: the stream and the cold reads */
	for (long r = 0; r < rounds; r++) {
		/* every thread reads lines of all of hot's pages: a shared stream */
#pragma omp parallel for reduction(+ : sum) schedule(static, 1)
		for (int t = 0; t < 64; t++)
			for (size_t k = (size_t)t * 8; k < nh; k += 512)
				for (int j = 0; j < 8; j++)
					sum += hot[k + (size_t)j];
		/* a word of each page of a slice of cold: its samples few for its bytes */
		for (size_t k = (size_t)r % slice * (nc / slice);
		     k < ((size_t)r % slice + 1) * (nc / slice); k += 512)
			sum += cold[k];
	}
	memphis_print();
	if (pause)
		raise(SIGSTOP);
	printf("sum %llu\n", (unsigned long long)sum);
	where("hot", (const char *)hot, nh * sizeof(*hot));
	where("cold", (const char *)cold, nc * sizeof(*cold));
	free(hot);
	free(cold);
	return 0;
}
