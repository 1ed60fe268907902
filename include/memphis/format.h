/* memphis/format.h - the on-disk format of a memphis run directory.
 *
 * The one definition shared by the writer (lib/) and every reader (post/). docs/format.md
 * explains it for people; this header is authoritative. All integers are little-endian
 * (x86-64 native). Changes are append-only: new block types and new fields at the end of a
 * record, announced by a larger MEMPHIS_FORMAT_VERSION; readers skip unknown block types.
 *
 * A run directory holds:
 *   meta.mph      run information, topology, maps, threads, heap objects, first touches,
 *                 regions, loss counts and page homes (written by the library);
 *   cpuNNN.mph    the samples taken on CPU NNN (one file per core that took samples).
 * Every file is a sequence of framed blocks: a struct memphis_block header, then `length`
 * payload bytes whose CRC-32C is `crc`. The first block of each file is MPH_BLK_FILE. A run
 * killed at any point leaves a valid prefix of complete blocks; a reader stops at the first
 * bad header, short payload or wrong checksum and reports the file and offset.
 */
#ifndef MEMPHIS_FORMAT_H
#define MEMPHIS_FORMAT_H

#include <stdint.h>

/* 3: SAMPLES blocks of layout version 3 (delta-encoded records, MPH_S3_* below) and
 * STACKS blocks of layout version 2 (an entry may give only what differs from an earlier
 * one: MPH_STACK_DELTA).
 * 2: SAMPLES blocks of layout version 2 (64-byte samples with ins_lat). A reader of an
 * older version skips block layouts it does not know and would have shown a run without
 * its samples; the larger number makes it refuse the run instead ("use a newer
 * memphis-report"). Readers read runs of every older version; MEMPHIS_FORMAT=2 makes the
 * library write version 2 (SAMPLES layout 2, STACKS layout 1). */
#define MEMPHIS_FORMAT_VERSION 3u
#define MEMPHIS_BLOCK_MAGIC    0x4b4c424du /* "MBLK" */
#define MEMPHIS_MAX_PAYLOAD    (64u << 20) /* readers reject larger blocks as damage */
#define MEMPHIS_META_FILE      "meta.mph"
#define MEMPHIS_CPU_FILE_FMT   "cpu%03u.mph"
#define MEMPHIS_NAME_MAX       64          /* region names, NUL included */
#define MEMPHIS_MAX_FRAMES     8           /* allocation call-site frames kept */

struct memphis_block {
	uint32_t magic;   /* MEMPHIS_BLOCK_MAGIC */
	uint16_t type;    /* enum memphis_block_type */
	uint16_t version; /* layout version of this block type: 1; SAMPLES 3 (format 3) or
	                   * 2 (format 2; 1 is read too); STACKS 2 (format 3) or 1 */
	uint32_t length;  /* payload bytes that follow */
	uint32_t crc;     /* CRC-32C (Castagnoli) of the payload */
};

enum memphis_block_type {
	MPH_BLK_FILE = 1,        /* struct memphis_rec_file, first in every file */
	MPH_BLK_RUN = 2,         /* text, "key=value\n" lines (see MPH_RUN_KEYS below) */
	MPH_BLK_TOPOLOGY = 3,    /* struct memphis_rec_topology + int32 cpu_node[ncpus]
	                          * + uint32 distance[nnodes * nnodes] */
	MPH_BLK_MAPS = 4,        /* uint64 time, then the text of /proc/self/maps */
	MPH_BLK_THREADS = 5,     /* struct memphis_rec_thread[] */
	MPH_BLK_ALLOCS = 6,      /* struct memphis_rec_alloc[] */
	MPH_BLK_FREES = 7,       /* struct memphis_rec_free[] */
	MPH_BLK_FIRST_TOUCH = 8, /* struct memphis_rec_touch[] */
	MPH_BLK_REGION = 9,      /* struct memphis_rec_region (one region, written at print) */
	MPH_BLK_LOSS = 10,       /* struct memphis_rec_loss[] (per thread, per region) */
	MPH_BLK_PAGES = 11,      /* struct memphis_rec_pages_hdr + struct memphis_rec_page[] */
	MPH_BLK_NOTE = 12,       /* uint64 time, then one line of text (warnings, events) */
	MPH_BLK_SAMPLES = 13,    /* samples (cpuNNN.mph only): layout version 3, records
	                          * encoded as below (MPH_S3_*); version 2, struct
	                          * memphis_rec_sample[]; version 1 the first 56 bytes of each */
	MPH_BLK_END = 14,        /* struct memphis_rec_end: the file was closed cleanly */
	MPH_BLK_TLS = 15,        /* struct memphis_rec_tls entries, each followed by its path */
	MPH_BLK_COUNTERS = 16,   /* struct memphis_rec_counter[] (counters of one region) */
	MPH_BLK_STACKS = 17,     /* struct memphis_rec_stack entries, each followed by its
	                          * stack bytes (see struct memphis_rec_stack) */
	MPH_BLK_CPU_SAMPLES = 18, /* struct memphis_rec_cpu_samples[] (one region's, meta) */
	MPH_BLK_THREAD_CPU = 19, /* struct memphis_rec_thread_cpu[] (one region's, meta) */
};

