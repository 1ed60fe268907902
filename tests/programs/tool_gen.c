/* tests/programs/tool_gen.c - writes a synthetic memphis run directory whose "program" is
 * this very executable: its globals (colidx, a, x_static), its TLS variable (tls_buf), call
 * sites of its own functions and its own /proc/self/maps, so memphis-report resolves real
 * symbols and lines from this binary's DWARF. Ground truth goes to a JSON file (--truth).
 *
 * usage: tool_gen OUTDIR [-n SAMPLES] [--allocs N] [--seed S] [--exe PATH] [--one-node]
 *                 [--truth FILE] [--truncate FILE:K] [--flip FILE:K] [--future]
 *                 [--unknown-block] [--no-end] [--block N] [--tls-block] [--self-tls]
 *                 [--remote-pct P] [--hw FILE] [--rank R --size N [--job ID] [--host H]]
 *                 [--moved] [--realtime NS]
 * --remote-pct P: each sample of a variable whose pages have fixed homes (all but stacks
 * and TLS) is taken on a CPU of the other node than its page with probability P/100 (by
 * default the CPU is uniform, which makes about half of them remote); for compare's tests.
 * --hw FILE: a hardware run (backend ibs, weight latency): every sample with an address is
 * exact and carries a data source (perf_mem_data_src), a latency, its load/store kind and
 * the hardware's remote flag, drawn from a second generator (the soft run's variables,
 * lines and CPUs stay the same); FILE gets one line per attributed sample: CPU node, variable,
 * line, source key, store, HITM, latency, page remote, hardware remote (tab-separated).
 * The run gets the RUN keys of an ibs run (hw_period, hw_events, hw_notes, no period_ns)
 * and each region a "hw coverage" NOTE (80 % of the enabled time sampled).
 * --moved: the pages of p on node 0 (every other one) are on node 1 in region 3 (a PAGES
 * block of region 3 says so): the report must take a page's home per region.
 * --self-tls: the TLS block is recorded as libmemphis's own, under a file name the report
 * can only know from the RUN keys lib and lib_name (its samples are then set aside).
 * --rank R: one rank of a synthetic MPI job (issue 19): OUTDIR is the job directory, the
 * run goes to OUTDIR/rank-R/ with the RUN keys mpi_rank, mpi_size (--size), mpi_local_rank
 * (R mod 4), mpi_local_size, job_id (--job, default 1234) and launcher=openmpi; --host
 * names its host (RUN hostname, default "gen").
 * --realtime NS: RUN start_realtime=NS (default 0: none). Only libc and libm.
 */
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "crc32c.h"
#include <memphis/format.h>

/* The "program's" variables. */
int colidx[1 << 20];            /* hot spot: every page on node 0, touched by thread 0 */
double a[1 << 19];              /* first half on node 0, second half on node 1 */
static double x_static[4096];   /* never sampled: must not show up */
__thread double tls_buf[512];   /* TLS of every thread */

#define NCPU 4
#define PAGE 4096ull
#define STACK_BASE 0x7e0000000000ull
#define STACK_SIZE (1ull << 20)
#define FS_BASE_OTHER 0x7d0000000000ull
#define HEAP_P 0x200000000000ull
#define HEAP_P_SIZE (1ull << 22)
#define HEAP_REUSE 0x200000800000ull
#define HEAP_REUSE_SIZE 65536ull
#define HEAP_SMALL 0x210000000000ull
#define UNKNOWN_BASE 0x300000000000ull
#define SELF_PATH "/nonexistent/memphis-copy.so"   /* --self-tls: RUN lib */
#define SELF_NAME "/nonexistent/memphis-copy.so.0" /* ... lib_name, its TLS entry's path */

enum { V_COLIDX, V_A, V_P, V_REUSE_B, V_REUSE_C, V_SMALL, V_STACK0, V_TLS = V_STACK0 + NCPU,
       V_UNKNOWN, NV };
enum { L_COLIDX1, L_COLIDX2, L_A, L_P, L_REUSE, L_SMALL, L_STACK, L_TLS, L_UNKNOWN, L_INIT_COLIDX,
       L_INIT_A0, L_INIT_A1, L_INIT_P, NL };

static uint64_t ips[NL];
static int lines[NL];
static uint64_t sites[5];
static int site_lines[5];
static volatile uint64_t sink;

