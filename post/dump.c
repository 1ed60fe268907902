/* post/dump.c - `memphis-report dump`: the run's metadata, then one line per sample (the
 * paper's Figure 4, readable), then the damage found. Needs no binary. */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cmd.h"
#include "run/pages.h"
#include "samples3.h"
#include "stacks2.h"
#include "u64map.h"

void mr_help_dump(FILE *f)
{
	fprintf(f, "usage: memphis-report dump RUNDIR [--meta | --samples | --touches | --stacks | --blocks]\n\n"
		   "Print the run directory as text: the metadata (RUN keys, topology, threads,\n"
		   "regions with loss counts, counts of allocations, frees and first touches),\n"
		   "then one line per sample:\n"
		   "  time_s cpu tid ip sampled_ip addr flags page_node region\n"
		   "(runs of a hardware backend, RUN weight=latency or count, add before region:\n"
		   "  weight ins_lat data_src\n"
		   "the access and instruction latencies in cycles and perf_mem_data_src in hex)\n"
		   "and the damage found, if any.\n\n"
		   "Options:\n"
		   "  --meta      only the metadata\n"
		   "  --samples   only the samples\n"
		   "  --touches   only the first-touch records (page faults), one per line:\n"
		   "                time_s cpu tid ip addr page_bytes [huge] [stack]\n"
		   "  --stacks    only the samples and first touches that kept registers and\n"
		   "              stack (STACKS entries), one per line:\n"
		   "                sample|touch time_s tid ip entry_ip sp stack_len words...\n"
		   "              (entry_ip: the entry's IP register; words: its stack as\n"
		   "              64-bit hex words from SP up; \"missing\" when no entry is found)\n"
		   "  --blocks    only the framed blocks of every file, one per line:\n"
		   "                file offset type layout payload_bytes [records]\n"
		   "              (records: SAMPLES records of any layout, decoded alike;\n"
		   "              STACKS entries and how many give only what differs from an\n"
		   "              earlier one: layout 2's DELTA entries)\n"
		   "  -h, --help  this text\n\n"
		   "Exit status: 0 ok, 1 bad usage, 2 damaged or unreadable input (after printing\n"
		   "what was readable).\n");
}

/* Words for the flags of a sample into buf. */
static const char *flag_words(uint16_t f, char *buf, size_t len)
{
	static const struct {
		uint16_t bit;
		const char *word;
	} w[] = {
		{ MPH_S_EXACT, "exact" }, { MPH_S_APPROX, "approx" }, { MPH_S_NOADDR, "noaddr" },
		{ MPH_S_NONMEM, "nonmem" }, { MPH_S_LOAD, "load" }, { MPH_S_STORE, "store" },
		{ MPH_S_TLS, "tls" }, { MPH_S_KERNEL, "kernel" }, { MPH_S_HWADDR, "hwaddr" },
		{ MPH_S_NOPRED, "nopred" }, { MPH_S_REMOTE_HW, "remote_hw" },
		{ MPH_S_STACK, "stack" }, { MPH_S_SYSCALL, "syscall" },
	};
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		if (!(f & w[i].bit))
			continue;
		o += (size_t)snprintf(buf + o, len > o ? len - o : 0, "%s%s", o ? "," : "", w[i].word);
	}
	f &= (uint16_t)~((MPH_S_STACK << 1) - 1);
	if (f)
		snprintf(buf + o, len > o ? len - o : 0, "%s0x%x", o ? "," : "", f);
	if (!buf[0])
		snprintf(buf, len, "-");
	return buf;
}

static double secs(const struct mr_run *run, uint64_t t)
{
	return ((double)t - (double)run->meta_file.start_time) / 1e9;
}

/* The samples meta.mph says each cpu file got per region, and the CPU time per region of
 * the process and of each thread that started in it, beside its samples (LOSS records). */