enum memphis_file_kind { MPH_FILE_META = 0, MPH_FILE_SAMPLES = 1 };

struct memphis_rec_file {
	uint32_t format_version; /* MEMPHIS_FORMAT_VERSION of the writer */
	uint32_t kind;           /* enum memphis_file_kind */
	int32_t cpu;             /* samples: the CPU; meta: -1 */
	uint32_t pid;
	uint64_t start_time;     /* CLOCK_MONOTONIC ns when the library started */
};

/* MPH_BLK_RUN keys written by the library (readers ignore unknown keys; a key may repeat,
 * the last value wins except for backend_skip, which accumulates):
 *   memphis_version, pid, exe (absolute path), build_id (hex, may be empty), cmdline
 *   (arguments joined by spaces), hostname, start_realtime (ns since the epoch),
 *   backend (the one that ran: soft, ibs, pebs, kmod or none), backend_why (why it was
 *   chosen), backend_skip ("name: reason" for each backend not usable), period_ns,
 *   weight ("stall" for soft samples, "latency" or "count" for hardware),
 *   first_touch (0/1), callsite_depth, page_size, sampling_error (the one line printed
 *   when sampling was impossible), unwritten_max_ns (the longest a sample stays buffered
 *   in the process before it is written: what a run without END may miss; absent in runs
 *   of older libraries, which buffered 1.1 s), node (one per node, in a RUN block after
 *   TOPOLOGY: NODE, CPUS, TIER, READ_LAT_NS, WRITE_LAT_NS, READ_BW_MBS, WRITE_BW_MBS,
 *   BYTES, FREE_BYTES, tab-separated, "-" or -1 when unknown; docs/format.md). */

struct memphis_rec_topology {
	uint32_t ncpus;  /* entries in cpu_node[] (configured CPUs) */
	uint32_t nnodes; /* rows and columns of distance[] (highest node id + 1) */
};

enum memphis_thread_event { MPH_THREAD_START = 0, MPH_THREAD_EXIT = 1 };

struct memphis_rec_thread {
	uint64_t time;     /* CLOCK_MONOTONIC ns */
	uint32_t tid;
	uint32_t event;    /* enum memphis_thread_event */
	uint64_t fs_base;  /* TLS base of the thread, 0 if unknown */
	uint64_t stack_lo; /* [stack_lo, stack_hi) of its stack, 0/0 if unknown */
	uint64_t stack_hi;
	uint32_t index;    /* 0 for the main thread, then in order of attachment */
	uint32_t reserved;
};

enum memphis_alloc_kind {
	MPH_ALLOC_MALLOC = 0, MPH_ALLOC_CALLOC = 1, MPH_ALLOC_REALLOC = 2,
	MPH_ALLOC_MEMALIGN = 3, MPH_ALLOC_POSIX_MEMALIGN = 4, MPH_ALLOC_ALIGNED_ALLOC = 5,
	MPH_ALLOC_VALLOC = 6, MPH_ALLOC_PVALLOC = 7, MPH_ALLOC_REALLOCARRAY = 8,
	MPH_ALLOC_MMAP = 9,    /* an anonymous private mapping the program made */
	MPH_ALLOC_MREMAP = 10, /* such a mapping moved or resized: its free is recorded too */
	/* A flag on the kind: the record covers a run of small blocks of one call-site chain
	 * that one thread allocated end to end (each within MPH_ALLOC_RUN_GAP bytes after the
	 * one before), recorded by the site map (RUN heap_map) without their frees; their
	 * number is in frames[MEMPHIS_MAX_FRAMES - 1] (nframes is less). */
	MPH_ALLOC_F_RUN = 0x8000,
};
#define MPH_ALLOC_RUN_GAP 32