static __attribute__((noipa)) uint64_t here(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

/* Each of these records the address of a call instruction and its source line: samples
 * use ip = return address - 1, which lies in the call's line. */
static __attribute__((noipa)) void kernel_colidx(void)
{
	ips[L_COLIDX1] = here() - 1; lines[L_COLIDX1] = __LINE__;
	ips[L_COLIDX2] = here() - 1; lines[L_COLIDX2] = __LINE__;
}

static __attribute__((noipa)) void kernel_a(void)
{
	ips[L_A] = here() - 1; lines[L_A] = __LINE__;
	ips[L_P] = here() - 1; lines[L_P] = __LINE__;
	ips[L_REUSE] = here() - 1; lines[L_REUSE] = __LINE__;
	ips[L_SMALL] = here() - 1; lines[L_SMALL] = __LINE__;
	ips[L_STACK] = here() - 1; lines[L_STACK] = __LINE__;
	ips[L_TLS] = here() - 1; lines[L_TLS] = __LINE__;
	ips[L_UNKNOWN] = here() - 1; lines[L_UNKNOWN] = __LINE__;
}

static __attribute__((noipa)) void init_arrays(void)
{
	ips[L_INIT_COLIDX] = here() - 1; lines[L_INIT_COLIDX] = __LINE__;
	ips[L_INIT_A0] = here() - 1; lines[L_INIT_A0] = __LINE__;
	ips[L_INIT_A1] = here() - 1; lines[L_INIT_A1] = __LINE__;
	ips[L_INIT_P] = here() - 1; lines[L_INIT_P] = __LINE__;
}

/* *out = the return address of this call (an allocation site's frame), stored by the
 * callee: the caller stores no returned value, as the code after a real malloc whose
 * result goes into no variable (else the report names the object by sites[], issue 16). */
static __attribute__((noipa)) void here_to(uint64_t *out)
{
	*out = (uint64_t)(uintptr_t)__builtin_return_address(0);
}

/* Allocation call sites: frames[0] is the return address of the "malloc" call. */
static __attribute__((noipa)) void site_p(void)
{
	here_to(&sites[0]); site_lines[0] = __LINE__;
}

static __attribute__((noipa)) void site_reuse_b(void)
{
	here_to(&sites[1]); site_lines[1] = __LINE__;
}

static __attribute__((noipa)) void site_reuse_c(void)
{
	here_to(&sites[2]); site_lines[2] = __LINE__;
}

static __attribute__((noipa)) void site_small(void)
{
	here_to(&sites[3]); site_lines[3] = __LINE__;
}

/* ---- --hw: data sources, each with the class a reader must find, written from the
 * perf_mem_data_src layout (linux/perf_event.h) by hand, not through memphis' decoder ---- */

#define DS(a, s) PERF_MEM_S(a, s)
#define DS_LD DS(OP, LOAD)
#define DS_HIT(x) (DS(LVL, x) | DS(LVL, HIT))
#define DS_NUM(n) ((uint64_t)(n) << PERF_MEM_LVLNUM_SHIFT)
#define DS_HOPS(h) ((uint64_t)(h) << PERF_MEM_HOPS_SHIFT)

struct hw_class {
	const char *key;        /* the report's JSON key of the source */
	uint64_t ds;
	int store, hitm, hw_remote;
	uint32_t lat_lo, lat_hi; /* latency drawn in [lo, hi]; 0: none */
	int share;              /* per mille among the local (or remote) page's classes */
};

static const struct hw_class hw_local[] = {
	{ "l1", 0x10268100142ull, 0, 0, 0, 4, 7, 300 },      /* published Skylake-SP L1 load */
	{ "lfb", 0x11868100242ull, 0, 0, 0, 10, 40, 80 },    /* published Skylake-SP LFB load */
	/* Intel's PEBS data source 0 (ds.c pebs_data_source[0x00], "ukn L3"): missed L3 */
	{ "l3_miss", DS_LD | DS(LVL, MISS) | DS_NUM(PERF_MEM_LVLNUM_L3) | DS(SNOOP, NA) |
	  DS(TLB, HIT) | DS(TLB, L1) | DS(TLB, L2), 0, 0, 0, 200, 500, 20 },
	{ "l2", DS_LD | DS_HIT(L2) | DS_NUM(PERF_MEM_LVLNUM_L2), 0, 0, 0, 12, 20, 100 },
	{ "l3", DS_LD | DS_HIT(L3) | DS_NUM(PERF_MEM_LVLNUM_L3), 0, 0, 0, 35, 60, 100 },
	/* AMD: another CCX of the node, which IBS calls a remote core of the same node
	 * (remote, hops 0): not another node */
	{ "near_cache", DS_LD | DS_HIT(REM_CCE1) | DS_NUM(PERF_MEM_LVLNUM_ANY_CACHE) |
	  DS(REMOTE, REMOTE) | DS_HOPS(PERF_MEM_HOPS_0), 0, 0, 0, 80, 150, 100 },
	{ "local_dram", DS_LD | DS_HIT(LOC_RAM) | DS_NUM(PERF_MEM_LVLNUM_RAM), 0, 0, 0, 150, 400, 150 },
	{ "l1", DS(OP, STORE) | DS_HIT(L1) | DS_NUM(PERF_MEM_LVLNUM_L1), 1, 0, 0, 0, 0, 70 },
	/* a precise store that missed L1 (ds.c precise_datala_hsw(), on PERF_MEM_NA) */
	{ "l1_miss", DS(OP, STORE) | DS(LVL, L1) | DS(LVL, MISS) | DS(SNOOP, NA) | DS(LOCK, NA) |
	  DS(TLB, NA) | DS_NUM(PERF_MEM_LVLNUM_NA), 1, 0, 0, 0, 0, 30 },
	{ "io", DS_LD | DS_HIT(IO) | DS_NUM(PERF_MEM_LVLNUM_IO), 0, 0, 0, 1000, 3000, 30 },
	{ "na", DS_LD | DS(LVL, NA) | DS_NUM(PERF_MEM_LVLNUM_NA), 0, 0, 0, 0, 0, 20 },
};

static const struct hw_class hw_remote[] = {
	{ "remote_dram", DS_LD | DS_HIT(REM_RAM1) | DS_NUM(PERF_MEM_LVLNUM_RAM) | DS(REMOTE, REMOTE) |
	  DS_HOPS(PERF_MEM_HOPS_2), 0, 0, 1, 300, 900, 400 },
	{ "remote_cache", DS_LD | DS_HIT(REM_CCE1) | DS_NUM(PERF_MEM_LVLNUM_ANY_CACHE) |
	  DS(REMOTE, REMOTE) | DS_HOPS(PERF_MEM_HOPS_2) | DS(SNOOP, HITM), 0, 1, 1, 250, 700, 200 },
	{ "l1", 0x10268100142ull, 0, 0, 0, 4, 7, 200 },      /* a remote line already in L1 */
	{ "l1", DS(OP, STORE) | DS_HIT(L1) | DS_NUM(PERF_MEM_LVLNUM_L1), 1, 0, 0, 0, 0, 150 },
	{ "uncached", DS_LD | DS_HIT(UNC) | DS_NUM(0x08), 0, 0, 0, 500, 800, 50 },
};

static uint64_t hw_rng = 0x2545f4914f6cdd1dull;
static uint64_t hw_rnd(void)
{
	hw_rng ^= hw_rng << 13;
	hw_rng ^= hw_rng >> 7;
	hw_rng ^= hw_rng << 17;
	return hw_rng;
}

/* Give sample s (with an address, on a page remote or not from its CPU) a data source,
 * latency, kind and remote flag; one line of truth to tf. */
static void hw_fill(struct memphis_rec_sample *s, int page_remote, FILE *tf, int cpu_node,
		    const char *var, int line)
{
	const struct hw_class *t = page_remote ? hw_remote : hw_local;
	size_t n = page_remote ? sizeof(hw_remote) / sizeof(*t) : sizeof(hw_local) / sizeof(*t);
	uint64_t r = hw_rnd();
	int pick = (int)(r % 1000), k = 0;
	uint32_t lat = 0;

	while (k + 1 < (int)n && pick >= t[k].share) {
		pick -= t[k].share;
		k++;
	}
	t += k;
	if (t->lat_hi)
		lat = t->lat_lo + (uint32_t)((r >> 16) % (t->lat_hi - t->lat_lo + 1));
	s->data_src = t->ds;
	s->weight = lat;
	s->ins_lat = (uint16_t)(lat ? lat + 3 : 0);
	s->flags = (uint16_t)((s->flags & MPH_S_TLS) | MPH_S_EXACT | MPH_S_HWADDR | (t->store ? MPH_S_STORE : MPH_S_LOAD) |
			      (t->hw_remote ? MPH_S_REMOTE_HW : 0));
	fprintf(tf, "%d\t%s\ttool_gen.c:%d\t%s\t%d\t%d\t%" PRIu32 "\t%d\t%d\n", cpu_node, var,
		line, t->key, t->store, t->hitm, lat, page_remote, t->hw_remote);
}

/* A hardware run's RUN keys as lib/api.c writes them for ibs (docs/format.md), and the
 * share of each region's enabled time its event sampled, as drain.c's "hw coverage"
 * NOTEs: 80 % over the run, 7/9 for the regions named solve (IBS shared with another
 * user for part of region 2). */
#define HW_RUN_KEYS "hw_period=131072\nhw_period_unit=ops\n" \
	"hw_events=ibs_op type=11 config=0x80000 config1=0 precise_ip=0 period=131072\n" \
	"hw_notes=l3missonly: the hardware restarts its count at every tagged op that does " \
	"not miss L3, so sample counts are not proportional to ops (period skew): compare " \
	"them only between runs with the same setting\n"
static const uint64_t hw_cov[4][2] = { { 0, 0 }, { 4000000000ull, 4000000000ull },
				       { 5000000000ull, 3000000000ull },
				       { 1000000000ull, 1000000000ull } };

/* ---- writing framed blocks ---- */

struct out {
	FILE *f;
	const char *path;
};

static void die(const char *what)
{
	fprintf(stderr, "tool_gen: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void block(FILE *f, uint16_t type, const void *p, size_t n)
{
	struct memphis_block h = { MEMPHIS_BLOCK_MAGIC, type, type == MPH_BLK_SAMPLES ? 2 : 1,
				   (uint32_t)n, mph_crc32c(0, p, n) };

	if (fwrite(&h, sizeof(h), 1, f) != 1 || (n && fwrite(p, n, 1, f) != 1))
		die("write");
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static char bid_hex[80];

/* dl_iterate_phdr callback: the GNU build-id note of the main program into bid_hex. */
static int bid_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p;
		size_t off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		while (off + 12 <= ph->p_memsz) {
			uint32_t nsz, dsz, type;
			size_t name_off, desc_off;

			memcpy(&nsz, p + off, 4);
			memcpy(&dsz, p + off + 4, 4);
			memcpy(&type, p + off + 8, 4);
			name_off = off + 12;
			desc_off = name_off + ((nsz + 3) & ~3u);
			if (type == 3 && nsz == 4 && !memcmp(p + name_off, "GNU", 4)) {
				for (uint32_t k = 0; k < dsz && k < 39; k++)
					sprintf(bid_hex + 2 * k, "%02x", p[desc_off + k]);
				return 1;
			}
			off = desc_off + ((dsz + 3) & ~3u);
		}
	}
	return 1;
}

static char *build_id(void)
{
	dl_iterate_phdr(bid_cb, NULL);
	return bid_hex;
}

static uint64_t tls_size, tls_memsz, tls_data, tls_modid;
static int tls_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;
	tls_data = (uint64_t)(uintptr_t)info->dlpi_tls_data;
	tls_modid = info->dlpi_tls_modid;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS) {
			tls_memsz = info->dlpi_phdr[i].p_memsz;
			uint64_t al = info->dlpi_phdr[i].p_align ? info->dlpi_phdr[i].p_align : 1;
			tls_size = (info->dlpi_phdr[i].p_memsz + al - 1) / al * al;
		}
	return 1;
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);

	if (!f || !b)
		die(path);
	for (;;) {
		size_t r = fread(b + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
		if (n + 1 == cap && !(b = realloc(b, cap *= 2)))
			die("realloc");
	}
	fclose(f);
	b[n] = '\0';
	*len = n;
	return b;
}

