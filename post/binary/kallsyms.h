/* post/binary/kallsyms.h - kernel functions by address (issue 41 item 1): the text symbols of
 * /proc/kallsyms, for the kernel instructions of samples taken in the kernel.
 *
 * Addresses hold only in the boot that ran the program (the kernel's base moves at every
 * boot): the report reads them only when the run's boot id is the machine's. Without root
 * (kernel.kptr_restrict) the file lists every address as 0: then nothing is loaded.
 */
#ifndef MR_KALLSYMS_H
#define MR_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

struct mr_ksym {
	uint64_t addr;
	uint32_t name;  /* offset into names */
};

struct mr_kallsyms {
	struct mr_ksym *sym; /* text symbols, by address */
	size_t n;
	char *names;
	size_t names_len;
	size_t sym_cap, names_cap; /* their allocations (mph_big_alloc_nofork) */
	void *map;                 /* else the cache file mapped, map_len bytes, holds them */
	size_t map_len;
};

/* Load the text symbols (types t, T, w, W) of a kallsyms file at path, a compiler clone's
 * name by its function's (demangle.h). 0; -ENOENT when it lists no address (unreadable, or
 * every address 0); -errno otherwise. *k is empty on failure. */
int mr_kallsyms_load(struct mr_kallsyms *k, const char *path);
void mr_kallsyms_free(struct mr_kallsyms *k);

/* mr_kallsyms_load(k, path) through the cache file at cache (NULL: none): its copy of the
 * symbols when it was written under the same key, else path loaded and the copy written
 * (replaced through a rename; a failure to write is no error). Reading /proc/kallsyms is
 * half of a small report's CPU time (the kernel makes its 12 MB of text as it is read);
 * its copy takes a millisecond. The key stands for what the file holds: the caller's
 * hash of the boot id and the loaded modules (mr_kallsyms_key). A copy is taken only from
 * a regular file of this user, not writable by others, whose size, order and checksum
 * hold: any other is read past. The return values are mr_kallsyms_load's. */
int mr_kallsyms_load_cached(struct mr_kallsyms *k, const char *path, const char *cache,
			    uint64_t key);

/* The cache key of kallsyms in this boot: a hash of boot_id and of each module's name,
 * size and address in the modules file at modules (/proc/modules; missing: none loaded).
 * The text symbols of BPF programs and trampolines come and go with no module: a copy
 * keeps those of the time it was read, as a report read after the run does. */
uint64_t mr_kallsyms_key(const char *boot_id, const char *modules);

/* The index of the function holding kernel address ip (the last symbol at or below it),
 * or -1 when none (below the first, or nothing loaded). */
long mr_kallsyms_find(const struct mr_kallsyms *k, uint64_t ip);

/* A caller's answers of mr_kallsyms_find, direct-mapped by address; zero-initialised is
 * empty. A run's kernel samples have hundreds of addresses (cg -i 900: 405, which 256
 * slots held only half of), each a search of 100 k symbols (cache misses) without it. */
#define MR_KALLSYMS_CACHE_BITS 12
struct mr_kallsyms_cache {
	struct mr_kallsyms_slot {
		uint64_t ip;
		long found1;    /* mr_kallsyms_find's answer + 1; 0: none kept */
	} slot[1u << MR_KALLSYMS_CACHE_BITS];
};

/* mr_kallsyms_find(k, ip), through c (one caller's: not shared between threads). */
long mr_kallsyms_find_cached(const struct mr_kallsyms *k, struct mr_kallsyms_cache *c,
			     uint64_t ip);

/* The name of symbol i (mr_kallsyms_find's). */
const char *mr_kallsyms_name(const struct mr_kallsyms *k, size_t i);

#endif /* MR_KALLSYMS_H */