struct memphis_rec_alloc {
	uint64_t time;
	uint64_t addr;
	uint64_t size;
	uint32_t tid;
	uint16_t kind;    /* enum memphis_alloc_kind */
	uint16_t nframes; /* valid entries of frames[] */
	uint64_t frames[MEMPHIS_MAX_FRAMES]; /* return addresses, innermost (the call site) first */
};

struct memphis_rec_free {
	uint64_t time;
	uint64_t addr;
	uint32_t tid;
	uint32_t reserved;
};

enum memphis_touch_flags {
	MPH_TOUCH_HUGE = 1, /* the fault mapped a whole huge page: it covers 1 << page_shift bytes */
	MPH_TOUCH_STACK = 2, /* a STACKS entry (kind MPH_STACK_TOUCH) holds its registers and stack */
};

struct memphis_rec_touch {
	uint64_t time;
	uint64_t addr;       /* exact faulting data address */
	uint64_t ip;         /* faulting instruction */
	uint32_t tid;
	uint16_t cpu;
	uint16_t flags;      /* enum memphis_touch_flags */
	uint32_t page_shift; /* 12, or 21 for a huge-page fault */
	uint32_t reserved;
};

struct memphis_rec_region {
	uint32_t seq;       /* 1, 2, ... in order of memphis_mark(); samples carry it */
	uint32_t reserved;
	uint64_t t_start;   /* CLOCK_MONOTONIC ns */
	uint64_t t_end;
	uint64_t samples;   /* samples written for this region */
	uint64_t lost;      /* samples the kernel reported lost (PERF_RECORD_LOST) */
	uint64_t throttled; /* throttle events */
	uint64_t dropped;   /* samples memphis itself dropped (write failure) */
	char name[MEMPHIS_NAME_MAX];
};

struct memphis_rec_loss {
	uint32_t region;    /* region seq */
	uint32_t tid;
	uint64_t samples;
	uint64_t lost;
	uint64_t throttled;
};

struct memphis_rec_pages_hdr {
	uint64_t time;    /* when move_pages(2) was asked */
	uint32_t region;  /* region seq; 0 for pages known from first touches */
	uint32_t count;   /* struct memphis_rec_page entries that follow */
};

struct memphis_rec_page {
	uint64_t page;    /* page address (aligned down to the base page size) */
	int32_t node;     /* home node, or -errno from move_pages (e.g. -ENOENT: not present) */
	uint32_t reserved;
};

enum memphis_sample_flags {
	/* exactly one of these four */
	MPH_S_EXACT = 1 << 0,  /* addr is the exact data address of the access */
	MPH_S_APPROX = 1 << 1, /* addr is a proxy (pointer chasing: base register + disp) */
	MPH_S_NOADDR = 1 << 2, /* a memory access whose address could not be rebuilt */
	MPH_S_NONMEM = 1 << 3, /* the attributed instruction does not access memory */
	/* direction, when known */
	MPH_S_LOAD = 1 << 4,
	MPH_S_STORE = 1 << 5,
	/* provenance */
	MPH_S_TLS = 1 << 6,    /* address built from an %fs/%gs operand */
	MPH_S_KERNEL = 1 << 7, /* the timer interrupted kernel code (sampled_ip); ip is the user
	                        * instruction at the kernel's entry: the one a page fault or an
	                        * interrupt came before (its data address in addr, as a user
	                        * sample's), or the system call (with SYSCALL) */
	MPH_S_HWADDR = 1 << 8, /* address reported by hardware (IBS/PEBS) */
	MPH_S_NOPRED = 1 << 9, /* no execution predecessor (after call/ret/jmp, unknown code) */
	MPH_S_REMOTE_HW = 1 << 10, /* hardware data source says remote */
	MPH_S_STACK = 1 << 11, /* a STACKS entry (kind MPH_STACK_SAMPLE) holds its registers and stack */
	MPH_S_SYSCALL = 1 << 12, /* with KERNEL: in a system call, ip its `syscall` instruction */
};

/* SAMPLES layout version 2. Version 1 (format 1) records are the first
 * MEMPHIS_SAMPLE_V1_SIZE bytes of this one: readers convert them with ins_lat 0. */
