/* lib/code.c - struct memphis__code, where code lies: the executable mappings of this
 * process, the FUNC symbols of their ELF files and the code bytes, read without touching
 * them. lib/code_ip.c builds the per-IP answers on top (contract in lib/insn.h).
 *
 * Runs in the drain thread of the profiled process: never prints, never exits, never
 * dereferences a code pointer (bytes come through process_vm_readv, so an unmapped IP
 * only costs a failed read), and reports every failure as NOPRED|NOADDR.
 *
 * Caches, each bounded (CODE_* below); when one is full it is emptied and refilled:
 *   maps      executable lines of /proc/self/maps, re-read when an IP is in none of them;
 *   modules   per mapped ELF file and load bias: FUNC symbols sorted by address;
 *   funcs     per function: one linear sweep (struct memphis__sweep);
 *   ips       per sampled IP: (predecessor, decoded predecessor), open addressing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "memphis/format.h"
#include "insn.h"
#include "code.h"
#include "fd.h"
#include "io.h"
#include "maps.h"
#include "search.h"

/* ---- reading code bytes ------------------------------------------------------------- */

struct pipe_read {
	struct memphis__code *c;
	uint64_t addr;
	uint8_t *buf;
	size_t n;
};

/* Copy up to n bytes at address `addr` of this process into buf through a pipe: write(2)
 * from an unmapped address fails with EFAULT instead of faulting. Used only where
 * process_vm_readv is refused (seccomp, old kernels). Run in the I/O thread (io.h), whose
 * table holds the pipe. Returns the bytes copied. */
static long read_code_pipe(void *arg)
{
	struct pipe_read *pr = arg;
	struct memphis__code *c = pr->c;
	uint64_t addr = pr->addr;
	uint8_t *buf = pr->buf;
	size_t n = pr->n, done = 0;

	if (c->pipefd[0] >= 0 && (!memphis__fd_ours(&c->pipefd[0], &c->pipeid[0], NULL) ||
				  !memphis__fd_ours(&c->pipefd[1], &c->pipeid[1], NULL))) {
		/* the program closed an end: forget both, never write to its descriptor */
		memphis__fd_close(&c->pipefd[0], &c->pipeid[0]);
		memphis__fd_close(&c->pipefd[1], &c->pipeid[1]);
	}
	if (c->pipefd[0] < 0 && memphis__pipe(c->pipefd, c->pipeid) < 0)
		return 0;
	while (done < n) {
		size_t chunk = n - done < 4096 ? n - done : 4096;
		ssize_t w = memphis__write_pipe(c->pipefd[1], (const void *)(uintptr_t)(addr + done),
						chunk);
		ssize_t r;

		if (w <= 0)
			break;
		r = read(c->pipefd[0], buf + done, (size_t)w);
		if (r != w) {
			/* should not happen; start over with a fresh pipe next time */
			memphis__fd_close(&c->pipefd[0], &c->pipeid[0]);
			memphis__fd_close(&c->pipefd[1], &c->pipeid[1]);
			return 0;
		}
		done += (size_t)w;
		if ((size_t)w < chunk)
			break;
	}
	return (long)done;
}

/* Contract in code.h. */
size_t memphis__code_read(struct memphis__code *c, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)(uintptr_t)addr, n };
	ssize_t r;

	if (!n)
		return 0;
	if (!c->vm_readv_refused) {
		r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (r > 0)
			return (size_t)r;
		if (r == 0 || (errno != ENOSYS && errno != EPERM))
			return 0;
		c->vm_readv_refused = 1;
	}
	struct pipe_read pr = { c, addr, buf, n };

	return (size_t)memphis__io_read(read_code_pipe, &pr);
}

/* ---- /proc/self/maps ---------------------------------------------------------------- */

/* Free the map list. */
static void maps_clear(struct memphis__code *c)
{
	for (uint32_t i = 0; i < c->nmaps; i++)
		free(c->maps[i].path);
	free(c->maps);
	c->maps = NULL;
	c->nmaps = 0;
}

