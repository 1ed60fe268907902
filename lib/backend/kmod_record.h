/* lib/backend/kmod_record.h - records of /dev/memphismod (include/memphis/memphismod.h)
 * into samples: the pure part of the kmod backend (kmod.c), kept apart so that unit tests
 * and fuzzers can feed it records byte by byte. Depends on no other object. */
#ifndef MEMPHIS_KMOD_RECORD_H
#define MEMPHIS_KMOD_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "insn.h"
#include "memphis/format.h"

struct memphis__kmod_sample {
	struct memphis_rec_sample s; /* time, sampled_ip, ip, tid, cpu, weight, data_src,
	                              * ins_lat (REC_INS_LAT, saturated at 16 bits), and for
	                              * event addresses addr + flags; region left 0 */
	uint32_t pid;
	uint64_t lost;               /* a LOST record: samples of s.tid dropped on s.cpu (then
	                              * s holds only time, tid and cpu) */
	int fault;                   /* a page-fault record: s.ip, s.addr (0: none), s.time,
	                              * s.tid, s.cpu */
	int throttled;               /* a sample at which the kernel throttled its event
	                              * (REC_THROTTLED): one throttle of thread s.tid */
	int has_regs;                /* regs valid: rebuild the address as the soft backend */
	uint64_t regs[MPH_NREGS];    /* lib/insn.h order */
};

/* Decode one record of `rec_size` bytes (the module's record_size from GET_VERSION; larger
 * than this library knows is fine, the rest is ignored). Records the library must never
 * use are refused: kernel instruction pointers (-EPERM), a CPU number >= ncpus or beyond
 * the 16-bit field, tid 0 (-ERANGE), rec_size below the first version (-EINVAL). A data
 * address from the event gives MPH_S_EXACT | MPH_S_HWADDR (user addresses only, else
 * MPH_S_NOADDR), plus MPH_S_REMOTE_HW / MPH_S_LOAD / MPH_S_STORE from a data source
 * (union perf_mem_data_src, include/memphis/hwdecode.h); a data source without an address
 * gives MPH_S_NOADDR plus those; without address, data source and registers the sample is
 * MPH_S_NOADDR | MPH_S_NOPRED. A record of the first version (192 bytes) reads as if its
 * appended fields (ins_lat) were 0. A LOST record (ip 0) sets lost (> 0; a count of 0 is
 * refused, -EINVAL), a FAULT record sets
 * fault (a kernel data address reads as none); a sample with REC_THROTTLED sets throttled.
 * Returns 0 and fills *out. Pure: no system calls, no allocation. */
int memphis__kmod_decode(const void *rec, size_t rec_size, uint32_t ncpus,
			 struct memphis__kmod_sample *out);

#endif /* MEMPHIS_KMOD_RECORD_H */