struct memphis_rec_sample {
	uint64_t time;       /* CLOCK_MONOTONIC ns */
	uint64_t ip;         /* instruction the sample is attributed to */
	uint64_t addr;       /* data address (0 when the flags say there is none) */
	uint64_t sampled_ip; /* ip the backend reported (soft: one instruction after ip) */
	uint64_t data_src;   /* hardware data source (union perf_mem_data_src), 0 for soft */
	uint32_t tid;
	uint32_t region;     /* region seq */
	uint32_t weight;     /* soft: 1; hardware: the access latency in cycles (PEBS
	                      * WEIGHT_STRUCT var1 or WEIGHT, IBS DcMissLat), 0 unknown */
	uint16_t cpu;
	uint16_t flags;      /* enum memphis_sample_flags */
	/* layout version 2 */
	uint16_t ins_lat;    /* instruction latency in cycles (PEBS WEIGHT_STRUCT var2, IBS
	                      * TagToRet), 0 when unknown (soft, version 1) */
	uint16_t reserved16; /* 0 */
	uint32_t reserved;   /* 0 */
};

#define MEMPHIS_SAMPLE_V1_SIZE 56u /* sizeof a SAMPLES layout version 1 record */

/* SAMPLES layout version 3: the same fields as struct memphis_rec_sample (reserved ones
 * not stored: 0), compact. Each block is decoded alone. Its payload is a ULEB128 count of
 * records, then the records, nothing after the last. Each field of a record is relative
 * to the previous record of the block; the first one's to a record of all zeros but
 * weight 1 and sampled_ip - ip 0. A record is:
 *   header  one byte of MPH_S3_* bits; with MPH_S3_MORE a second byte of MPH_S3_INS_LAT
 *           and MPH_S3_DATA_SRC (not 0; other bits 0)
 *   time    zigzag ULEB128 of time - previous time (every record)
 *   ip      zigzag ULEB128 of ip - previous ip (every record)
 *   addr    ADDR: zigzag ULEB128 of addr - the last addr given in the block (0 before
 *           the first); without ADDR addr is 0 (and a given addr is never 0)
 *   sip     SIP: zigzag ULEB128 of sampled_ip - ip; without it, sampled_ip - ip is the
 *           previous record's
 *   tid, region, cpu, flags, weight, ins_lat, data_src: ULEB128 of the value, each only
 *           with its bit, in that order; without it, the previous record's value
 * A bit is set exactly when its field differs from what it would be without (so a block
 * has one encoding). Deltas are taken modulo 2^64, zigzag maps d to (d << 1) ^ (d >> 63)
 * (arithmetic shift). A ULEB128 is at most 10 bytes, in its shortest form, and fits its
 * field's width. Readers treat any other payload as a damaged block. */
enum memphis_s3_bits {
	MPH_S3_ADDR = 1 << 0, MPH_S3_TID = 1 << 1, MPH_S3_FLAGS = 1 << 2, MPH_S3_SIP = 1 << 3,
	MPH_S3_REGION = 1 << 4, MPH_S3_CPU = 1 << 5, MPH_S3_WEIGHT = 1 << 6, MPH_S3_MORE = 1 << 7,
	/* second header byte */
	MPH_S3_INS_LAT = 1 << 0, MPH_S3_DATA_SRC = 1 << 1,
};

/* Where a module's static TLS block lies for every thread: at fs_base + tp_offset, memsz
 * bytes (x86-64 variant II: tp_offset < 0). One entry per loaded module with a PT_TLS
 * segment, as the library saw it; a module loaded later with dynamic TLS has no fixed
 * offset and may not match. Each entry is followed by path_len bytes of its path (no NUL)
 * and padding to 8 bytes. Written at start and at every memphis_print(). */
struct memphis_rec_tls {
	int64_t tp_offset;
	uint64_t memsz;
	uint32_t modid;     /* the dynamic linker's TLS module id (1 = the executable) */
	uint32_t path_len;
};

/* Counted, not sampled: what a region's counters added up to (MPH_BLK_COUNTERS, written at
 * memphis_print() when MEMPHIS_PAPI_EVENTS asks for PAPI events or the kernel's NUMA
 * counters exist). Added in format 2 as a new block type: older readers skip it. Flags
 * and sources added since keep the record's size and meaning for a reader that does not
 * know them: it shows a perf_event_open count as a PAPI count (its value already scaled). */