/* Keep one line of /proc/self/maps in *m if it maps code. Returns 1 (kept), 0 (skipped)
 * or -ENOMEM. */
static int parse_map_line(const char *line, const char *eol, struct map *m)
{
	struct mph_mapping l;

	memset(m, 0, sizeof(*m));
	m->module = MOD_UNKNOWN;
	if (!mph_maps_parse_line(line, eol, &l) || l.perms[2] != 'x')
		return 0;
	m->start = l.start;
	m->end = l.end;
	m->offset = l.offset;
	m->inode = l.inode;
	m->dev_major = l.dev_major;
	m->dev_minor = l.dev_minor;
	if (l.path_len && l.path[0] == '/' && l.inode) {
		m->path = malloc(l.path_len + 1);
		if (!m->path)
			return -ENOMEM;
		memcpy(m->path, l.path, l.path_len);
		m->path[l.path_len] = '\0';
	}
	return m->start < m->end;
}

/* Re-read the executable mappings. Module links are rebuilt lazily. Returns 0 or -errno
 * (the old list is gone either way). */
static int maps_refresh(struct memphis__code *c)
{
	char *text = memphis__slurp("/proc/self/maps"), *line;
	uint32_t cap = 0;
	int err = 0;

	maps_clear(c);
	c->st.maps_reads++;
	if (!text)
		return -EIO;
	for (line = text; *line && c->nmaps < CODE_MAPS_MAX;) {
		char *eol = strchr(line, '\n');
		struct map m;
		int r;

		if (!eol)
			eol = line + strlen(line);
		r = parse_map_line(line, eol, &m);
		if (r < 0) {
			err = r;
			break;
		}
		if (r > 0) {
			if (c->nmaps == cap) {
				uint32_t ncap = cap ? cap * 2 : 64;
				struct map *p = realloc(c->maps, ncap * sizeof(*p));

				if (!p) {
					free(m.path);
					err = -ENOMEM;
					break;
				}
				c->maps = p;
				cap = ncap;
			}
			c->maps[c->nmaps++] = m;
		}
		line = *eol ? eol + 1 : eol;
	}
	free(text);
	return err;
}

/* Contract in code.h. */
struct map *memphis__code_map_find(struct memphis__code *c, uint64_t ip)
{
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 0; i < c->nmaps; i++)
			if (ip >= c->maps[i].start && ip < c->maps[i].end)
				return &c->maps[i];
		if (pass == 0 && maps_refresh(c) < 0 && !c->nmaps)
			return NULL;
	}
	return NULL;
}

/* ---- ELF symbols -------------------------------------------------------------------- */

static void module_release(struct module *m)
{
	free(m->path);
	free(m->syms);
}

static void modules_clear(struct memphis__code *c)
{
	for (uint32_t i = 0; i < c->nmodules; i++)
		module_release(&c->modules[i]);
	free(c->modules);
	c->modules = NULL;
	c->nmodules = 0;
	c->sym_bytes = 0;
	for (uint32_t i = 0; i < c->nmaps; i++)
		c->maps[i].module = MOD_UNKNOWN;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->size < y->size) - (x->size > y->size); /* larger first */
}

/* Collect the FUNC symbols of section `scn` (a SHT_SYMTAB or SHT_DYNSYM) into a sorted,
 * deduplicated malloc'd array. Size-0 symbols extend to the next symbol. Returns the
 * count (0: none, *out NULL) or -ENOMEM / -E2BIG (over the budget left). */
