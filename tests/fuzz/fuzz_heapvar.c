/* tests/fuzz/fuzz_heapvar.c - libFuzzer entry for the store analysis after an allocation call
 * (post/binary/heapvar.c, mr_heapvar_scan and mr_heapvar_arg): the code it decodes comes from
 * the profiled program's files, so any bytes. Input: two bytes, the return address's offset
 * into the code (little endian, modulo its length), then the code, whose start is the
 * function's. Checks, besides ASan/UBSan: no more events than room was given, every REG
 * event's range [pc, end) ordered, every store and return event inside the code, every
 * path within its steps; the argument registers' paths likewise. Built by `make fuzz`, run
 * by t_fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>

#include "binary/heapvar.h"

#define BASE 0x400000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mr_hv_event ev[MR_HV_MAX_EVENTS];
	size_t len, n, at;

	if (size < 3)
		return 0;
	len = size - 2;
	at = ((size_t)data[0] | (size_t)data[1] << 8) % len;
	n = mr_heapvar_scan(data + 2, len, BASE, BASE, BASE + at, ev, MR_HV_MAX_EVENTS);
	if (n > MR_HV_MAX_EVENTS)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (ev[i].kind == MR_HV_REG && ev[i].end < ev[i].pc)
			abort();
		if (ev[i].kind != MR_HV_REG && (ev[i].pc < BASE || ev[i].pc >= BASE + len))
			abort();
		if (ev[i].kind == MR_HV_PATH &&
		    (!ev[i].path.nstep || ev[i].path.nstep > MR_HV_MAX_STEPS))
			abort();
	}
	for (int reg = 0; reg < 16; reg++) {
		struct mr_hv_path p;
		int addr_of;

		if (mr_heapvar_arg(data + 2, len, BASE, BASE, BASE + at, reg, &p, &addr_of) == 0 &&
		    (!p.nstep || p.nstep > MR_HV_MAX_STEPS))
			abort();
	}
	return 0;
}