enum memphis_counter_source {
	MPH_CTR_PAPI = 0,      /* an event of one thread (tid), counted over the region: by
				* PAPI, or by the library's own perf_event_open (MPH_CTR_PERF) */
	MPH_CTR_NUMASTAT = 1,  /* a node's sysfs numastat counter, its change over the region
				* (the whole system's, not only this process's) */
	MPH_CTR_VMSTAT = 2,    /* a /proc/vmstat counter, its change over the region (whole
				* system): numa_pages_migrated, pgmigrate_success */
	MPH_CTR_NUMA_MAPS = 3, /* the process's resident base pages on `node` at the region's
				* end (/proc/self/numa_maps) */
	MPH_CTR_TASK = 4,      /* a thread's (tid) /proc/self/task/TID/sched counter, its change
				* over the region: numa_pages_migrated (NUMA balancing) */
};

enum memphis_counter_flags {
	/* the counter could not be counted: `error` says why (a PAPI error code for PAPI, else
	 * -errno), and after the name's NUL, `name` holds the reason as text (NUL-terminated) */
	MPH_CTR_UNAVAILABLE = 1,
	/* (added later, same format version) an MPH_CTR_PAPI event counted by the library's own
	 * perf_event_open and read(2), not by PAPI; `coverage` is set when counted. Without it,
	 * PAPI counted it (a pinned group: counted whenever the thread ran, or a read error) */
	MPH_CTR_PERF = 2,
	/* (added later) the event had a counter only part of the time it was enabled (the
	 * kernel multiplexed it): `value` is scaled by time_enabled / time_running, `coverage`
	 * says how much was counted */
	MPH_CTR_MULTIPLEXED = 4,
};

struct memphis_rec_counter {
	uint32_t region;   /* region seq */
	uint16_t source;   /* enum memphis_counter_source */
	uint16_t flags;    /* enum memphis_counter_flags */
	uint32_t tid;      /* PAPI, task: the thread (PAPI 0: the event, for every thread); else 0 */
	int32_t node;      /* numastat, numa_maps: the node; else -1 */
	int32_t cpu;       /* PAPI: the CPU the thread last ran on at the region's end, -1 unknown */
	union {
		int32_t error;    /* MPH_CTR_UNAVAILABLE: why; else 0, or the coverage */
		int32_t coverage; /* counted with MPH_CTR_PERF: time_running / time_enabled over
				   * the region in millionths (1000000: counting all the time);
				   * 0 elsewhere: not known */
	};
	uint64_t value;    /* the count (see the source) */
	char name[64];     /* event or counter name, NUL-terminated */
};

/* The user registers and the top of the user stack of one sample or first touch, for the
 * report to unwind to the first frame with source (callers of runtime code) and to place
 * a stack address in its frame. Kept only for records flagged MPH_S_STACK /
 * MPH_TOUCH_STACK. An entry is found by (kind, tid, time) in the STACKS blocks of the same
 * file written before the record's own SAMPLES or FIRST_TOUCH block (and after the
 * previous one of that type), so a reader holds at most one block's entries at a time. */
enum memphis_stack_kind { MPH_STACK_SAMPLE = 1, MPH_STACK_TOUCH = 2 };
#define MEMPHIS_STACK_NREGS 17 /* perf's x86 user registers for the mask 0xff01ff, in
                                * its order: AX BX CX DX SI DI BP SP IP R8 ... R15; a
                                * TOUCH entry carries BX BP SP IP R12-R15 (what unwinding
                                * needs), the others 0 */
struct memphis_rec_stack {
	uint64_t time;      /* the sample's or touch's time */
	uint32_t tid;
	uint16_t kind;      /* enum memphis_stack_kind */
	uint16_t reserved;  /* layout 2: enum memphis_stack_form (MPH_STACK_OWN); layout 1: 0 */
	uint64_t regs[MEMPHIS_STACK_NREGS];
	uint32_t stack_len; /* bytes copied from regs[7] (SP) upward; 0 when none */
	uint32_t reserved2;
	/* then stack_len bytes and zeros up to a multiple of 8 */
};