static void dump_threads_cpu(const struct mr_run *run)
{
	struct mph_u64map loss = { 0 }; /* region << 32 | tid -> samples */
	char a[32];
	bool have = !mph_u64map_init(&loss, run->nlosses + 1);

	for (size_t i = 0; have && i < run->nlosses; i++) {
		uint64_t key = (uint64_t)run->losses[i].region << 32 | run->losses[i].tid, *v;

		if (key != MPH_U64MAP_EMPTY && (v = mph_u64map_put(&loss, key, 0)))
			*v += run->losses[i].samples;
	}
	printf("# samples per cpu file: %zu records\n", run->ncpu_samples);
	for (size_t i = 0; i < run->ncpu_samples; i++)
		printf("#   " MEMPHIS_CPU_FILE_FMT " in region %" PRIu32 ": %s samples\n",
		       run->cpu_samples[i].cpu, run->cpu_samples[i].region,
		       mr_fmt_count(a, run->cpu_samples[i].samples));
	printf("# thread CPU time: %zu records\n", run->nthread_cpu);
	for (size_t i = 0; i < run->nthread_cpu; i++) {
		const struct memphis_rec_thread_cpu *c = &run->thread_cpu[i];
		uint64_t key = (uint64_t)c->region << 32 | c->tid;
		const uint64_t *v = have && key != MPH_U64MAP_EMPTY ? mph_u64map_get(&loss, key) : NULL;

		if (c->tid == 0)
			printf("#   process in region %" PRIu32 ": cpu %.3f ms\n", c->region,
			       (double)c->cpu_ns / 1e6);
		else
			printf("#   tid %" PRIu32 " in region %" PRIu32 ": cpu %.3f ms, %s samples\n",
			       c->tid, c->region, (double)c->cpu_ns / 1e6,
			       have ? mr_fmt_count(a, v ? *v : 0) : "?");
	}
	mph_u64map_free(&loss);
}

/* COUNTERS records, as written (runs without them print nothing, as before). */
static void dump_counters(const struct mr_run *run)
{
	char a[32];

	if (!run->ncounters)
		return;
	printf("# counters: %zu records\n", run->ncounters);
	for (size_t i = 0; i < run->ncounters; i++) {
		const struct memphis_rec_counter *c = &run->counters[i];
		int n = (int)strnlen(c->name, sizeof(c->name));
		const char *src = mr_counter_source_name(c->source);

		printf("#   region %" PRIu32 " %s tid %" PRIu32 " node %" PRId32 " cpu %" PRId32 ": %.*s ",
		       c->region, src ? src : "?", c->tid, c->node, c->cpu, n,
		       c->name);
		if (c->flags & MPH_CTR_UNAVAILABLE)
			printf("not counted (error %" PRId32 ")", c->error);
		else
			printf("%s", mr_fmt_count(a, c->value));
		if (c->source == MPH_CTR_PAPI && (c->flags & MPH_CTR_PERF))
			printf(" by perf_event_open");
		if (c->source == MPH_CTR_PAPI && (c->flags & MPH_CTR_PERF) &&
		    !(c->flags & MPH_CTR_UNAVAILABLE))
			printf(", coverage %.4f%s", c->coverage / 1e6,
			       c->flags & MPH_CTR_MULTIPLEXED ? ", multiplexed: scaled" : "");
		printf("\n");
	}
}