static void damage(const char *dir, const char *spec, int flip)
{
	char file[256], path[512];
	long long k;
	const char *colon = strrchr(spec, ':');

	if (!colon || (size_t)(colon - spec) >= sizeof(file)) {
		fprintf(stderr, "tool_gen: bad damage spec %s (FILE:OFFSET)\n", spec);
		exit(1);
	}
	memcpy(file, spec, (size_t)(colon - spec));
	file[colon - spec] = '\0';
	k = atoll(colon + 1);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (flip) {
		FILE *f = fopen(path, "r+b");
		int c;
		if (!f || fseek(f, k, SEEK_SET) || (c = fgetc(f)) == EOF || fseek(f, k, SEEK_SET) ||
		    fputc(c ^ 0xff, f) == EOF || fclose(f))
			die(path);
	} else if (truncate(path, k)) {
		die(path);
	}
}

/* Ground truth of one variable. */
struct truth {
	char name[160];
	uint64_t samples, remote, local, approx;
	uint64_t remote_by_node[2];
	uint64_t line_remote[NL];
};

int main(int argc, char **argv)
{
	const char *dir = NULL, *exe = NULL, *truth_path = NULL;
	const char *trunc_spec = NULL, *flip_spec = NULL, *hw_path = NULL;
	const char *host = "gen", *job = "1234";
	long rank = -1, size = 1;
	char rank_dir[3900], mpi_keys[512] = "";
	FILE *hwf = NULL;
	uint64_t n = 100000, nsmall = 1000, per_block = 4096, realtime = 0;
	int one_node = 0, future = 0, unknown_block = 0, no_end = 0, tls_block = 0, self_tls = 0,
	    moved = 0;
	double remote_pct = -1;
	char exe_buf[4096], path[4200];
	struct truth tr[NV];
	uint64_t totals[5] = { 0 }; /* exact approx noaddr nonmem total */
	uint64_t region_samples[4] = { 0 };

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-n") && i + 1 < argc)
			n = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(o, "--allocs") && i + 1 < argc)
			nsmall = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(o, "--seed") && i + 1 < argc)
			rng ^= strtoull(argv[++i], NULL, 0) * 0x9e3779b97f4a7c15ull;
		else if (!strcmp(o, "--exe") && i + 1 < argc)
			exe = argv[++i];
		else if (!strcmp(o, "--truth") && i + 1 < argc)
			truth_path = argv[++i];
		else if (!strcmp(o, "--truncate") && i + 1 < argc)
			trunc_spec = argv[++i];
		else if (!strcmp(o, "--flip") && i + 1 < argc)
			flip_spec = argv[++i];
		else if (!strcmp(o, "--block") && i + 1 < argc)
			per_block = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(o, "--remote-pct") && i + 1 < argc)
			remote_pct = strtod(argv[++i], NULL);
		else if (!strcmp(o, "--realtime") && i + 1 < argc)
			realtime = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(o, "--moved"))
			moved = 1;
		else if (!strcmp(o, "--one-node"))
			one_node = 1;
		else if (!strcmp(o, "--future"))
			future = 1;
		else if (!strcmp(o, "--unknown-block"))
			unknown_block = 1;
		else if (!strcmp(o, "--no-end"))
			no_end = 1;
		else if (!strcmp(o, "--tls-block"))
			tls_block = 1;
		else if (!strcmp(o, "--hw") && i + 1 < argc)
			hw_path = argv[++i];
		else if (!strcmp(o, "--rank") && i + 1 < argc)
			rank = strtol(argv[++i], NULL, 10);
		else if (!strcmp(o, "--size") && i + 1 < argc)
			size = strtol(argv[++i], NULL, 10);
		else if (!strcmp(o, "--job") && i + 1 < argc)
			job = argv[++i];
		else if (!strcmp(o, "--host") && i + 1 < argc)
			host = argv[++i];
		else if (!strcmp(o, "--self-tls"))
			tls_block = self_tls = 1;
		else if (o[0] != '-' && !dir)
			dir = o;
		else {
			fprintf(stderr, "usage: tool_gen OUTDIR [-n SAMPLES] [--allocs N] [--seed S] "
				"[--exe PATH] [--one-node] [--truth FILE] [--truncate FILE:K] "
				"[--flip FILE:K] [--future] [--unknown-block] [--no-end] [--block N] [--tls-block] "
				"[--self-tls] [--remote-pct P] [--hw FILE] [--rank R --size N [--job ID] "
				"[--host H]] [--moved] [--realtime NS]\n");
			return 1;
		}
	}
	if (!dir) {
		fprintf(stderr, "tool_gen: missing OUTDIR\n");
		return 1;
	}
	if (per_block == 0 || per_block > MEMPHIS_MAX_PAYLOAD / sizeof(struct memphis_rec_sample))
		per_block = 4096;
	if (!exe) {
		ssize_t r = readlink("/proc/self/exe", exe_buf, sizeof(exe_buf) - 1);
		if (r < 0)
			die("/proc/self/exe");
		exe_buf[r] = '\0';
		exe = exe_buf;
	}
	kernel_colidx();
	kernel_a();
	init_arrays();
	site_p();
	site_reuse_b();
	site_reuse_c();
	site_small();
	dl_iterate_phdr(tls_cb, NULL);
	sink = (uint64_t)(uintptr_t)x_static;
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
	if (rank >= 0) {
		snprintf(rank_dir, sizeof(rank_dir), "%s/rank-%ld", dir, rank);
		dir = rank_dir;
		if (mkdir(dir, 0755) && errno != EEXIST)
			die(dir);
		snprintf(mpi_keys, sizeof(mpi_keys),
			 "mpi_rank=%ld\nmpi_size=%ld\nmpi_local_rank=%ld\nmpi_local_size=%ld\n"
			 "job_id=%s\nlauncher=openmpi\n", rank, size, rank % 4,
			 size < 4 ? size : 4, job);
	}
	if (hw_path && !(hwf = fopen(hw_path, "w")))
		die(hw_path);

	/* ---- meta.mph ---- */
	uint64_t t_start = 1000000000000ull;
	uint64_t t_samples = t_start + 1000000ull, step = 1000ull;
	uint64_t t_end = t_samples + n * step;
	uint64_t t_mid = t_samples + (n / 2) * step;
	uint64_t fs0 = (uint64_t)(uintptr_t)__builtin_thread_pointer();
	uint64_t tls_off = (uint64_t)(uintptr_t)&tls_buf[0] - (fs0 - tls_size);
	uint32_t nnodes = one_node ? 1 : 2;
	int32_t cpu_node[NCPU];
	uint32_t tids[NCPU];
	uint64_t fsb[NCPU];
	FILE *m;
	size_t mlen;
	char *maps = read_file("/proc/self/maps", &mlen);

	for (int c = 0; c < NCPU; c++) {
		cpu_node[c] = one_node ? 0 : c / 2;
		tids[c] = 4000 + (uint32_t)c;
		fsb[c] = c == 0 ? fs0 : FS_BASE_OTHER + (uint64_t)c * 0x100000;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, MEMPHIS_META_FILE);
	m = fopen(path, "wb");
	if (!m)
		die(path);
	{
		struct memphis_rec_file f = { future ? MEMPHIS_FORMAT_VERSION + 1 : MEMPHIS_FORMAT_VERSION,
					      MPH_FILE_META, -1, 4000, t_start };
		block(m, MPH_BLK_FILE, &f, sizeof(f));
	}
	{
		char run[8192];
		int len = snprintf(run, sizeof(run),
				   "memphis_version=0.1.0\npid=4000\nexe=%s\nbuild_id=%s\n"
				   "cmdline=%s -n %" PRIu64 "\nhostname=%s\nstart_realtime=%" PRIu64 "\n"
				   "backend=%s\nbackend_why=synthetic run from tool_gen\n"
				   "backend_skip=%s: synthetic\n%sweight=%s\n"
				   "first_touch=1\ncallsite_depth=4\npage_size=4096\nfuture_key=ignored\n"
				   "%s",
				   exe, build_id(), exe, n, host, realtime, hwf ? "ibs" : "soft",
				   hwf ? "pebs" : "ibs", hwf ? HW_RUN_KEYS : "period_ns=1000000\n",
				   hwf ? "latency" : "stall", mpi_keys);
		if (self_tls && len > 0 && (size_t)len < sizeof(run))
			len += snprintf(run + len, sizeof(run) - (size_t)len, "lib=%s\nlib_name=%s\n",
					SELF_PATH, SELF_NAME);
		block(m, MPH_BLK_RUN, run, (size_t)len);
	}
	{
		size_t sz = sizeof(struct memphis_rec_topology) + 4 * NCPU + 4 * nnodes * nnodes;
		unsigned char *b = calloc(1, sz);
		struct memphis_rec_topology t = { NCPU, nnodes };
		uint32_t dist[4] = { 10, 21, 21, 10 };
		if (!b)
			die("calloc");
		memcpy(b, &t, sizeof(t));
		memcpy(b + sizeof(t), cpu_node, 4 * NCPU);
		if (one_node)
			dist[0] = 10;
		memcpy(b + sizeof(t) + 4 * NCPU, dist, 4 * nnodes * nnodes);
		block(m, MPH_BLK_TOPOLOGY, b, sz);
		free(b);
	}
	{
		unsigned char *b = malloc(mlen + 8);
		uint64_t t = t_start + 10;
		if (!b)
			die("malloc");
		memcpy(b, &t, 8);
		memcpy(b + 8, maps, mlen);
		block(m, MPH_BLK_MAPS, b, mlen + 8);
		free(b);
	}
	if (unknown_block)
		block(m, 99, "future block", 12);
	if (tls_block) {
		/* the executable's static TLS block as the library records it (path "") */
		struct memphis_rec_tls t = { (int64_t)(tls_data - fs0), tls_memsz, (uint32_t)tls_modid, 0 };
		unsigned char b[sizeof(t) + 64] = { 0 };
		if (self_tls)
			t.path_len = (uint32_t)strlen(SELF_NAME);
		memcpy(b, &t, sizeof(t));
		memcpy(b + sizeof(t), SELF_NAME, t.path_len);
		block(m, MPH_BLK_TLS, b, sizeof(t) + ((t.path_len + 7u) & ~7u));
	}
	{
		struct memphis_rec_thread th[NCPU];
		for (int c = 0; c < NCPU; c++)
			th[c] = (struct memphis_rec_thread){ t_start + 100 + (uint64_t)c, tids[c],
				MPH_THREAD_START, fsb[c], c ? STACK_BASE + (uint64_t)c * STACK_SIZE : 0,
				c ? STACK_BASE + (uint64_t)(c + 1) * STACK_SIZE : 0, (uint32_t)c, 0 };
		block(m, MPH_BLK_THREADS, th, sizeof(th));
	}
	/* allocations: p (site_p), the reused address (site_reuse_b then site_reuse_c, freed
	 * in between), and nsmall small objects (site_small), in blocks of 4096 records */
	{
		struct memphis_rec_alloc al[3];
		struct memphis_rec_free fr = { t_mid, HEAP_REUSE, tids[0], 0 };
		memset(al, 0, sizeof(al));
		al[0] = (struct memphis_rec_alloc){ t_start + 200, HEAP_P, HEAP_P_SIZE, tids[0],
						    MPH_ALLOC_MALLOC, 1, { sites[0] } };
		al[1] = (struct memphis_rec_alloc){ t_start + 300, HEAP_REUSE, HEAP_REUSE_SIZE, tids[0],
						    MPH_ALLOC_MALLOC, 1, { sites[1] } };
		al[2] = (struct memphis_rec_alloc){ t_mid + 1, HEAP_REUSE, HEAP_REUSE_SIZE / 2, tids[1],
						    MPH_ALLOC_CALLOC, 1, { sites[2] } };
		block(m, MPH_BLK_ALLOCS, al, sizeof(al[0]) * 2);
		block(m, MPH_BLK_FREES, &fr, sizeof(fr));
		block(m, MPH_BLK_ALLOCS, &al[2], sizeof(al[2]));
		struct memphis_rec_alloc *sm = calloc(4096, sizeof(*sm));
		if (!sm)
			die("calloc");
		for (uint64_t k = 0; k < nsmall;) {
			size_t c = 0;
			for (; c < 4096 && k < nsmall; c++, k++)
				sm[c] = (struct memphis_rec_alloc){ t_start + 400, HEAP_SMALL + k * 64, 48,
								    tids[k % NCPU], MPH_ALLOC_MALLOC, 1,
								    { sites[3] } };
			block(m, MPH_BLK_ALLOCS, sm, c * sizeof(*sm));
		}
		free(sm);
	}
	/* first touches and page homes (region 0) */
	{
		uint64_t np_col = sizeof(colidx) / PAGE, np_a = sizeof(a) / PAGE, np_p = HEAP_P_SIZE / PAGE;
		uint64_t cnt = np_col + np_a + np_p;
		struct memphis_rec_touch *t = calloc(cnt, sizeof(*t));
		size_t psz = sizeof(struct memphis_rec_pages_hdr) + cnt * sizeof(struct memphis_rec_page);
		unsigned char *pb = calloc(1, psz);
		struct memphis_rec_page *pg = (struct memphis_rec_page *)(pb + sizeof(struct memphis_rec_pages_hdr));
		struct memphis_rec_pages_hdr ph = { t_start + 900, 0, (uint32_t)cnt };
		uint64_t base_col = ((uint64_t)(uintptr_t)colidx + PAGE - 1) & ~(PAGE - 1);
		uint64_t base_a = ((uint64_t)(uintptr_t)a + PAGE - 1) & ~(PAGE - 1);
		size_t k = 0;
		if (!t || !pb)
			die("calloc");
		for (uint64_t i = 0; i < np_col; i++, k++) {
			t[k] = (struct memphis_rec_touch){ t_start + 500, base_col + i * PAGE, ips[L_INIT_COLIDX],
							   tids[0], 0, 0, 12, 0 };
			pg[k] = (struct memphis_rec_page){ base_col + i * PAGE, 0, 0 };
		}
		for (uint64_t i = 0; i < np_a; i++, k++) {
			int half = i >= np_a / 2 && !one_node;
			t[k] = (struct memphis_rec_touch){ t_start + 500, base_a + i * PAGE,
							   ips[half ? L_INIT_A1 : L_INIT_A0], tids[half ? 2 : 0],
							   (uint16_t)(half ? 2 : 0), 0, 12, 0 };
			pg[k] = (struct memphis_rec_page){ base_a + i * PAGE, half, 0 };
		}
		for (uint64_t i = 0; i < np_p; i++, k++) {
			t[k] = (struct memphis_rec_touch){ t_start + 600, HEAP_P + i * PAGE, ips[L_INIT_P],
							   tids[0], 0, 0, 12, 0 };
			pg[k] = (struct memphis_rec_page){ HEAP_P + i * PAGE, one_node ? 0 : (int32_t)(i % 2), 0 };
		}
		memcpy(pb, &ph, sizeof(ph));
		block(m, MPH_BLK_FIRST_TOUCH, t, cnt * sizeof(*t));
		block(m, MPH_BLK_PAGES, pb, psz);
		free(t);
		free(pb);
	}

	/* ---- samples: cpuNNN.mph ---- */
	memset(tr, 0, sizeof(tr));
	snprintf(tr[V_COLIDX].name, sizeof(tr[0].name), "colidx");
	snprintf(tr[V_A].name, sizeof(tr[0].name), "a");
	snprintf(tr[V_P].name, sizeof(tr[0].name), "malloc at tool_gen.c:%d in site_p", site_lines[0]);
	snprintf(tr[V_REUSE_B].name, sizeof(tr[0].name), "malloc at tool_gen.c:%d in site_reuse_b",
		 site_lines[1]);
	snprintf(tr[V_REUSE_C].name, sizeof(tr[0].name), "calloc at tool_gen.c:%d in site_reuse_c",
		 site_lines[2]);
	snprintf(tr[V_SMALL].name, sizeof(tr[0].name), "malloc at tool_gen.c:%d in site_small",
		 site_lines[3]);
	for (int c = 0; c < NCPU; c++)
		snprintf(tr[V_STACK0 + c].name, sizeof(tr[0].name), "<stack of thread %d>", c);
	snprintf(tr[V_TLS].name, sizeof(tr[0].name), "tls_buf");
	snprintf(tr[V_UNKNOWN].name, sizeof(tr[0].name), "<unknown>");

	FILE *cf[NCPU];
	struct memphis_rec_sample *buf[NCPU];
	size_t nbuf[NCPU] = { 0 };
	uint64_t nblocks[NCPU] = { 0 };
	/* pages of stacks/TLS/unknown sampled: homes written as a region-1 PAGES block */
	enum { MAXX = 4096 };
	struct memphis_rec_page *xp = calloc(MAXX, sizeof(*xp));
	size_t nxp = 0;

	if (!xp)
		die("calloc");
	for (int c = 0; c < NCPU; c++) {
		struct memphis_rec_file f = { future ? MEMPHIS_FORMAT_VERSION + 1 : MEMPHIS_FORMAT_VERSION,
					      MPH_FILE_SAMPLES, c, 4000, t_start };
		snprintf(path, sizeof(path), "%s/" MEMPHIS_CPU_FILE_FMT, dir, (unsigned)c);
		cf[c] = fopen(path, "wb");
		buf[c] = calloc(per_block, sizeof(**buf));
		if (!cf[c] || !buf[c])
			die(path);
		setvbuf(cf[c], NULL, _IOFBF, 1 << 20);
		block(cf[c], MPH_BLK_FILE, &f, sizeof(f));
		if (unknown_block)
			block(cf[c], 77, "x", 1);
	}
	/* stack, TLS and unknown pages: a few fixed pages each */
	for (int c = 0; c < NCPU && nxp + 16 < MAXX; c++) {
		uint64_t sb = c ? STACK_BASE + (uint64_t)(c + 1) * STACK_SIZE - 4 * PAGE : 0;
		for (int k = 0; k < 4 && c; k++)
			xp[nxp++] = (struct memphis_rec_page){ sb + (uint64_t)k * PAGE, cpu_node[c], 0 };
		uint64_t tb = (fsb[c] - tls_size + tls_off) & ~(PAGE - 1);
		for (int k = 0; k < 2; k++)
			xp[nxp++] = (struct memphis_rec_page){ tb + (uint64_t)k * PAGE, cpu_node[c], 0 };
	}
	for (int k = 0; k < 8; k++)
		xp[nxp++] = (struct memphis_rec_page){ UNKNOWN_BASE + (uint64_t)k * PAGE,
						       one_node ? 0 : 1, 0 };
	xp[nxp++] = (struct memphis_rec_page){ HEAP_REUSE, one_node ? 0 : 1, 0 };
	for (uint64_t k = 0; k < HEAP_REUSE_SIZE / PAGE; k++)
		xp[nxp++] = (struct memphis_rec_page){ HEAP_REUSE + k * PAGE, one_node ? 0 : 1, 0 };
	for (uint64_t k = 0; k < (nsmall * 64 + PAGE - 1) / PAGE && nxp < MAXX; k++)
		xp[nxp++] = (struct memphis_rec_page){ HEAP_SMALL + k * PAGE, 0, 0 };
	uint64_t main_stack_lo = 0, main_stack_hi = 0;
	{
		char *s = strstr(maps, "[stack]");
		if (s) {
			while (s > maps && s[-1] != '\n')
				s--;
			sscanf(s, "%" SCNx64 "-%" SCNx64, &main_stack_lo, &main_stack_hi);
			for (int k = 1; k <= 2 && nxp < MAXX; k++)
				xp[nxp++] = (struct memphis_rec_page){ main_stack_hi - (uint64_t)k * PAGE, 0, 0 };
		}
	}

	for (uint64_t i = 0; i < n; i++) {
		struct memphis_rec_sample s = { 0 };
		uint64_t r = rnd(), cat = r % 1000;
		int c = (int)((r >> 10) % NCPU), v = -1, line = L_A, pnode = 0, approx = 0;
		uint64_t addr = 0;

		s.time = t_samples + i * step;
		s.cpu = (uint16_t)c;
		s.tid = tids[c];
		s.region = i < n * 4 / 10 ? 1 : i < n * 9 / 10 ? 2 : 3;
		s.weight = 1;
		s.flags = MPH_S_EXACT | ((r >> 20) & 1 ? MPH_S_STORE : MPH_S_LOAD);
		if (cat < 400) {
			v = V_COLIDX;
			line = (r >> 30) % 10 ? L_COLIDX1 : L_COLIDX2;
			addr = (uint64_t)(uintptr_t)&colidx[(r >> 32) % (sizeof(colidx) / 4)];
		} else if (cat < 650) {
			uint64_t idx = (r >> 32) % (sizeof(a) / 8);
			v = V_A;
			line = L_A;
			addr = (uint64_t)(uintptr_t)&a[idx];
		} else if (cat < 750) {
			v = V_P;
			line = L_P;
			addr = HEAP_P + (r >> 32) % HEAP_P_SIZE;
		} else if (cat < 780) {
			v = s.time < t_mid ? V_REUSE_B : V_REUSE_C;
			line = L_REUSE;
			addr = HEAP_REUSE + (r >> 32) % (HEAP_REUSE_SIZE / 2);
		} else if (cat < 800) {
			v = V_SMALL;
			line = L_SMALL;
			addr = HEAP_SMALL + ((r >> 32) % (nsmall ? nsmall : 1)) * 64 + (r >> 24) % 48;
			if (!nsmall)
				v = -2;
		} else if (cat < 820) {
			v = V_STACK0 + c;
			line = L_STACK;
			if (c)
				addr = STACK_BASE + (uint64_t)(c + 1) * STACK_SIZE - 1 - (r >> 32) % (4 * PAGE);
			else
				addr = main_stack_hi - 1 - (r >> 32) % (2 * PAGE);
		} else if (cat < 840) {
			v = V_TLS;
			line = L_TLS;
			addr = fsb[c] - tls_size + tls_off + (r >> 32) % sizeof(tls_buf);
			s.flags |= MPH_S_TLS;
		} else if (cat < 860) {
			v = V_UNKNOWN;
			line = L_UNKNOWN;
			addr = UNKNOWN_BASE + (r >> 32) % (8 * PAGE);
		} else if (cat < 880) {
			v = V_COLIDX;
			line = L_COLIDX1;
			approx = !hwf; /* hardware addresses are exact */
			addr = (uint64_t)(uintptr_t)&colidx[(r >> 32) % (sizeof(colidx) / 4)];
			if (approx)
				s.flags = (uint16_t)((s.flags & ~MPH_S_EXACT) | MPH_S_APPROX);
		} else if (cat < 940) {
			s.flags = MPH_S_NOADDR | MPH_S_LOAD;
			line = L_A;
		} else {
			s.flags = MPH_S_NONMEM;
			line = L_COLIDX2;
		}
		if (v == -2) { /* no small objects: count as noaddr */
			s.flags = MPH_S_NOADDR;
			addr = 0;
			v = -1;
		}
		s.ip = ips[line];
		s.sampled_ip = s.ip + 4;
		s.addr = addr;
		totals[4]++;
		totals[(s.flags & MPH_S_EXACT) ? 0 : (s.flags & MPH_S_APPROX) ? 1 :
			(s.flags & MPH_S_NOADDR) ? 2 : 3]++;
		region_samples[s.region]++;
		if (v >= 0) {
			/* page homes by construction */
			if (v == V_COLIDX || v == V_SMALL)
				pnode = 0;
			else if (v == V_A)
				pnode = !one_node && addr >= (((uint64_t)(uintptr_t)a + PAGE - 1) & ~(PAGE - 1)) +
						    (sizeof(a) / PAGE / 2) * PAGE;
			else if (v == V_P)
				pnode = one_node ? 0 : (int)(((addr - HEAP_P) / PAGE) % 2) |
							   (moved && s.region == 3);
			else if (v == V_REUSE_B || v == V_REUSE_C || v == V_UNKNOWN)
				pnode = one_node ? 0 : 1;
			else
				pnode = cpu_node[c];
			if (remote_pct >= 0 && !one_node && v != V_TLS &&
			    (v < V_STACK0 || v >= V_STACK0 + NCPU)) {
				/* a separate draw: runs without the option keep their samples */
				uint64_t r2 = rnd();
				int node = (double)(r2 % 1000000) < remote_pct * 10000 ? !pnode : pnode;
				c = node * 2 + (int)((r2 >> 32) & 1);
				s.cpu = (uint16_t)c;
				s.tid = tids[c];
			}
			/* the first partial page of colidx/a lies before the first touched page: its
			 * home is unknown unless covered; keep samples off it */
			if ((v == V_COLIDX || v == V_A) &&
			    addr < (((v == V_COLIDX ? (uint64_t)(uintptr_t)colidx : (uint64_t)(uintptr_t)a) +
				     PAGE - 1) & ~(PAGE - 1))) {
				addr += PAGE;
				s.addr = addr;
			}
			if (hwf)
				hw_fill(&s, pnode != cpu_node[c], hwf, cpu_node[c], tr[v].name, lines[line]);
			if (approx) {
				tr[v].approx++;
			} else {
				tr[v].samples++;
				if (pnode != cpu_node[c]) {
					tr[v].remote++;
					tr[v].remote_by_node[cpu_node[c]]++;
					tr[v].line_remote[line]++;
				} else {
					tr[v].local++;
				}
			}
		}
		buf[c][nbuf[c]++] = s;
		if (nbuf[c] == per_block) {
			block(cf[c], MPH_BLK_SAMPLES, buf[c], nbuf[c] * sizeof(s));
			nblocks[c]++;
			nbuf[c] = 0;
		}
	}
	for (int c = 0; c < NCPU; c++) {
		struct memphis_rec_end e = { t_end, 0 };
		if (nbuf[c]) {
			block(cf[c], MPH_BLK_SAMPLES, buf[c], nbuf[c] * sizeof(**buf));
			nblocks[c]++;
		}
		e.blocks = nblocks[c] + 1 + (uint64_t)unknown_block;
		if (!no_end)
			block(cf[c], MPH_BLK_END, &e, sizeof(e));
		if (fclose(cf[c]))
			die("fclose");
		free(buf[c]);
	}
	/* regions, losses, the extra page homes, a note, END */
	{
		static const char *const names[4] = { "", "solve", "solve", "other" };
		for (uint32_t q = 1; q <= 3; q++) {
			struct memphis_rec_region rg = { 0 };
			rg.seq = q;
			rg.t_start = q == 1 ? t_samples : q == 2 ? t_samples + n * 4 / 10 * step
								 : t_samples + n * 9 / 10 * step;
			rg.t_end = q == 1 ? t_samples + n * 4 / 10 * step : q == 2 ? t_samples + n * 9 / 10 * step
										   : t_end;
			rg.samples = region_samples[q];
			rg.lost = q == 1 ? 7 : 0;
			rg.throttled = q == 2 ? 2 : 0;
			snprintf(rg.name, sizeof(rg.name), "%s", names[q]);
			block(m, MPH_BLK_REGION, &rg, sizeof(rg));
		}
		/* region 1: LOSS records of two threads sum to more than its REGION's 7; region 9
		 * has LOSS but no REGION record: lost 12 + 3, throttled 2 (REGION 2's) */
		struct memphis_rec_loss l[] = { { 1, tids[1], region_samples[1] / 4, 7, 0 },
						{ 1, tids[0], region_samples[1] / 8, 5, 0 },
						{ 9, tids[0], 0, 3, 0 } };
		block(m, MPH_BLK_LOSS, l, sizeof(l));
		size_t psz = sizeof(struct memphis_rec_pages_hdr) + nxp * sizeof(*xp);
		unsigned char *pb = malloc(psz);
		struct memphis_rec_pages_hdr ph = { t_end, 1, (uint32_t)nxp };
		if (!pb)
			die("malloc");
		memcpy(pb, &ph, sizeof(ph));
		memcpy(pb + sizeof(ph), xp, nxp * sizeof(*xp));
		block(m, MPH_BLK_PAGES, pb, psz);
		free(pb);
		if (moved && !one_node) {
			uint64_t np = HEAP_P_SIZE / PAGE / 2;
			struct memphis_rec_pages_hdr mh = { t_end, 3, (uint32_t)np };
			psz = sizeof(mh) + np * sizeof(struct memphis_rec_page);
			if (!(pb = malloc(psz)))
				die("malloc");
			memcpy(pb, &mh, sizeof(mh));
			for (uint64_t k = 0; k < np; k++) {
				struct memphis_rec_page mp = { HEAP_P + 2 * k * PAGE, 1, 0 };
				memcpy(pb + sizeof(mh) + k * sizeof(mp), &mp, sizeof(mp));
			}
			block(m, MPH_BLK_PAGES, pb, psz);
			free(pb);
		}
		char note[160] = { 0 };
		uint64_t t = t_end;
		memcpy(note, &t, 8);
		snprintf(note + 8, sizeof(note) - 8, "synthetic run");
		block(m, MPH_BLK_NOTE, note, 8 + strlen(note + 8));
		for (uint32_t q = 1; hwf && q <= 3; q++) {
			snprintf(note + 8, sizeof(note) - 8, "hw coverage: region=%" PRIu32
				 " enabled_ns=%" PRIu64 " running_ns=%" PRIu64 " event=ibs_op", q,
				 hw_cov[q][0], hw_cov[q][1]);
			block(m, MPH_BLK_NOTE, note, 8 + strlen(note + 8));
		}
		struct memphis_rec_end e = { t_end, 0 };
		if (!no_end)
			block(m, MPH_BLK_END, &e, sizeof(e));
	}
	if (fclose(m))
		die("fclose");
	if (hwf && fclose(hwf))
		die(hw_path);
	free(xp);
	free(maps);
	if (trunc_spec)
		damage(dir, trunc_spec, 0);
	if (flip_spec)
		damage(dir, flip_spec, 1);
	if (truth_path) {
		FILE *t = fopen(truth_path, "w");
		int first = 1;
		if (!t)
			die(truth_path);
		fprintf(t, "{\"samples\": {\"total\": %" PRIu64 ", \"exact\": %" PRIu64
			", \"approximate\": %" PRIu64 ", \"no_address\": %" PRIu64 ", \"non_memory\": %" PRIu64
			", \"lost\": 15, \"throttled\": 2},\n \"regions\": {\"solve\": %" PRIu64
			", \"other\": %" PRIu64 "},\n \"region_list\": \"solve (x2), other (x1)\",\n"
			" \"lines\": {", totals[4], totals[0], totals[1], totals[2], totals[3],
			region_samples[1] + region_samples[2], region_samples[3]);
		for (int l = 0; l < NL; l++)
			fprintf(t, "%s\"%d\": \"tool_gen.c:%d\"", l ? ", " : "", l, lines[l]);
		fprintf(t, "},\n \"vars\": {");
		for (int v = 0; v < NV; v++) {
			if (!tr[v].samples && !tr[v].approx)
				continue;
			fprintf(t, "%s\n  \"%s\": {\"samples\": %" PRIu64 ", \"remote\": %" PRIu64
				", \"local\": %" PRIu64 ", \"approx\": %" PRIu64 ", \"remote_by_node\": [%"
				PRIu64 ", %" PRIu64 "], \"line_remote\": {", first ? "" : ",", tr[v].name,
				tr[v].samples, tr[v].remote, tr[v].local, tr[v].approx,
				tr[v].remote_by_node[0], tr[v].remote_by_node[1]);
			int f2 = 1;
			for (int l = 0; l < NL; l++)
				if (tr[v].line_remote[l]) {
					fprintf(t, "%s\"tool_gen.c:%d\": %" PRIu64, f2 ? "" : ", ", lines[l],
						tr[v].line_remote[l]);
					f2 = 0;
				}
			fprintf(t, "}}");
			first = 0;
		}
		fprintf(t, "\n }\n}\n");
		if (fclose(t))
			die(truth_path);
	}
	return 0;
}
