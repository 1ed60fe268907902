/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * include/memphis/memphismod.h - the user/kernel interface of /dev/memphismod, shared by
 * kmod/memphismod.c and lib/backend/kmod.c. Nothing else defines it.
 *
 * ABI policy: every argument struct starts with `__u64 size` (the caller's sizeof, set
 * before the call) and only ever grows at its end. The module accepts a struct larger than
 * it knows when the extra bytes are zero (else -E2BIG), a smaller one when it holds at least
 * the first version (else -EINVAL), and writes back min(caller's size, its own) bytes with
 * `size` set to that count. Records returned by READ have the size GET_VERSION reports in
 * record_size (>= the first version's 192 bytes); a reader steps by that size and ignores
 * fields it does not know. Unknown command numbers give -ENOTTY, unknown flag bits and
 * nonzero reserved fields -EINVAL, event kinds the machine cannot sample -EOPNOTSUPP.
 *
 * Use: open("/dev/memphismod", O_RDWR | O_CLOEXEC); GET_VERSION; CONFIGURE (optional,
 * defaults: cpu clock, 1 ms, the module's default buffer; the hardware kinds only when
 * caps has MEMPHISMOD_CAP_IBS_OP / MEMPHISMOD_CAP_PEBS, else -EOPNOTSUPP); START samples every thread of
 * the calling process, present and future, until STOP or close; READ takes buffered
 * records (only from the process that started sampling); STOP pauses, START resumes.
 * FAULTS (caps MEMPHISMOD_CAP_FAULTS) adds the process's page-fault stream until close,
 * read with READ's MEMPHISMOD_READ_FAULTS.
 *
 * Scope: START samples with one event per thread (task clock), or, with CONFIGURE's
 * MEMPHISMOD_CONFIG_PER_CPU (caps MEMPHISMOD_CAP_PER_CPU; the cpu clock, 100 us or more),
 * one event per online CPU of the session's own (cpu clock) whose handler keeps only the
 * calling process's samples: a
 * sleeping and waking thread then re-arms no timer, at the price of a timer on every CPU
 * while sampling. Records, READ and LOST records are the same in both scopes. A module
 * without the flag refuses it with -EINVAL: sample per thread.
 */
#ifndef MEMPHIS_MEMPHISMOD_H
#define MEMPHIS_MEMPHISMOD_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MEMPHISMOD_DEVICE "/dev/memphismod"
#define MEMPHISMOD_ABI_VERSION 1

/* GET_VERSION caps */
#define MEMPHISMOD_CAP_CPU_CLOCK  (1ULL << 0) /* software cpu-clock sampling with registers */
#define MEMPHISMOD_CAP_IBS_OP     (1ULL << 1) /* KIND_IBS_OP works here: the kernel has the
                                               * ibs_op PMU and accepted a probe event */
#define MEMPHISMOD_CAP_PEBS       (1ULL << 2) /* KIND_PEBS_LDLAT works here: the kernel
                                               * accepted a probe load-latency event */
#define MEMPHISMOD_CAP_KERNEL_IP  (1ULL << 3) /* caller may receive kernel samples (CAP_PERFMON) */
#define MEMPHISMOD_CAP_FAULTS     (1ULL << 4) /* IOC_FAULTS: the page-fault stream (first
                                               * touch), a software event: no PMU needed */
#define MEMPHISMOD_CAP_PER_CPU    (1ULL << 5) /* CONFIGURE takes MEMPHISMOD_CONFIG_PER_CPU */
#define MEMPHISMOD_CAP_PER_CPU_ALL (1ULL << 6) /* every session samples per CPU, with the
                                               * flag or not (module parameter
                                               * per_cpu_events=1) */

/* CONFIGURE kind */
enum memphismod_kind {
	MEMPHISMOD_KIND_CPU_CLOCK = 0, /* software clock (task-clock per thread, or cpu-clock
	                                * per CPU with MEMPHISMOD_CONFIG_PER_CPU or
	                                * per_cpu_events=1); period in ns;
	                                * records carry user registers */
	MEMPHISMOD_KIND_IBS_OP = 1,    /* AMD IBS op sampling (the ibs_op PMU): period in ops
	                                * (cycles on CPUs without IbsOpCntCtl), a multiple of 16;
	                                * records carry addr, data_src, weight (load misses) and
	                                * ins_lat; ops that neither load nor store are dropped */
	MEMPHISMOD_KIND_PEBS_LDLAT = 2, /* Intel PEBS load latency (raw event 0x1cd, config1 =
	                                * ldlat): period in loads slower than ldlat cycles;
	                                * records carry addr, data_src, weight, ins_lat */
};

/* Period limits of the hardware kinds (CONFIGURE.period; 0 = the default). IBS: the
 * hardware counts in units of 16 (MaxCnt) and the kernel refuses a period below 0x90 or
 * with low bits set, above 0xFFFF0 without the 23-bit extension. PEBS: no randomisation,
 * so the default is prime. ldlat: the SDM's minimum threshold is 3 cycles, the MSR holds
 * 16 bits; perf's default is 30. */
#define MEMPHISMOD_IBS_PERIOD_MIN      0x100ULL
#define MEMPHISMOD_IBS_PERIOD_MAX      0xFFFF0ULL
#define MEMPHISMOD_IBS_PERIOD_DEFAULT  100000ULL  /* ops, multiple of 16 */
#define MEMPHISMOD_PEBS_PERIOD_MIN     1000ULL
#define MEMPHISMOD_PEBS_PERIOD_MAX     (1ULL << 31)
#define MEMPHISMOD_PEBS_PERIOD_DEFAULT 10007ULL   /* loads, prime */
#define MEMPHISMOD_LDLAT_MIN           3ULL
#define MEMPHISMOD_LDLAT_MAX           0xFFFFULL
#define MEMPHISMOD_LDLAT_DEFAULT       30ULL

struct memphismod_version {
	__u64 size;        /* in: sizeof(struct memphismod_version) */
	__u64 abi_version; /* out: MEMPHISMOD_ABI_VERSION of the module */
	__u64 caps;        /* out: MEMPHISMOD_CAP_* */
	__u64 record_size; /* out: bytes per struct memphismod_record returned by READ */
	__u64 buffer_min;  /* out: per-CPU buffer size limits in bytes (module parameters) */
	__u64 buffer_max;
	__u64 buffer_default;
	__u64 period_min;  /* out: cpu-clock period limits in ns */
	__u64 period_max;
	__u64 nr_cpus;     /* out: nr_cpu_ids: records' cpu is below this */
};
#define MEMPHISMOD_VERSION_SIZE_VER0 80

struct memphismod_config {
	__u64 size;        /* in: sizeof(struct memphismod_config) */
	__u64 kind;        /* enum memphismod_kind */
	__u64 period;      /* ns (cpu clock), ops (IBS), loads (PEBS); 0 = the kind's default */
	__u64 buffer_size; /* bytes per CPU, 0 = buffer_default, else within [min, max] */
	__u64 flags;       /* MEMPHISMOD_CONFIG_*, other bits 0 */
	/* --- appended (same ABI; a caller of the first version sends 40 bytes: ldlat 0) --- */
	__u64 ldlat;       /* PEBS_LDLAT: load latency threshold in cycles, 0 = 30; must be
	                    * 0 for the other kinds */
};
#define MEMPHISMOD_CONFIG_SIZE_VER0 40
#define MEMPHISMOD_CONFIG_SIZE_VER1 48
/* CONFIGURE flags */
#define MEMPHISMOD_CONFIG_PER_CPU (1ULL << 0) /* sample with one cpu-clock event per
                                               * online CPU (caps MEMPHISMOD_CAP_PER_CPU;
                                               * -EINVAL from a module without it): only
                                               * the calling process's samples are kept,
                                               * never those of exclude_tid or after an
                                               * exec; CPUs that come online later are not
                                               * sampled. KIND_CPU_CLOCK only, at a period
                                               * of at least MEMPHISMOD_PER_CPU_PERIOD_MIN
                                               * (else -EINVAL): its timer interrupts every
                                               * CPU, whoever runs there */
#define MEMPHISMOD_PER_CPU_PERIOD_MIN 100000ULL /* ns: 10 kHz a CPU at most per session */

struct memphismod_start {
	__u64 size;  /* in: sizeof(struct memphismod_start) */
	__u64 flags; /* must be 0 */
	/* --- appended (same ABI; a caller of the first version sends 16 bytes: 0) --- */
	__u64 exclude_tid; /* a thread of the caller's process never sampled (in the caller's
	                    * pid namespace), 0 = none: the library's drain thread, whose own
	                    * samples would fill its CPU's buffer exactly while it is busiest */
};
#define MEMPHISMOD_START_SIZE_VER0 16
#define MEMPHISMOD_START_SIZE_VER1 24

struct memphismod_read {
	__u64 size;      /* in: sizeof(struct memphismod_read) */
	__u64 buf;       /* in: user pointer to the caller's buffer */
	__u64 buf_size;  /* in: its size in bytes; whole records only are copied */
	__u64 flags;     /* in: 0 (samples) or MEMPHISMOD_READ_FAULTS */
	__u64 nr_records; /* out: records copied */
	__u64 lost;      /* out: records dropped (buffers full) since the last READ */
	__u64 pending;   /* out: records still buffered after this READ (read again) */
	/* --- appended (same ABI; a caller of the first version sends 56 bytes) --- */
	__u64 throttled; /* out: throttles of the session's sample events since the last READ
	                  * that no REC_THROTTLED sample tells (the sample that set it off was
	                  * not recorded: buffer full, not a user memory access, or another
	                  * process on a per-CPU event); 0 for MEMPHISMOD_READ_FAULTS */
};
#define MEMPHISMOD_READ_SIZE_VER0 56
#define MEMPHISMOD_READ_SIZE_VER1 64
#define MEMPHISMOD_READ_FAULTS (1ULL << 0) /* read the page-fault stream's buffers */

/* FAULTS: every thread of the calling process (but exclude_tid), present and future, gets
 * a page-fault event (period 1, user faults only) until the file is closed; START and
 * STOP do not touch it. Its records (REC_FAULT) go to buffers of their own, read with
 * MEMPHISMOD_READ_FAULTS. A second FAULTS does nothing. */
struct memphismod_faults {
	__u64 size;        /* in: sizeof(struct memphismod_faults) */
	__u64 flags;       /* must be 0 */
	__u64 exclude_tid; /* a thread never recorded (the library's drain), 0 = none */
};
#define MEMPHISMOD_FAULTS_SIZE_VER0 24

/* record flags */
#define MEMPHISMOD_REC_REGS     (1U << 0) /* regs[] hold the user registers at the sample */
#define MEMPHISMOD_REC_ADDR     (1U << 1) /* addr is a data address reported by the event */
#define MEMPHISMOD_REC_DATA_SRC (1U << 2) /* data_src is union perf_mem_data_src */
#define MEMPHISMOD_REC_WEIGHT   (1U << 3) /* weight is the access latency in cycles */
#define MEMPHISMOD_REC_KERNEL   (1U << 4) /* ip is a kernel address (CAP_PERFMON callers only) */
#define MEMPHISMOD_REC_INS_LAT  (1U << 5) /* ins_lat is the op's issue-to-retire cycles
                                           * (IBS TagToRet, PEBS instruction latency) */
#define MEMPHISMOD_REC_LOST     (1U << 6) /* not a sample: `weight` samples of thread tid
                                           * were dropped on cpu (buffer full) before
                                           * `time`; ip 0. Only for a caller whose START
                                           * sent exclude_tid (24 bytes or more): READ's
                                           * lost counts the drops no such record tells */
#define MEMPHISMOD_REC_FAULT    (1U << 7) /* a user page fault of thread tid (FAULTS stream
                                           * only): ip, addr (with REC_ADDR), time, cpu */