static void dump_meta(const struct mr_run *run)
{
	char a[32], b[32], c[32], d[32];
	uint64_t region0 = 0, npg = 0;

	printf("# memphis run directory %s (format version %" PRIu32 ", pid %" PRIu32 ")\n",
	       mr_esc(run->dir), run->meta_file.format_version, run->meta_file.pid);
	printf("# run:\n");
	for (size_t i = 0; i < run->nkv; i++)
		printf("#   %s=%s\n", mr_esc(run->kv[i].key), mr_esc(run->kv[i].value));
	if (run->have_topology) {
		printf("# topology: %" PRIu32 " cpus, %" PRIu32 " nodes\n#   cpu node:", run->ncpus,
		       run->nnodes);
		for (uint32_t i = 0; i < run->ncpus; i++)
			printf(" %u:%d", i, run->cpu_node[i]);
		printf("\n");
		for (uint32_t i = 0; i < run->nnodes; i++) {
			printf("#   distance node %u:", i);
			for (uint32_t k = 0; k < run->nnodes; k++)
				printf(" %" PRIu32, run->distance[i * run->nnodes + k]);
			printf("\n");
		}
	} else {
		printf("# topology: none recorded\n");
	}
	printf("# threads: %zu records\n", run->nthreads);
	for (size_t i = 0; i < run->nthreads; i++) {
		const struct memphis_rec_thread *t = &run->threads[i];
		printf("#   %.6f s thread %" PRIu32 " tid %" PRIu32 " %s fs_base 0x%" PRIx64
		       " stack 0x%" PRIx64 "-0x%" PRIx64 "\n", secs(run, t->time), t->index, t->tid,
		       t->event == MPH_THREAD_START ? "start" : t->event == MPH_THREAD_EXIT ? "exit" : "?",
		       t->fs_base, t->stack_lo, t->stack_hi);
	}
	printf("# regions: %zu\n", run->nregions);
	for (size_t i = 0; i < run->nregions; i++) {
		const struct memphis_rec_region *r = &run->regions[i];
		printf("#   region %" PRIu32 " \"%s\" %.6f-%.6f s: %s samples, %s lost, %s throttled, "
		       "%s dropped\n", r->seq, mr_esc(r->name), secs(run, r->t_start), secs(run, r->t_end),
		       mr_fmt_count(a, r->samples), mr_fmt_count(b, r->lost),
		       mr_fmt_count(c, r->throttled), mr_fmt_count(d, r->dropped));
	}
	printf("# losses: %zu records\n", run->nlosses);
	for (size_t i = 0; i < run->nlosses; i++) {
		const struct memphis_rec_loss *l = &run->losses[i];
		printf("#   region %" PRIu32 " tid %" PRIu32 ": %s samples, %s lost, %s throttled\n",
		       l->region, l->tid, mr_fmt_count(a, l->samples), mr_fmt_count(b, l->lost),
		       mr_fmt_count(c, l->throttled));
	}
	dump_threads_cpu(run);
	dump_counters(run);
	for (size_t i = 0; i < run->npages; i++) {
		npg += run->pages[i].hdr.count;
		if (run->pages[i].hdr.region == 0)
			region0 += run->pages[i].hdr.count;
	}
	printf("# allocs: %s, frees: %s, first touches: %s\n", mr_fmt_count(a, run->nallocs),
	       mr_fmt_count(b, run->nfrees), mr_fmt_count(c, run->ntouches));
	printf("# page homes: %s in %zu PAGES blocks (%s from first touches)\n", mr_fmt_count(a, npg),
	       run->npages, mr_fmt_count(b, region0));
	printf("# static TLS blocks: %zu\n", run->ntls);
	for (size_t i = 0; i < run->ntls; i++)
		printf("#   module %" PRIu32 " %s: fs_base%+" PRId64 ", %" PRIu64 " bytes\n",
		       run->tls[i].modid, run->tls[i].path[0] ? run->tls[i].path : "(executable)",
		       run->tls[i].tp_offset, run->tls[i].memsz);
	printf("# maps snapshots: %zu\n", run->nmaps);
	for (size_t i = 0; i < run->nmaps; i++)
		printf("#   %.6f s, %zu bytes\n", secs(run, run->maps[i].time), run->maps[i].len);
	for (size_t i = 0; i < run->nnotes; i++)
		printf("# note %.6f s: %s\n", secs(run, run->notes[i].time), mr_esc(run->notes[i].text));
	printf("# sample files: %zu\n", run->ncpufiles);
	for (size_t i = 0; i < run->ncpufiles; i++)
		printf("#   %s: %s bytes\n", run->cpus[i].name, mr_fmt_count(a, run->cpus[i].size));
	if (run->meta_stack_blocks)
		printf("# stacks of first touches: %s entries in %s STACKS blocks, %s bytes\n",
		       mr_fmt_count(a, run->meta_stacks),
		       mr_fmt_count(b, run->meta_stack_blocks), mr_fmt_count(c, run->meta_stack_bytes));
	if (run->unknown_blocks)
		printf("# skipped blocks of unknown type: %" PRIu64 "\n", run->unknown_blocks);
}