/* STACKS layout version 2: an entry is either MPH_STACK_OWN, as in layout 1 (reserved 0,
 * reserved2 0, its bytes), or MPH_STACK_DELTA: struct memphis_rec_stack_delta, then the
 * registers that differ from its base's (regmask's bits, in register order), then, when
 * nwords > 0, a bitmap of the stack's 8-byte words that differ (u64[(words + 63) / 64],
 * words = stack_len rounded up to 8, then / 8; bit i of u64 i / 64: word i) and those
 * nwords words in order. Its base is an earlier MPH_STACK_OWN entry of the same block (the
 * index among them: 0 the first) of the same stack_len; the entry is the base's registers
 * and bytes with the given ones replaced, and its own time, tid and kind. Every part is a
 * multiple of 8 bytes. */
enum memphis_stack_form { MPH_STACK_OWN = 0, MPH_STACK_DELTA = 1 };
struct memphis_rec_stack_delta {
	uint64_t time;
	uint32_t tid;
	uint16_t kind;      /* enum memphis_stack_kind */
	uint16_t form;      /* MPH_STACK_DELTA (where memphis_rec_stack has reserved) */
	uint32_t base;      /* index of the base among the block's MPH_STACK_OWN entries */
	uint32_t stack_len; /* the base's */
	uint32_t regmask;   /* bit r: regs[r] given (differs from the base's); r < 17 */
	uint32_t nwords;    /* stack words given */
};

/* The samples of one region written to one CPU's file (MPH_BLK_CPU_SAMPLES, one block at
 * each memphis_print(), after the region's last SAMPLES blocks): counted when their
 * SAMPLES block was handed to the writer, so that a reader names a cpu file that is
 * missing or holds fewer, with what it should hold. CPUs without samples have none. */
struct memphis_rec_cpu_samples {
	uint32_t region;  /* region seq */
	uint32_t cpu;     /* the file cpuNNN.mph */
	uint64_t samples;
};

/* CPU time in one region (MPH_BLK_THREAD_CPU, one block at each memphis_print()): tid 0,
 * the process's (all its threads, the library's own included: CLOCK_PROCESS_CPUTIME_ID
 * from the region's start to its end); else a thread that started in the region, from its
 * start to its exit (read by the thread itself as it ends: threads made with
 * pthread_create) or the region's end. Threads alive at the region's start have none (a
 * system call per thread and region would cost what sampling lingers to avoid), nor one
 * that ended unseen (a raw clone). Per-thread sampling samples a thread only once it ran
 * one period of CPU time: a reader sets these beside the samples. */
struct memphis_rec_thread_cpu {
	uint32_t region;  /* region seq */
	uint32_t tid;     /* 0: the process */
	uint64_t cpu_ns;
};

struct memphis_rec_end {
	uint64_t time;
	uint64_t blocks; /* blocks in this file before this one */
};

_Static_assert(sizeof(struct memphis_block) == 16, "block header layout");
_Static_assert(sizeof(struct memphis_rec_file) == 24, "file record layout");
_Static_assert(sizeof(struct memphis_rec_thread) == 48, "thread record layout");
_Static_assert(sizeof(struct memphis_rec_alloc) == 96, "alloc record layout");
_Static_assert(sizeof(struct memphis_rec_free) == 24, "free record layout");
_Static_assert(sizeof(struct memphis_rec_touch) == 40, "touch record layout");
_Static_assert(sizeof(struct memphis_rec_region) == 120, "region record layout");
_Static_assert(sizeof(struct memphis_rec_loss) == 32, "loss record layout");
_Static_assert(sizeof(struct memphis_rec_pages_hdr) == 16, "pages header layout");
_Static_assert(sizeof(struct memphis_rec_page) == 16, "page record layout");
_Static_assert(sizeof(struct memphis_rec_sample) == 64, "sample record layout");
_Static_assert(__builtin_offsetof(struct memphis_rec_sample, ins_lat) == MEMPHIS_SAMPLE_V1_SIZE,
	       "sample layout 2 extends layout 1");
_Static_assert(sizeof(struct memphis_rec_tls) == 24, "tls record layout");
_Static_assert(sizeof(struct memphis_rec_counter) == 96, "counter record layout");
_Static_assert(sizeof(struct memphis_rec_stack) == 160, "stack record layout");
_Static_assert(sizeof(struct memphis_rec_stack_delta) == 32, "stack delta record layout");
_Static_assert(sizeof(struct memphis_rec_cpu_samples) == 16, "cpu samples record layout");
_Static_assert(sizeof(struct memphis_rec_thread_cpu) == 16, "thread cpu record layout");

#endif /* MEMPHIS_FORMAT_H */