#define MEMPHISMOD_REC_THROTTLED (1U << 8) /* a sample at which the kernel throttled its
                                           * event (more samples in a tick than
                                           * kernel.perf_event_max_sample_rate allows):
                                           * none of that event until the next tick. What
                                           * PERF_RECORD_THROTTLE tells a perf user; a
                                           * reader that ignores it loses only the count */
#define MEMPHISMOD_REC_IP_INEXACT (1U << 9) /* IBS: the op's RIP was invalid (RipInvalid):
                                           * ip is where the interrupt found the CPU,
                                           * not the sampled op's; addr and data_src are
                                           * the op's. A reader that ignores it takes a
                                           * nearby instruction for the op's */

#define MEMPHISMOD_NREGS 17 /* AX BX CX DX SI DI BP SP IP R8..R15 (lib/insn.h order) */

struct memphismod_record {
	__u64 time;     /* CLOCK_MONOTONIC ns (ktime_get_mono_fast_ns) */
	__u64 ip;       /* sampled instruction pointer (user space unless REC_KERNEL) */
	__u64 addr;     /* data address when REC_ADDR, else 0 */
	__u64 data_src; /* when REC_DATA_SRC, else 0 */
	__u64 weight;   /* when REC_WEIGHT, else 0 */
	__u32 pid;      /* thread group id and thread id, in the caller's pid namespace */
	__u32 tid;
	__u32 cpu;
	__u32 flags;    /* MEMPHISMOD_REC_* */
	__u64 regs[MEMPHISMOD_NREGS]; /* when REC_REGS, else 0 */
	/* --- appended (same ABI, record_size 200: a reader of the first version steps by
	 *     record_size and never sees these) --- */
	__u32 ins_lat;  /* when REC_INS_LAT, else 0 */
	__u32 reserved; /* 0 */
};
#define MEMPHISMOD_RECORD_SIZE_VER0 192
#define MEMPHISMOD_RECORD_SIZE_VER1 200

#define MEMPHISMOD_IOC_MAGIC 0xB7
/* The argument is a pointer to the struct; its first __u64 is its size (the number in the
 * command encodes only that header, so the command stays the same as the struct grows). */
#define MEMPHISMOD_IOC_GET_VERSION _IOWR(MEMPHISMOD_IOC_MAGIC, 1, __u64)
#define MEMPHISMOD_IOC_CONFIGURE   _IOW(MEMPHISMOD_IOC_MAGIC, 2, __u64)
#define MEMPHISMOD_IOC_START       _IOW(MEMPHISMOD_IOC_MAGIC, 3, __u64)
#define MEMPHISMOD_IOC_STOP        _IO(MEMPHISMOD_IOC_MAGIC, 4)
#define MEMPHISMOD_IOC_READ        _IOWR(MEMPHISMOD_IOC_MAGIC, 5, __u64)
#define MEMPHISMOD_IOC_FAULTS      _IOW(MEMPHISMOD_IOC_MAGIC, 6, __u64)

#endif /* MEMPHIS_MEMPHISMOD_H */
