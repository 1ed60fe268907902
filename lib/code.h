/* lib/code.h - the inside of struct memphis__code (contract in insn.h), shared by its two
 * halves: code.c finds where code lies (executable mappings, ELF symbols, code bytes read
 * safely) and code_ip.c answers per sampled IP (function sweeps, the IP table). Nothing
 * outside these two files includes this header. */
#ifndef MEMPHIS_CODE_H
#define MEMPHIS_CODE_H

#include <stddef.h>
#include <stdint.h>

#include "fd.h"
#include "insn.h"

#define CODE_IPS_MIN     4096u          /* initial slots of the IP table */
#define CODE_IPS_MAX     (1u << 16)     /* slots at most (48 B each: 3 MiB) */
#define CODE_FUNCS_SLOTS 2048u          /* function table slots */
#define CODE_FUNCS_MAX   1024u          /* functions kept at most */
#define CODE_SWEEP_BYTES (16u << 20)    /* sweep arrays kept at most */
#define CODE_MODULES_MAX 256u           /* ELF files with symbols */
#define CODE_SYM_BYTES   (32u << 20)    /* symbol arrays kept at most */
#define CODE_MAPS_MAX    4096u          /* executable mappings */
#define CODE_FUNC_MAX    MEMPHIS__SWEEP_MAX /* larger functions use the vote */
#define CODE_VOTE_BYTES  64u
#define CODE_USER_END    (1ull << 47)   /* user space ends here (4-level paging) */

enum { MOD_UNKNOWN = -1, MOD_NONE = -2 }; /* struct map.module when not an index */

struct map {
	uint64_t start, end, offset, inode;
	unsigned dev_major, dev_minor;
	int module;  /* index in modules[], MOD_UNKNOWN (not looked at yet), MOD_NONE */
	char *path;  /* NULL for anonymous and [special] mappings */
};

struct sym {
	uint64_t addr, size; /* link-time virtual address and extent */
};

struct seg {
	uint64_t off, filesz, vaddr; /* a PT_LOAD segment */
};

#define CODE_SEGS_MAX 16

struct module {
	char *path;
	uint64_t inode, bias;
	struct seg segs[CODE_SEGS_MAX];
	unsigned nsegs;
	struct sym *syms;
	size_t nsyms;
};

struct func {
	uint64_t start;        /* 0: empty slot */
	struct memphis__sweep sweep;
};

struct ipent {
	uint64_t ip;           /* sampled IP, 0: empty slot */
	uint64_t pred;         /* its predecessor, 0: none (flags NOPRED|NOADDR) */
	struct memphis__insn insn;
	uint8_t second;        /* a rep string instruction with two memory operands: the next
	                        * sample stands for the other one (they take turns) */
};

struct memphis__code {
	struct ipent *ips;
	uint32_t ips_cap, ips_used;
	struct func *funcs;
	uint32_t funcs_used;
	size_t sweep_bytes;
	struct map *maps;
	uint32_t nmaps;
	struct module *modules;
	uint32_t nmodules;
	size_t sym_bytes;
	uint8_t *scratch;      /* function bytes while sweeping */
	size_t scratch_cap;
	int elf_ok;            /* elf_version() accepted */
	int vm_readv_refused;  /* process_vm_readv said EPERM/ENOSYS: read through a pipe */
	int pipefd[2];         /* that pipe, -1 until needed; in the I/O thread (io.h) */
	struct memphis__fdid pipeid[2];
	struct memphis__code_stats st;
};

/* Copy up to n bytes at address `addr` of this process into buf without touching them
 * directly (process_vm_readv, or a pipe where that is refused). Returns the number of
 * bytes copied (less than n at an unmapped page), 0 on failure. */
size_t memphis__code_read(struct memphis__code *c, uint64_t addr, void *buf, size_t n);

/* The cached executable mapping holding ip, re-reading /proc/self/maps once on a miss;
 * NULL when ip is in no executable mapping. The pointer is valid until the next call. */
struct map *memphis__code_map_find(struct memphis__code *c, uint64_t ip);

/* The module (symbols) for mapping m, loading it on first use. NULL when the mapping
 * has no usable symbols (anonymous, [vdso], stripped, deleted, budget spent). */
struct module *memphis__code_map_module(struct memphis__code *c, struct map *m);

/* Find the function containing ip in mod: sets [*start, *start + *size) (run-time
 * addresses). Returns 1 if found, else 0. */
int memphis__code_module_func(const struct module *mod, uint64_t ip, uint64_t *start,
			      uint64_t *size);

/* Forget every mapping and module (symbols); they are re-read on demand. */
void memphis__code_forget_files(struct memphis__code *c);

#endif /* MEMPHIS_CODE_H */
