/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * include/memphis/memphismod_rec.h - what the module's overflow handler makes of one perf
 * sample: the record of /dev/memphismod (include/memphis/memphismod.h), or the reason it
 * is dropped. Pure inline code on plain values, no kernel types and no library calls, so
 * that kmod/memphismod.c runs it in NMI context and tests/unit/unit_kmod_decode.c runs the
 * same code on records built from real-hardware values.
 *
 * Sources, per kind:
 *  - CPU_CLOCK: ip and time only; the module copies the user registers itself (REC_REGS).
 *  - PEBS_LDLAT: what the PMU driver put in struct perf_sample_data, each field only when
 *    its PERF_SAMPLE_* bit is in data->sample_flags (the kernel leaves the others unset for
 *    an in-kernel counter's handler, which runs before perf_prepare_sample).
 *  - IBS_OP: always the op registers of the raw sample, decoded with
 *    include/memphis/hwdecode.h into the union perf_mem_data_src of the kernel's 6.6+
 *    convention; the driver's own DATA_SRC, ADDR and WEIGHT are never read: from 6.1 to
 *    6.5 (Debian 12's kernel) its DATA_SRC is the older encoding, in which a Zen 4 hit in
 *    another CCX of the same node reads as another node's cache (8bfc20baa935 "perf/x86/
 *    ibs: Set mem_lvl_num, mem_remote and mem_hops for data_src" changed it in 6.6).
 * Only user addresses leave the module: a kernel ip drops the sample, a kernel or zero
 * data address drops the address.
 */
#ifndef MEMPHIS_MEMPHISMOD_REC_H
#define MEMPHIS_MEMPHISMOD_REC_H

#include <linux/perf_event.h>
#include <linux/types.h>

#include "memphis/hwdecode.h"
#include "memphis/memphismod.h"

/* One sample as the handler saw it. */
struct memphismod_sample_in {
	__u64 kind;          /* enum memphismod_kind of the session */
	__u64 sample_flags;  /* perf_sample_data.sample_flags */
	__u64 addr;          /* data->addr (PERF_SAMPLE_ADDR) */
	__u64 data_src;      /* data->data_src.val (PERF_SAMPLE_DATA_SRC) */
	__u64 weight;        /* data->weight.full (PERF_SAMPLE_WEIGHT_TYPE) */
	const __u64 *ibs_regs; /* IBS: the raw sample's op registers (enum memphis_ibs_reg
	                        * order, MEMPHIS_IBS_NREGS of them), or NULL */
	__u32 ibs_caps;      /* IBS: the raw sample's caps word (CPUID 0x8000001B EAX) */
	__u32 pid, tid, cpu; /* for the record */
	__u64 ip;            /* instruction_pointer(regs): for IBS and PEBS the sampled op */
	__u64 time;
	__u64 user_top;      /* user addresses are below this (TASK_SIZE_MAX) */
	__u8 ours;           /* current is a live user thread of the session's process and exec */
	__u8 user_mode;      /* CPU_CLOCK: the interrupted context was user mode */
	__u8 weight_struct;  /* the event asked PERF_SAMPLE_WEIGHT_STRUCT (else WEIGHT) */
	__u32 cpu_family, cpu_model; /* IBS: the CPU's (boot_cpu_data x86, x86_model), for
	                      * the decoder's erratum 1293 and CacheHitSt; 0: unknown */
};

/* Why a sample is not recorded. */
enum memphismod_rec_verdict {
	MEMPHISMOD_REC_KEEP = 0,
	MEMPHISMOD_REC_FOREIGN,  /* another process, another exec image, a kernel thread */
	MEMPHISMOD_REC_KERNEL_IP, /* kernel code (or ip 0) */
	MEMPHISMOD_REC_NOMEM,    /* IBS: no raw registers, the op neither loads nor stores, or
	                          * the sample is invalid */
};

/* Fill *r from one sample, or say why not (then *r is untouched). For CPU_CLOCK the
 * record has REC_REGS and zero registers: the caller copies them. Every field of *r that
 * carries nothing is zero (ring entries are reused). */
static inline enum memphismod_rec_verdict
memphismod_rec_fill(const struct memphismod_sample_in *in, struct memphismod_record *r)
{
	__u64 addr = 0, data_src = 0, weight = 0, ins_lat = 0;
	__u32 flags = 0;

	if (!in->ours)
		return MEMPHISMOD_REC_FOREIGN;
	if (in->ip == 0 || in->ip >= in->user_top)
		return MEMPHISMOD_REC_KERNEL_IP;
	if (in->kind == MEMPHISMOD_KIND_CPU_CLOCK) {
		if (!in->user_mode)
			return MEMPHISMOD_REC_KERNEL_IP;
		flags = MEMPHISMOD_REC_REGS;
	} else if (in->kind == MEMPHISMOD_KIND_IBS_OP) {
		/* the op's registers, whatever the driver decoded (see the top of this file) */
		struct memphis_hw_access a;

		if (!in->ibs_regs || memphis_ibs_decode(in->ibs_regs, in->ibs_caps, in->cpu_family,
							in->cpu_model, &a) < 0)
			return MEMPHISMOD_REC_NOMEM;
		if (!a.is_load && !a.is_store)
			return MEMPHISMOD_REC_NOMEM;
		data_src = a.data_src;
		flags |= MEMPHISMOD_REC_DATA_SRC;
		if (!a.ip_valid) /* the kernel left the interrupted ip (HW-REVIEW M1) */
			flags |= MEMPHISMOD_REC_IP_INEXACT;
		if (a.addr_valid) {
			addr = a.addr;
			flags |= MEMPHISMOD_REC_ADDR;
		}
		if (a.latency) {
			weight = a.latency;
			flags |= MEMPHISMOD_REC_WEIGHT;
		}
		ins_lat = a.ins_lat; /* TagToRetCtr, where the driver gives it: load misses */
		if (ins_lat)
			flags |= MEMPHISMOD_REC_INS_LAT;
	} else { /* PEBS */
		if (in->sample_flags & PERF_SAMPLE_ADDR) {
			addr = in->addr;
			flags |= MEMPHISMOD_REC_ADDR;
		}
		if (in->sample_flags & PERF_SAMPLE_DATA_SRC) {
			data_src = in->data_src;
			flags |= MEMPHISMOD_REC_DATA_SRC;
		}
		if (in->sample_flags & PERF_SAMPLE_WEIGHT_TYPE) {
			/* WEIGHT_STRUCT: var1_dw (bits 0-31) the access latency, var2_w (32-47)
			 * the instruction latency (PEBS on Sapphire Rapids and later) */
			weight = in->weight_struct ? (in->weight & 0xffffffffULL) : in->weight;
			ins_lat = in->weight_struct ? memphis__bits(in->weight, 32, 16) : 0;
			if (weight)
				flags |= MEMPHISMOD_REC_WEIGHT;
			if (ins_lat)
				flags |= MEMPHISMOD_REC_INS_LAT;
		}
	}
	if ((flags & MEMPHISMOD_REC_ADDR) && (addr == 0 || addr >= in->user_top)) {
		addr = 0; /* only user addresses leave the module */
		flags &= ~MEMPHISMOD_REC_ADDR;
	}
	*r = (struct memphismod_record){
		.time = in->time,
		.ip = in->ip,
		.addr = addr,
		.data_src = data_src,
		.weight = weight,
		.pid = in->pid,
		.tid = in->tid,
		.cpu = in->cpu,
		.flags = flags,
		.ins_lat = (__u32)ins_lat,
	};
	return MEMPHISMOD_REC_KEEP;
}

#endif /* MEMPHIS_MEMPHISMOD_REC_H */
