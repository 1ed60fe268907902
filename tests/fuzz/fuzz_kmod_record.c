/* tests/fuzz/fuzz_kmod_record.c - libFuzzer entry for the decoder of /dev/memphismod records
 * (memphis__kmod_decode, lib/backend/kmod_record.h): records come from a kernel module that
 * may be newer, older or broken. The input's first byte picks the record size the module announced
 * (192 + 0..63 bytes: VER0 and larger, as the decoder must ignore what it does not know;
 * or a size below VER0, which it must refuse), the second the CPU count; the rest is the
 * record (zero-padded). Checks, besides ASan/UBSan: refused records leave no sample
 * behind that looks valid, and accepted ones keep the promises of lib/backend/kmod_record.h
 * (user IPs, cpu < ncpus, tid != 0, user data addresses only; a LOST record: a count, no
 * sample). Built by `make fuzz` from the decoder's
 * source alone (FUZZ_kmod_record_SRCS in the Makefile), run by t_fuzz.sh. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kmod_record.h"
#include "memphis/hwdecode.h"
#include "memphis/memphismod.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct memphis__kmod_sample out;
	size_t rec_size;
	uint32_t ncpus;
	uint8_t *rec;
	int rc;

	if (size < 2)
		return 0;
	rec_size = data[0] < 0xf0 ? MEMPHISMOD_RECORD_SIZE_VER0 + (data[0] & 63) : data[0] & 0x7f;
	ncpus = data[1] ? data[1] : 65536 + 1;
	/* exactly rec_size bytes on the heap, so ASan sees any read past the record */
	rec = calloc(1, rec_size ? rec_size : 1);
	if (!rec)
		return 0;
	memcpy(rec, data + 2, size - 2 < rec_size ? size - 2 : rec_size);
	rc = memphis__kmod_decode(rec, rec_size, ncpus, &out);
	if (rc == 0 && out.lost) {
		/* a LOST record: a count for a thread and CPU, no sample */
		if (rec_size < MEMPHISMOD_RECORD_SIZE_VER0 || out.s.ip || out.s.flags || out.fault ||
		    out.s.cpu >= ncpus || out.s.tid == 0)
			abort();
	} else if (rc == 0) {
		/* a user instruction; ip is it, or 0 where it is not the op's (IBS RipInvalid) */
		if (rec_size < MEMPHISMOD_RECORD_SIZE_VER0 || out.s.sampled_ip == 0 ||
		    out.s.sampled_ip >= MEMPHIS_USER_ADDR_END ||
		    (out.s.ip != 0 && out.s.ip != out.s.sampled_ip) || out.s.cpu >= ncpus ||
		    out.s.tid == 0)
			abort();
		if ((out.s.flags & MPH_S_EXACT) && out.s.addr >= MEMPHIS_USER_ADDR_END)
			abort();
	} else if (rc != -EINVAL && rc != -EPERM && rc != -ERANGE) {
		abort();
	}
	free(rec);
	return 0;
}