static long read_syms(Elf_Scn *scn, const GElf_Shdr *sh, size_t budget, struct sym **out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n, k = 0, w = 0;
	struct sym *s;

	*out = NULL;
	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	if (n * sizeof(*s) > budget)
		return -E2BIG;
	s = malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym gs;
		int t;

		if (!gelf_getsym(data, (int)i, &gs))
			continue;
		t = GELF_ST_TYPE(gs.st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || gs.st_shndx == SHN_UNDEF ||
		    !gs.st_value)
			continue;
		s[k].addr = gs.st_value;
		s[k].size = gs.st_size;
		k++;
	}
	if (!k) {
		free(s);
		return 0;
	}
	qsort(s, k, sizeof(*s), sym_cmp);
	for (size_t i = 0; i < k; i++) {
		if (w && s[w - 1].addr == s[i].addr)
			continue; /* alias: the larger extent came first */
		s[w++] = s[i];
	}
	for (size_t i = 0; i < w; i++)
		if (!s[i].size && i + 1 < w)
			s[i].size = s[i + 1].addr - s[i].addr;
	*out = s;
	return (long)w;
}

/* Load bias of mapping m of a file whose PT_LOAD segments are segs[0..n): the segment
 * holding file offset m->offset maps it at m->start. Returns 0 and sets *bias, or -ENOENT. */
static int seg_bias(const struct seg *segs, unsigned n, const struct map *m, uint64_t *bias)
{
	long psz = sysconf(_SC_PAGESIZE);

	if (psz <= 0)
		psz = 4096;
	for (unsigned i = 0; i < n; i++) {
		uint64_t lo = segs[i].off & ~((uint64_t)psz - 1);

		if (m->offset >= lo && m->offset < segs[i].off + segs[i].filesz) {
			*bias = m->start - m->offset - (segs[i].vaddr - segs[i].off);
			return 0;
		}
	}
	return -ENOENT;
}

/* Is the open file fd (fstat *st) the one mapped at m? The same device and inode says
 * yes; where they differ (overlayfs reports the lower layer's in maps, the overlay's to
 * fstat) the bytes of a page in the middle of the mapping must equal the file's. */
static int file_is_mapped(struct memphis__code *c, int fd, const struct stat *st,
			  const struct map *m)
{
	uint8_t mem[512], file[512];
	uint64_t len = m->end - m->start, off = (len / 2) & ~(uint64_t)4095;
	size_t n = len - off < sizeof(mem) ? (size_t)(len - off) : sizeof(mem);

	if (st->st_ino == m->inode && major(st->st_dev) == m->dev_major &&
	    minor(st->st_dev) == m->dev_minor)
		return 1;
	return n && memphis__code_read(c, m->start + off, mem, n) == n &&
	       pread(fd, file, n, (off_t)(m->offset + off)) == (ssize_t)n &&
	       !memcmp(mem, file, n);
}

/* Open the ELF file behind mapping m, compute the load bias from the PT_LOAD holding
 * m->offset and read its FUNC symbols (.symtab, else .dynsym) into *mod. Returns 0, or
 * -errno when the file cannot be used (then the vote is the fallback). */
static int module_load_here(struct memphis__code *c, const struct map *m, struct module *mod)
{
	size_t phnum, budget;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh_symtab, sh_dynsym;
	struct memphis__fdid id;
	struct stat st;
	int fd, err = -ENOENT;
	Elf *elf;
	long n = 0;

	memset(mod, 0, sizeof(*mod));
	fd = memphis__open(m->path, O_RDONLY, &id);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || !file_is_mapped(c, fd, &st, m)) {
		err = -ESTALE; /* replaced on disk since it was mapped */
		goto out_close;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		err = -EINVAL;
		goto out_close;
	}
	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64 ||
	    elf_getphdrnum(elf, &phnum) != 0) {
		err = -EINVAL;
		goto out_end;
	}
	for (size_t i = 0; i < phnum && mod->nsegs < CODE_SEGS_MAX; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		mod->segs[mod->nsegs].off = ph.p_offset;
		mod->segs[mod->nsegs].filesz = ph.p_filesz;
		mod->segs[mod->nsegs].vaddr = ph.p_vaddr;
		mod->nsegs++;
	}
	if (seg_bias(mod->segs, mod->nsegs, m, &mod->bias) < 0) {
		err = -ENOENT;
		goto out_end;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			sh_symtab = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			sh_dynsym = sh;
		}
	}
	budget = CODE_SYM_BYTES - c->sym_bytes;
	if (symtab)
		n = read_syms(symtab, &sh_symtab, budget, &mod->syms);
	if (n <= 0 && n != -ENOMEM && dynsym)
		n = read_syms(dynsym, &sh_dynsym, budget, &mod->syms);
	if (n <= 0) {
		err = n < 0 ? (int)n : -ENOENT;
		goto out_end;
	}
	mod->nsyms = (size_t)n;
	mod->inode = m->inode;
	mod->path = strdup(m->path);
	if (!mod->path) {
		free(mod->syms);
		mod->syms = NULL;
		err = -ENOMEM;
		goto out_end;
	}
	c->sym_bytes += mod->nsyms * sizeof(*mod->syms);
	err = 0;
