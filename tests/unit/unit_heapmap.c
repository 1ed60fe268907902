/* tests/unit/unit_heapmap.c - the library's site map (lib/heapmap.c): a small block is known
 * when the latest record over each of its bytes is one from its chain, and no longer once
 * a record from another chain covers any of them (inside it, over its start), a large one
 * covers its pages, it asks for bytes no record of its chain covered, or a block 16 MiB
 * away takes a granule's word. TAP. */
#include <stdint.h>
#include <string.h>

#include "callsite.h"
#include "heapmap.h"
#include "memphis/format.h"

#include "tap.h"

#define A 0x7f0000123400ull
#define K1 0x401234ull
#define K2 0x405678ull

/* Note a record of size bytes at p whose chain is the one return address site. */
static void note(uint64_t p, uint64_t size, uint64_t site)
{
	struct memphis_rec_alloc r;

	memset(&r, 0, sizeof(r));
	r.addr = p;
	r.size = size;
	r.frames[0] = site;
	r.nframes = 1;
	memphis__heapmap_note(&r);
}

/* The key of the chain of one return address site. */
static uint64_t key(uint64_t site)
{
	struct memphis_rec_alloc r;

	memset(&r, 0, sizeof(r));
	r.frames[0] = site;
	r.nframes = 1;
	return memphis__callsite_key(&r);
}

int main(void)
{
	ok(!memphis__heapmap_known(A, 100, key(K1)), "heapmap: off: nothing known");
	ok(memphis__heapmap_init() == 0 && memphis__heapmap_on(), "heapmap: made");
	ok(!memphis__heapmap_known(A, 100, key(K1)), "heapmap: nothing noted: not known");

	note(A, 100, K1);
	ok(memphis__heapmap_known(A, 100, key(K1)), "heapmap: the block noted is known");
	ok(memphis__heapmap_known(A, 40, key(K1)), "heapmap: a smaller block at its address too");
	ok(!memphis__heapmap_known(A, 120, key(K1)), "heapmap: a larger one is not");
	ok(!memphis__heapmap_known(A, 100, key(K2)), "heapmap: nor one from another chain");
	ok(memphis__heapmap_known(A + 16, 16, key(K1)),
	   "heapmap: so is a block inside it from the same chain (its bytes are the chain's)");

	note(A + 64, 32, K2);
	ok(!memphis__heapmap_known(A, 100, key(K1)),
	   "heapmap: a later record from another chain inside its bytes ends it");
	ok(memphis__heapmap_known(A, 64, key(K1)), "heapmap: but not the bytes before that record");
	ok(memphis__heapmap_known(A + 64, 32, key(K2)), "heapmap: that record is known");

	note(A, 100, K1);
	note(A - 32, 48, K2);
	ok(!memphis__heapmap_known(A, 100, key(K1)), "heapmap: a later record over its start ends it");

	note(A, 100, K1);
	note(A + 0x2000, 4096, K2);
	ok(memphis__heapmap_known(A, 100, key(K1)), "heapmap: a large record on other pages does not");
	note(A - 0x3000, 0x10000, K2);
	ok(!memphis__heapmap_known(A, 100, key(K1)), "heapmap: a large record over its pages ends it");
	note(A, 100, K1);
	ok(memphis__heapmap_known(A, 100, key(K1)), "heapmap: noted again: known");

	note(A + (16ull << 20), 100, K1);
	ok(!memphis__heapmap_known(A, 100, key(K1)), "heapmap: a block 16 MiB away takes its words");
	ok(memphis__heapmap_known(A + (16ull << 20), 100, key(K1)), "heapmap: and is known");

	note(A + 8, 8, K1);
	ok(memphis__heapmap_known(A + 8, 8, key(K1)), "heapmap: an 8-byte block at an odd granule");
	note(A, 8, K2);
	ok(!memphis__heapmap_known(A + 8, 8, key(K1)),
	   "heapmap: its neighbour in the same granule ends it (both recorded again)");

	note(A + 0x4ff0, 4095, K1);
	ok(memphis__heapmap_known(A + 0x4ff0, 4095, key(K1)),
	   "heapmap: a block of 4,095 bytes over two pages");
	note(A + 0x6000, 8192, K2);
	ok(!memphis__heapmap_known(A + 0x4ff0, 4095, key(K1)),
	   "heapmap: a large record over its second page ends it");
	return tap_done();
}
