/* lib/heapmap.c - the site map (contract in heapmap.h).
 *
 * One 8-byte word per 16-byte granule of address, direct-mapped (the granule number modulo
 * 2^20: 16 MiB of address before two granules share a word), naming the chain of the small
 * block noted last over that granule: the chain's key mixed, plus the granule number (bits
 * 0-47), and the epoch of the granule's page then (bits 48-63). A page's epoch (65,536
 * counters, direct-mapped by page number) counts the records of 4 KiB or more noted over
 * it. A block is known when every granule it covers holds the word its chain would write
 * there now: the latest record over each of its bytes is then one of its chain, and the
 * report names the bytes by that chain whatever block it recorded (post/run/heap.h: the
 * latest record covering an address). A granule sharing its word with another (16 MiB
 * away), or notes racing over one word, only make a block unknown (recorded again), but
 * for a 48-bit coincidence; a wrapped epoch (65,536 large records over one page between
 * two small allocations there) may leave a block named by the chain that had it before.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "callsite.h"
#include "heap.h"
#include "heapmap.h"
#include "memphis/format.h"
#include "self.h"

#define SLOT_BITS 20u
#define EPOCH_BITS 16u
#define LOW48 ((1ull << 48) - 1)

static uint64_t *slots;
static uint32_t *epochs;

int memphis__heapmap_init(void)
{
	if (slots)
		return 0;
	epochs = memphis__map_anon(sizeof(*epochs) << EPOCH_BITS);
	slots = epochs ? memphis__map_anon(sizeof(*slots) << SLOT_BITS) : NULL;
	if (!slots) {
		if (epochs)
			syscall(SYS_munmap, epochs, sizeof(*epochs) << EPOCH_BITS);
		epochs = NULL;
		return -ENOMEM;
	}
	return 0;
}

int memphis__heapmap_on(void)
{
	return slots != NULL;
}

/* The epoch of page pg, in a word's bits. */
static uint64_t epoch_bits(uint64_t pg)
{
	return (uint64_t)(__atomic_load_n(&epochs[pg & ((1u << EPOCH_BITS) - 1)], __ATOMIC_RELAXED) &
			  0xffffu) << 48;
}

/* A chain's key mixed: 47 bits, so that adding a granule number (under 2^44) stays in 48. */
static uint64_t key_bits(uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (h ^ h >> 29) & (LOW48 >> 1);
}

/* Each granule g of [p, p + size) (size 0: one byte) and its word now, k + g and the epoch
 * of its page: with `set`, written; else 1 when every granule holds its word, 0 at the
 * first that does not. A page's 256 granules have consecutive words in consecutive slots
 * (2^SLOT_BITS is a multiple of 256). */
static inline int walk(uint64_t p, uint64_t size, uint64_t k, int set)
{
	uint64_t g = p >> 4, last = (p + (size ? size : 1) - 1) >> 4;

	while (g <= last) {
		uint64_t end = (g | 255) < last ? (g | 255) : last;
		uint64_t word = (k + g) | epoch_bits(g >> 8);
		uint64_t *slot = &slots[g & ((1u << SLOT_BITS) - 1)], *stop = slot + (end - g);

		for (;; slot++, word++) {
			if (set)
				__atomic_store_n(slot, word, __ATOMIC_RELAXED);
			else if (__atomic_load_n(slot, __ATOMIC_RELAXED) != word)
				return 0;
			if (slot == stop)
				break;
		}
		g = end + 1;
	}
	return 1;
}

int memphis__heapmap_known(uint64_t p, uint64_t size, uint64_t key)
{
	return slots && walk(p, size, key_bits(key), 0);
}

void memphis__heapmap_note(const struct memphis_rec_alloc *r)
{
	uint64_t p = r->addr;

	if (!slots || !p)
		return;
	if (r->size < MEMPHIS__HEAP_SAMPLE_BELOW) {
		walk(p, r->size, key_bits(memphis__callsite_key(r)), 1);
	} else {
		uint64_t first = p >> 12, last = (p + r->size - 1) >> 12;

		if (last - first >= 1u << EPOCH_BITS)
			last = first + (1u << EPOCH_BITS) - 1;
		for (uint64_t pg = first; pg <= last; pg++)
			__atomic_add_fetch(&epochs[pg & ((1u << EPOCH_BITS) - 1)], 1, __ATOMIC_RELAXED);
	}
}