out_end:
	elf_end(elf);
out_close:
	memphis__fd_close(&fd, &id);
	return err;
}

struct module_call {
	struct memphis__code *c;
	const struct map *m;
	struct module *mod;
};

static long module_load_io(void *arg)
{
	struct module_call *mc = arg;

	return module_load_here(mc->c, mc->m, mc->mod);
}

/* module_load_here in the I/O thread (io.h), which holds the file's descriptor. */
static int module_load(struct memphis__code *c, const struct map *m, struct module *mod)
{
	struct module_call mc = { c, m, mod };

	return (int)memphis__io_read(module_load_io, &mc);
}

/* Contract in code.h. */
struct module *memphis__code_map_module(struct memphis__code *c, struct map *m)
{
	struct module mod, *p;

	if (m->module >= 0)
		return &c->modules[m->module];
	if (m->module == MOD_NONE || !m->path || !c->elf_ok)
		return NULL;
	m->module = MOD_NONE;
	/* Another mapping of the same file at the same bias (text and its other segments,
	 * or the same text after a maps refresh) shares the symbols. */
	for (uint32_t i = 0; i < c->nmodules; i++) {
		struct module *o = &c->modules[i];
		uint64_t bias;

		if (o->inode == m->inode && !strcmp(o->path, m->path) &&
		    seg_bias(o->segs, o->nsegs, m, &bias) == 0 && bias == o->bias) {
			m->module = (int)i;
			return o;
		}
	}
	if (c->nmodules >= CODE_MODULES_MAX || module_load(c, m, &mod) < 0) {
		c->st.modules_bad++;
		return NULL;
	}
	c->st.modules++;
	p = realloc(c->modules, (c->nmodules + 1) * sizeof(*p));
	if (!p) {
		c->sym_bytes -= mod.nsyms * sizeof(*mod.syms);
		module_release(&mod);
		return NULL;
	}
	c->modules = p;
	c->modules[c->nmodules] = mod;
	m->module = (int)c->nmodules++;
	return &c->modules[m->module];
}

/* Contract in code.h. */
int memphis__code_module_func(const struct module *mod, uint64_t ip, uint64_t *start,
			      uint64_t *size)
{
	uint64_t v = ip - mod->bias;
	size_t lo = mph_upper_bound(mod->syms, mod->nsyms, sizeof(mod->syms[0]),
				    offsetof(struct sym, addr), v);

	/* lo - 1 is the last symbol at or below v; a few earlier ones may still enclose v
	 * (nested or overlapping symbols). */
	for (size_t i = lo, k = 0; i > 0 && k < 4; i--, k++) {
		const struct sym *s = &mod->syms[i - 1];

		if (v - s->addr < s->size) {
			*start = s->addr + mod->bias;
			*size = s->size;
			return 1;
		}
	}
	return 0;
}

/* Contract in code.h. */
void memphis__code_forget_files(struct memphis__code *c)
{
	modules_clear(c);
	maps_clear(c);
}
