/* vmnuma - NUMA placement checks run inside the QEMU guest (static, no memphis).
 *
 *   vmnuma topo NODES CPUS_PER_NODE [MEMORY_ONLY]
 *                                     the guest has exactly this topology, distances
 *                                     10/20 (30 to memory-only nodes)
 *   vmnuma firsttouch                 for every node: a buffer allocated by the main thread
 *                                     and first touched by a thread pinned to a CPU of that
 *                                     node has all its pages on that node (move_pages query)
 *   vmnuma place node N               pages touched under the inherited policy (e.g. from
 *                                     numactl --membind) are all on node N, and the process
 *                                     runs on a CPU of --cpunode C when given
 *   vmnuma place interleave           pages spread evenly over all nodes (within 10 points)
 *
 * Prints one human line describing what it saw; exit 0 when the check holds, 1 when it
 * does not, 2 on usage or setup errors. Pages are queried with move_pages(2) (nodes=NULL).
 */
#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BUF_PAGES 1024 /* 4 MiB with 4 KiB pages */

static long page_size;

/* mmap a private anonymous buffer of npages that nobody has touched yet; THP is kept off
 * for it so one fault cannot place 2 MiB at once (VM-RECIPE pitfall 2). NULL on failure. */
static char *fresh_buffer(size_t npages)
{
	void *p = mmap(NULL, npages * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("vmnuma: mmap");
		return NULL;
	}
	madvise(p, npages * page_size, MADV_NOHUGEPAGE);
	return p;
}

static void touch(char *buf, size_t npages)
{
	for (size_t i = 0; i < npages; i++)
		((volatile char *)buf)[i * page_size] = 1;
}

/* Fill hist[0..maxnode] with the number of pages of buf on each node; returns the number
 * of pages move_pages could not place (not present or error), or -1 if the call failed. */
static long node_histogram(char *buf, size_t npages, long *hist, int maxnode)
{
	void **pages = calloc(npages, sizeof(*pages));
	int *status = calloc(npages, sizeof(*status));
	long bad = 0;

	if (!pages || !status) {
		free(pages);
		free(status);
		return -1;
	}
	for (size_t i = 0; i < npages; i++)
		pages[i] = buf + i * page_size;
	if (move_pages(0, npages, pages, NULL, status, 0) != 0) {
		perror("vmnuma: move_pages");
		bad = -1;
		goto out;
	}
	for (int n = 0; n <= maxnode; n++)
		hist[n] = 0;
	for (size_t i = 0; i < npages; i++) {
		if (status[i] >= 0 && status[i] <= maxnode)
			hist[status[i]]++;
		else
			bad++;
	}
out:
	free(pages);
	free(status);
	return bad;
}

static void print_histogram(const long *hist, int maxnode, long bad)
{
	for (int n = 0; n <= maxnode; n++)
		printf(" node%d=%ld", n, hist[n]);
	if (bad)
		printf(" unplaced=%ld", bad);
}

/* want_nodes nodes of want_cpn CPUs, then want_mem without CPUs; distances 10 on the
 * diagonal, 20 between nodes with CPUs, 30 to and between memory-only ones (boot.sh). */
static int cmd_topo(int want_nodes, int want_cpn, int want_mem)
{
	int nodes = numa_num_configured_nodes();
	int ok = nodes == want_nodes + want_mem && numa_max_node() == want_nodes + want_mem - 1;
	struct bitmask *cpus = numa_allocate_cpumask();

	printf("nodes=%d cpus/node=", nodes);
	for (int n = 0; n <= numa_max_node(); n++) {
		int cnt = 0;
		if (numa_node_to_cpus(n, cpus) == 0)
			cnt = numa_bitmask_weight(cpus);
		printf("%s%d", n ? "," : "", cnt);
		ok &= cnt == (n < want_nodes ? want_cpn : 0);
	}
	printf(" distances=");
	for (int a = 0; a <= numa_max_node(); a++)
		for (int b = 0; b <= numa_max_node(); b++) {
			int d = numa_distance(a, b);
			printf("%s%d", a || b ? "," : "", d);
			ok &= d == (a == b ? 10 : a < want_nodes && b < want_nodes ? 20 : 30);
		}
	printf("\n");
	numa_free_cpumask(cpus);
	return ok ? 0 : 1;
}

struct toucher {
	int cpu;
	char *buf;
	int err;
};