/* Print every sample; returns 0 or the exit code of a fatal error. */
static int dump_samples(struct mr_run *run)
{
	struct mr_pagemap pm = { 0 };
	struct mr_sample_iter *it;
	const struct memphis_rec_sample *s;
	size_t n;
	char fl[128];
	const char *wk = mr_run_get(run, "weight");
	int hw = wk && (!strcmp(wk, "latency") || !strcmp(wk, "count"));

	if (mr_pagemap_build(&pm, run) || mr_samples_begin(run, &it)) {
		mr_pagemap_free(&pm);
		return mr_error(MR_EXIT_DATA, "out of memory");
	}
	printf("# time_s cpu tid ip sampled_ip addr flags page_node %sregion\n",
	       hw ? "weight ins_lat data_src " : "");
	while ((n = mr_samples_next(it, &s)) > 0) {
		for (size_t i = 0; i < n; i++) {
			const struct memphis_rec_region *r = mr_run_region(run, s[i].region);
			int node = s[i].addr ? mr_pagemap_node(&pm, s[i].region, s[i].addr) : -1;
			char nb[16];

			if (node >= 0)
				snprintf(nb, sizeof(nb), "%d", node);
			else
				snprintf(nb, sizeof(nb), "-");
			printf("%.6f %u %" PRIu32 " 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s %s ",
			       secs(run, s[i].time), s[i].cpu, s[i].tid, s[i].ip, s[i].sampled_ip,
			       s[i].addr, flag_words(s[i].flags, fl, sizeof(fl)), nb);
			if (hw)
				printf("%" PRIu32 " %u 0x%" PRIx64 " ", s[i].weight,
				       (unsigned)s[i].ins_lat, s[i].data_src);
			printf("%s\n", r ? mr_esc(r->name) : "?");
		}
	}
	mr_samples_end(it);
	mr_pagemap_free(&pm);
	return 0;
}

/* One line per first-touch record, in file order. */
static void dump_touches(const struct mr_run *run)
{
	for (size_t i = 0; i < run->ntouches; i++) {
		const struct memphis_rec_touch *t = &run->touches[i];
		printf("%.6f %u %" PRIu32 " 0x%" PRIx64 " 0x%" PRIx64 " %llu%s%s\n", secs(run, t->time),
		       (unsigned)t->cpu, t->tid, t->ip, t->addr,
		       t->page_shift < 64 ? 1ull << t->page_shift : 0ull,
		       (t->flags & MPH_TOUCH_HUGE) ? " huge" : "",
		       (t->flags & MPH_TOUCH_STACK) ? " stack" : "");
	}
}

/* One STACKS line: what, time, tid, ip, then the entry e (NULL: "missing"). */
static void stack_line(const struct mr_run *run, const char *what, uint64_t time, uint32_t tid,
		       uint64_t ip, const struct memphis_rec_stack *e, const uint8_t *bytes)
{
	printf("%s %.6f %" PRIu32 " 0x%" PRIx64, what, secs(run, time), tid, ip);
	if (!e) {
		printf(" missing\n");
		return;
	}
	printf(" 0x%" PRIx64 " 0x%" PRIx64 " %" PRIu32, e->regs[8], e->regs[7], e->stack_len);
	for (uint32_t o = 0; o < e->stack_len; o += 8) { /* the last one padded with zeros */
		uint64_t w;
		memcpy(&w, bytes + o, 8);
		printf(" %" PRIx64, w);
	}
	printf("\n");
}

/* The samples and first touches flagged as having a STACKS entry, with it. 0 or the exit
 * code of a fatal error. */
static int dump_stacks(struct mr_run *run)
{
	struct mr_sample_iter *it;
	const struct memphis_rec_sample *s;
	const struct memphis_rec_stack *e;
	const uint8_t *bytes;
	size_t n;

	if (mr_samples_begin(run, &it))
		return mr_error(MR_EXIT_DATA, "out of memory");
	while ((n = mr_samples_next(it, &s)) > 0)
		for (size_t i = 0; i < n; i++)
			if (s[i].flags & MPH_S_STACK) {
				e = mr_samples_stack(it, &s[i], &bytes);
				stack_line(run, "sample", s[i].time, s[i].tid, s[i].sampled_ip, e, bytes);
			}
	mr_samples_end(it);
	for (size_t i = 0; i < run->ntouches; i++) {
		const struct memphis_rec_touch *t = &run->touches[i];
		if (t->flags & MPH_TOUCH_STACK) {
			e = mr_run_touch_stack(run, t, &bytes);
			stack_line(run, "touch", t->time, t->tid, t->ip, e, bytes);
		}
	}
	return 0;
}

