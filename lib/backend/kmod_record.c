/* lib/backend/kmod_record.c - one record of /dev/memphismod into a sample (contract in
 * kmod_record.h). Pure: no system calls, no allocation, no state. */
#include <errno.h>
#include <string.h>

#include "kmod_record.h"
#include "memphis/hwdecode.h"
#include "memphis/memphismod.h"

int memphis__kmod_decode(const void *rec, size_t size, uint32_t n_cpus,
			 struct memphis__kmod_sample *out)
{
	struct memphismod_record r;
	uint16_t hw_flags = 0;

	if (size < MEMPHISMOD_RECORD_SIZE_VER0)
		return -EINVAL;
	/* a module of the first version writes 192 bytes: the appended fields read 0 */
	memset(&r, 0, sizeof(r));
	memcpy(&r, rec, size < sizeof(r) ? size : sizeof(r));
	memset(out, 0, sizeof(*out));
	if (r.cpu >= n_cpus || r.cpu > UINT16_MAX || r.tid == 0)
		return -ERANGE;
	if ((r.flags & MEMPHISMOD_REC_LOST) && !(r.flags & MEMPHISMOD_REC_KERNEL)) {
		if (r.weight == 0) /* a count of nothing: no module writes it */
			return -EINVAL;
		out->pid = r.pid;
		out->s.time = r.time;
		out->s.tid = r.tid;
		out->s.cpu = (uint16_t)r.cpu;
		out->lost = r.weight;
		return 0;
	}
	if ((r.flags & MEMPHISMOD_REC_KERNEL) || r.ip >= MEMPHIS_USER_ADDR_END || r.ip == 0)
		return -EPERM;
	out->pid = r.pid;
	out->s.time = r.time;
	out->s.sampled_ip = r.ip;
	/* an IBS op whose RIP was invalid: where the CPU was, not the op (as ibs.c does) */
	out->s.ip = (r.flags & MEMPHISMOD_REC_IP_INEXACT) ? 0 : r.ip;
	out->s.tid = r.tid;
	out->s.cpu = (uint16_t)r.cpu;
	out->s.weight = 1;
	out->s.flags = MPH_S_NOADDR | MPH_S_NOPRED;
	if (r.flags & MEMPHISMOD_REC_FAULT) {
		out->fault = 1;
		out->s.addr = (r.flags & MEMPHISMOD_REC_ADDR) && r.addr < MEMPHIS_USER_ADDR_END ? r.addr : 0;
		return 0;
	}
	out->throttled = (r.flags & MEMPHISMOD_REC_THROTTLED) != 0;
	if (r.flags & MEMPHISMOD_REC_WEIGHT)
		out->s.weight = r.weight > UINT32_MAX ? UINT32_MAX : (uint32_t)r.weight;
	if (r.flags & MEMPHISMOD_REC_INS_LAT)
		out->s.ins_lat = r.ins_lat > UINT16_MAX ? UINT16_MAX : (uint16_t)r.ins_lat;
	if (r.flags & MEMPHISMOD_REC_DATA_SRC) {
		struct memphis_hw_access a = { 0 };

		out->s.data_src = r.data_src;
		memphis_mem_src_decode(r.data_src, &a);
		hw_flags = (uint16_t)((a.remote ? MPH_S_REMOTE_HW : 0) | (a.is_load ? MPH_S_LOAD : 0) |
				      (a.is_store ? MPH_S_STORE : 0));
	}
	if (r.flags & MEMPHISMOD_REC_ADDR) {
		/* the event names the access itself: no predecessor search */
		if (r.addr < MEMPHIS_USER_ADDR_END) {
			out->s.addr = r.addr;
			out->s.flags = MPH_S_EXACT | MPH_S_HWADDR | hw_flags;
		} else {
			out->s.flags = MPH_S_NOADDR | hw_flags;
		}
	} else if (r.flags & MEMPHISMOD_REC_REGS) {
		out->has_regs = 1;
		memcpy(out->regs, r.regs, sizeof(out->regs));
	} else if (r.flags & MEMPHISMOD_REC_DATA_SRC) {
		/* a hardware sample of a memory op without a valid address: ip is exact */
		out->s.flags = MPH_S_NOADDR | hw_flags;
	}
	return 0;
}