static void *toucher_main(void *arg)
{
	struct toucher *t = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	t->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!t->err && sched_getcpu() != t->cpu)
		t->err = EAGAIN;
	if (!t->err)
		touch(t->buf, BUF_PAGES);
	return NULL;
}

static int first_cpu_of(int node)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	int cpu = -1;

	if (numa_node_to_cpus(node, cpus) == 0)
		for (unsigned i = 0; i < cpus->size; i++)
			if (numa_bitmask_isbitset(cpus, i)) {
				cpu = (int)i;
				break;
			}
	numa_free_cpumask(cpus);
	return cpu;
}

static int cmd_firsttouch(void)
{
	int maxnode = numa_max_node(), ok = 1;
	long hist[maxnode + 1];

	for (int node = 0; node <= maxnode; node++) {
		struct toucher t = { .cpu = first_cpu_of(node), .buf = NULL };
		pthread_t th;
		long bad;

		if (t.cpu < 0) { /* a memory-only node: no thread runs there */
			printf("%snode%d: no cpu", node ? "; " : "", node);
			continue;
		}
		t.buf = fresh_buffer(BUF_PAGES);
		if (!t.buf) {
			printf("node%d: no cpu or no buffer\n", node);
			return 2;
		}
		if (pthread_create(&th, NULL, toucher_main, &t) != 0 || pthread_join(th, NULL) != 0) {
			printf("node%d: pthread failed\n", node);
			return 2;
		}
		if (t.err) {
			printf("node%d: pinning to cpu %d failed: %s\n", node, t.cpu, strerror(t.err));
			return 2;
		}
		bad = node_histogram(t.buf, BUF_PAGES, hist, maxnode);
		printf("%scpu%d->", node ? "; " : "", t.cpu);
		print_histogram(hist, maxnode, bad);
		ok &= bad == 0 && hist[node] == BUF_PAGES;
		munmap(t.buf, BUF_PAGES * page_size);
	}
	printf("\n");
	return ok ? 0 : 1;
}

static int cmd_place(int argc, char **argv)
{
	int maxnode = numa_max_node(), want_node = -1, want_cpunode = -1, ok = 1;
	long hist[maxnode + 1], bad;
	char *buf;

	if (argc >= 2 && strcmp(argv[0], "node") == 0)
		want_node = atoi(argv[1]);
	else if (argc < 1 || strcmp(argv[0], "interleave") != 0)
		return 2;
	for (int i = 0; i + 1 < argc; i++)
		if (strcmp(argv[i], "--cpunode") == 0)
			want_cpunode = atoi(argv[i + 1]);
	if (!(buf = fresh_buffer(BUF_PAGES)))
		return 2;
	touch(buf, BUF_PAGES);
	bad = node_histogram(buf, BUF_PAGES, hist, maxnode);
	if (bad < 0)
		return 2;
	int cpu = sched_getcpu(), cpunode = numa_node_of_cpu(cpu);
	printf("cpu%d(node%d) pages:", cpu, cpunode);
	print_histogram(hist, maxnode, bad);
	ok &= bad == 0;
	if (want_node >= 0) {
		ok &= hist[want_node] == BUF_PAGES;
	} else {
		for (int n = 0; n <= maxnode; n++) {
			double share = 100.0 * hist[n] / BUF_PAGES, even = 100.0 / (maxnode + 1);
			printf(" %.1f%%", share);
			ok &= share > even - 10 && share < even + 10;
		}
	}
	if (want_cpunode >= 0)
		ok &= cpunode == want_cpunode;
	printf("\n");
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	page_size = sysconf(_SC_PAGESIZE);
	if (numa_available() < 0) {
		printf("numa_available() < 0: no NUMA support\n");
		return 2;
	}
	if ((argc == 4 || argc == 5) && strcmp(argv[1], "topo") == 0)
		return cmd_topo(atoi(argv[2]), atoi(argv[3]), argc == 5 ? atoi(argv[4]) : 0);
	if (argc == 2 && strcmp(argv[1], "firsttouch") == 0)
		return cmd_firsttouch();
	if (argc >= 3 && strcmp(argv[1], "place") == 0) {
		int rc = cmd_place(argc - 2, argv + 2);
		if (rc != 2)
			return rc;
	}
	fprintf(stderr, "usage: vmnuma topo NODES CPUS_PER_NODE [MEMORY_ONLY] | firsttouch |\n"
			"       place node N [--cpunode C] | place interleave\n");
	return 2;
}