/* mr_block_fn of dump_blocks: one line per block of file *(const char **)arg. */
static void block_line(void *arg, uint64_t off, const struct memphis_block *h,
		       const unsigned char *p)
{
	struct mph_s3_error e;
	size_t n = 0, delta = 0;

	printf("%s %" PRIu64 " %s %u %" PRIu32, *(const char **)arg, off, mr_block_name(h->type),
	       (unsigned)h->version, h->length);
	if (h->type == MPH_BLK_SAMPLES && (h->version == 1 || h->version == 2)) {
		size_t size = h->version == 1 ? MEMPHIS_SAMPLE_V1_SIZE : sizeof(struct memphis_rec_sample);
		if (h->length % size == 0)
			printf(" %zu samples", h->length / size);
	} else if (h->type == MPH_BLK_SAMPLES && h->version == 3) {
		if (mph_s3_count(p, h->length, &n, &e) == 0)
			printf(" %zu samples", n);
	} else if (h->type == MPH_BLK_STACKS && (h->version == 1 || h->version == 2)) {
		for (size_t o = 0, size; h->length - o >= sizeof(struct memphis_rec_stack_delta); n++) {
			struct memphis_rec_stack st;
			struct memphis_rec_stack_delta d;
			const char *why;

			memcpy(&d, p + o, sizeof(d));
			if (h->version == 2 && d.form == MPH_STACK_DELTA) {
				if (mph_stk2_parse(p + o, h->length - o, &d, &size, &why))
					break;
				o += size;
				delta++;
				continue;
			}
			if (h->length - o < sizeof(st))
				break;
			memcpy(&st, p + o, sizeof(st));
			size = sizeof(st) + (((size_t)st.stack_len + 7) & ~(size_t)7);
			if (h->length - o < size)
				break;
			o += size;
		}
		printf(" %zu entries, %zu of them deltas", n, delta);
	}
	printf("\n");
}

/* Every block of meta.mph and the cpu files: 0, or MR_EXIT_DATA after a damaged one. */
static int dump_blocks(struct mr_run *run)
{
	char what[512];
	int rc = 0;

	printf("# file offset type layout payload_bytes [records]\n");
	for (size_t i = 0; i <= run->ncpufiles; i++) {
		const char *name = i ? run->cpus[i - 1].name : MEMPHIS_META_FILE;
		if (mr_run_walk_blocks(run, name, block_line, &name, what, sizeof(what)) < 0) {
			printf("# damaged input: %s\n", mr_esc(what));
			rc = MR_EXIT_DATA;
		}
	}
	return rc;
}

int mr_cmd_dump(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "meta", no_argument, NULL, 'm' },
		{ "samples", no_argument, NULL, 's' },
		{ "touches", no_argument, NULL, 't' },
		{ "stacks", no_argument, NULL, 'k' },
		{ "blocks", no_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int meta = 1, samples = 1, touches = 0, stacks = 0, blocks = 0, c, rc;
	struct mr_run *run;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': samples = 0; meta = 1; break;
		case 's': meta = 0; samples = 1; break;
		case 't': meta = 0; samples = 0; touches = 1; break;
		case 'k': meta = 0; samples = 0; stacks = 1; break;
		case 'b': meta = 0; samples = 0; blocks = 1; break;
		case 'h': mr_help_dump(stdout); return MR_EXIT_OK;
		default:
			return mr_usage("dump", "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind + 1 != argc)
		return mr_usage("dump", optind == argc ? "missing RUNDIR" : "one RUNDIR expected");
	run = mr_open_run(argv[optind]);
	if (!run)
		return MR_EXIT_DATA;
	if (meta)
		dump_meta(run);
	rc = samples ? dump_samples(run) : 0;
	if (touches)
		dump_touches(run);
	if (stacks && !rc)
		rc = dump_stacks(run);
	if (blocks && !rc)
		rc = dump_blocks(run);
	for (size_t i = 0; i < run->ncpufiles && (samples || stacks); i++) {
		const struct mr_cpufile *cf = &run->cpus[i];
		printf("# %s: %s samples", cf->name, mr_fmt_count((char[32]){ 0 }, cf->samples));
		if (cf->stack_blocks)
			printf(", %s stack entries in %s STACKS blocks, %s bytes",
			       mr_fmt_count((char[32]){ 0 }, cf->stacks),
			       mr_fmt_count((char[32]){ 0 }, cf->stack_blocks),
			       mr_fmt_count((char[32]){ 0 }, cf->stack_bytes));
		printf("\n");
	}
	for (size_t i = 0; i < run->nwarnings; i++)
		printf("# warning: %s\n", mr_esc(run->warnings[i]));
	for (size_t i = 0; i < run->ndamage; i++)
		printf("# damaged input: %s\n", mr_esc(run->damage[i]));
	fflush(stdout);
	mr_print_problems(run, stderr, "memphis-report: ");
	if (!rc && run->ndamage)
		rc = MR_EXIT_DATA;
	mr_run_close(run);
	return rc;
}
