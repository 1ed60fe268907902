/* post/binary/debuginfo_elf.c - what the ELF headers and symbol tables say: PT_LOAD/PT_TLS
 * segments (and the code bytes of the executable ones), the build-id, FUNC symbols
 * (function names where DWARF has none) and OBJECT/TLS symbols (variables where DWARF has
 * none). */
#include "debuginfo_impl.h"
#include "demangle.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "base/infile.h"
#include "base/radix.h"
#include "hash.h"
#include "search.h"

/* ---- ELF ---- */

/* Parse the NT_GNU_BUILD_ID note of one PT_NOTE segment into d->build_id, if it has one. */
static void read_build_id(struct mr_debuginfo *d, Elf *elf, const GElf_Phdr *ph)
{
	Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz,
					      ELF_T_NHDR);
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	if (!data)
		return;
	while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
		const unsigned char *desc = (const unsigned char *)data->d_buf + doff;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + noff, "GNU", 4) || !nh.n_descsz ||
		    nh.n_descsz > 64)
			continue;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(d->build_id + 2 * i, 3, "%02x", desc[i]);
		return;
	}
}

_Static_assert(PF_X == MR_SEG_X && PF_W == MR_SEG_W && PF_R == MR_SEG_R, "segment flags");

/* Program headers: PIC-ness, PT_LOAD segments and the lowest one, PT_TLS, build-id. */
int di_read_phdrs(struct di_ctx *c, Elf *elf)
{
	struct mr_debuginfo *d = c->d;
	GElf_Ehdr eh;
	size_t phnum;
	int have_load = 0;

	if (!gelf_getehdr(elf, &eh))
		return di_fail(c, -EINVAL, "bad ELF header: %s", elf_errmsg(-1));
	if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC)
		return di_fail(c, -ENOEXEC, "not an executable or shared object (e_type %u)",
			       (unsigned)eh.e_type);
	d->pic = eh.e_type == ET_DYN;
	if (elf_getphdrnum(elf, &phnum))
		return di_fail(c, -EINVAL, "bad program headers: %s", elf_errmsg(-1));
	d->segs = calloc(phnum ? phnum : 1, sizeof(*d->segs));
	if (!d->segs)
		return di_fail(c, -ENOMEM, "out of memory");
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return di_fail(c, -EINVAL, "bad program header %zu at offset 0x%llx: %s", i,
				       (unsigned long long)eh.e_phoff, elf_errmsg(-1));
		if (ph.p_type == PT_LOAD) {
			if (!have_load || ph.p_vaddr < d->vaddr0) {
				d->vaddr0 = ph.p_vaddr;
				d->offset0 = ph.p_offset;
				have_load = 1;
			}
			d->segs[d->nsegs].lo = ph.p_vaddr;
			d->segs[d->nsegs].hi = ph.p_vaddr + ph.p_memsz;
			d->segs[d->nsegs].off = ph.p_offset;
			d->segs[d->nsegs].filesz = ph.p_filesz;
			d->segs[d->nsegs].exec = !!(ph.p_flags & PF_X);
			d->segs[d->nsegs].flags = ph.p_flags & (PF_R | PF_W | PF_X);
			d->nsegs++;
		} else if (ph.p_type == PT_TLS) {
			d->tls_memsz = ph.p_memsz;
			d->tls_align = ph.p_align;
			d->tls_vaddr = ph.p_vaddr;
		} else if (ph.p_type == PT_NOTE && !d->build_id[0]) {
			read_build_id(d, elf, &ph);
		}
	}
	if (!have_load)
		return di_fail(c, -ENOEXEC, "no PT_LOAD segment");
	return 0;
}

/* The interned source name of function symbol name[0, len): a C++ name demangled, a clone
 * suffix cut (mr_demangle_function), as DWARF's names are; NULL when out of memory. */
static const char *source_name(struct mr_debuginfo *d, const char *name, size_t len)
{
	char *copy, *src = NULL;
	const char *in;

	if (!(len > 2 && name[0] == '_' && name[1] == 'Z') && !memchr(name, '.', len))
		return di_intern_n(d, name, len);
	copy = strndup(name, len);
	if (copy)
		src = mr_demangle_function(copy);
	in = src ? di_intern(d, src) : di_intern_n(d, name, len);
	free(src);
	free(copy);
	return in;
}

/* Record one symbol: functions into d->funcs, data into the symbol variable tables. */
static int add_symbol(struct mr_debuginfo *d, const GElf_Sym *s, const char *name, int dynsym)
{
	int type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);
	/* a versioned name of .symtab ("__libc_start_main@@GLIBC_2.34") without its version */
	const char *at = name ? strchr(name, '@') : NULL;
	size_t len = at ? (size_t)(at - name) : name ? strlen(name) : 0;

	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS || s->st_shndx == SHN_COMMON ||
	    !len)
		return 0;
	if (type == STT_FUNC || type == STT_GNU_IFUNC) {
		struct func_sym *f;

		if (!di_in_segment(d, s->st_value, 1))
			return 0;
		if (di_grow((void **)&d->funcs, &d->capfuncs, d->nfuncs, sizeof(*d->funcs)))
			return -ENOMEM;
		f = &d->funcs[d->nfuncs];
		f->addr = s->st_value;
		f->size = s->st_size;
		f->name = source_name(d, name, len);
		/* at one address prefer a sized, global, .symtab name over aliases */
		f->rank = (s->st_size ? 8 : 0) + !dynsym;
		f->rank += bind == STB_GLOBAL ? 4 : bind == STB_WEAK ? 2 : 0;
		if (!f->name)
			return -ENOMEM;
		d->nfuncs++;
	} else if (type == STT_OBJECT || type == STT_TLS) {
		struct var_tab *t = type == STT_TLS ? &d->stls : &d->svars;
		struct mr_var *v;

		if (type == STT_OBJECT && !di_in_segment(d, s->st_value, 0))
			return 0;
		if (di_grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v)))
			return -ENOMEM;
		v = &t->v[t->n];
		memset(v, 0, sizeof(*v));
		v->name = di_intern_n(d, name, len);
		v->kind = MR_VAR_SYMBOL;
		v->addr = s->st_value;
		v->size = s->st_size;
		v->tls = type == STT_TLS;
		if (!v->name)
			return -ENOMEM;
		t->n++;
	}
	return 0;
}

/* The file must hold its section header table, every section with contents and every
 * PT_LOAD's file part: catches truncated files (libelf quietly shows fewer sections). */
int di_check_extent(struct di_ctx *c, Elf *elf, int fd)
{
	struct stat st;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t phnum;
	uint64_t size;

	if (fstat(fd, &st))
		return di_fail(c, -errno, "cannot stat: %s", strerror(errno));
	size = (uint64_t)st.st_size;
	if (!gelf_getehdr(elf, &eh))
		return di_fail(c, -EINVAL, "bad ELF header: %s", elf_errmsg(-1));
	if (eh.e_shoff &&
	    (eh.e_shoff > size || (uint64_t)eh.e_shnum * eh.e_shentsize > size - eh.e_shoff))
		return di_fail(c, -EINVAL,
			       "truncated: section headers at offset 0x%llx end past the file's "
			       "%llu bytes", (unsigned long long)eh.e_shoff, (unsigned long long)size);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return di_fail(c, -EINVAL, "bad section header %zu: %s", elf_ndxscn(scn),
				       elf_errmsg(-1));
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))
			return di_fail(c, -EINVAL,
				       "truncated: section %zu at offset 0x%llx (0x%llx bytes) ends "
				       "past the file's %llu bytes", elf_ndxscn(scn),
				       (unsigned long long)sh.sh_offset,
				       (unsigned long long)sh.sh_size, (unsigned long long)size);
	}
	if (elf_getphdrnum(elf, &phnum))
		return di_fail(c, -EINVAL, "bad program headers: %s", elf_errmsg(-1));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return di_fail(c, -EINVAL, "bad program header %zu: %s", i, elf_errmsg(-1));
		if (ph.p_type == PT_LOAD &&
		    (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
			return di_fail(c, -EINVAL,
				       "truncated: segment %zu at offset 0x%llx (0x%llx bytes) ends "
				       "past the file's %llu bytes", i,
				       (unsigned long long)ph.p_offset,
				       (unsigned long long)ph.p_filesz, (unsigned long long)size);
	}
	return 0;
}

/* Read .symtab and .dynsym. Symbols whose names are out of range are skipped. */
int di_read_symbols(struct di_ctx *c, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shnum;

	if (elf_getshdrnum(elf, &shnum))
		return di_fail(c, -EINVAL, "bad section headers: %s", elf_errmsg(-1));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh))
			return di_fail(c, -EINVAL, "bad section header %zu: %s", elf_ndxscn(scn),
				       elf_errmsg(-1));
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		if (!sh.sh_entsize || sh.sh_link >= shnum)
			return di_fail(c, -EINVAL, "bad symbol table header at offset 0x%llx",
				       (unsigned long long)sh.sh_offset);
		data = elf_getdata(scn, NULL);
		if (!data)
			return di_fail(c, -EINVAL, "cannot read symbol table at offset 0x%llx: %s",
				       (unsigned long long)sh.sh_offset, elf_errmsg(-1));
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s))
				return di_fail(c, -EINVAL, "bad symbol %zu in table at offset 0x%llx",
					       i, (unsigned long long)sh.sh_offset);
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (add_symbol(c->d, &s, name, sh.sh_type == SHT_DYNSYM))
				return di_fail(c, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->rank - x->rank; /* best first */
}

/* d->funcs in cmp_func's order, stably, by a radix sort of their keys (address, then rank
 * best first): qsort's calls of cmp_func were a third of opening libc (9,000 symbols).
 * Returns 0, or -1 when it cannot (out of memory, an address of 2^60 or more). */
static int radix_sort_funcs(struct mr_debuginfo *d)
{
	size_t n = d->nfuncs;
	struct mr_keyidx *a, *b;
	struct func_sym *sorted;

	for (size_t i = 0; i < n; i++)
		if (d->funcs[i].addr >> 60 || d->funcs[i].rank < 0 || d->funcs[i].rank > 15)
			return -1;
	if (mr_keyidx_alloc(n, &a, &b))
		return -1;
	for (size_t i = 0; i < n; i++) {
		a[i].key = d->funcs[i].addr << 4 | (uint64_t)(15 - d->funcs[i].rank);
		a[i].i = i;
	}
	sorted = mr_keyidx_gather(d->funcs, sizeof(*d->funcs), mr_radix_sort(a, b, n), n);
	free(a);
	free(b);
	if (!sorted)
		return -1;
	free(d->funcs);
	d->funcs = sorted;
	d->capfuncs = n;
	return 0;
}

/* Sort function symbols and keep the best name per address. */
void di_finish_funcs(struct mr_debuginfo *d)
{
	size_t j = 0;

	if (!d->nfuncs)
		return;
	if (radix_sort_funcs(d))
		qsort(d->funcs, d->nfuncs, sizeof(*d->funcs), cmp_func);
	for (size_t i = 0; i < d->nfuncs; i++)
		if (!j || d->funcs[j - 1].addr != d->funcs[i].addr)
			d->funcs[j++] = d->funcs[i];
	d->nfuncs = j;
}

/* ---- public: the segments ---- */

unsigned mr_debuginfo_segment(const struct mr_debuginfo *d, uint64_t vaddr)
{
	for (size_t i = 0; i < d->nsegs; i++)
		if (vaddr >= d->segs[i].lo && vaddr < d->segs[i].hi)
			return d->segs[i].flags;
	return 0;
}

unsigned mr_debuginfo_segment_range(const struct mr_debuginfo *d, uint64_t vaddr, uint64_t *lo,
				    uint64_t *hi)
{
	for (size_t i = 0; i < d->nsegs; i++)
		if (vaddr >= d->segs[i].lo && vaddr < d->segs[i].hi) {
			*lo = d->segs[i].lo;
			*hi = d->segs[i].hi;
			return d->segs[i].flags;
		}
	return 0;
}

/* The file of d for mr_debuginfo_code, opened once (a second thread's open loses the race
 * and is closed). An fd, or -errno. */
static int code_file(struct mr_debuginfo *d)
{
	int fd = atomic_load_explicit(&d->code_fd, memory_order_acquire) - 1, was = 0;

	if (fd >= 0)
		return fd;
	fd = mr_in_open(d->path, MR_IN_MAX_ELF, 0);
	if (fd < 0)
		return fd;
	if (atomic_compare_exchange_strong(&d->code_fd, &was, fd + 1))
		return fd;
	close(fd);
	return was - 1;
}

ssize_t mr_debuginfo_code(struct mr_debuginfo *d, uint64_t vaddr, void *buf, size_t len)
{
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct seg *sg = &d->segs[i];
		uint64_t avail;
		ssize_t r;
		int fd;

		if (!sg->exec || vaddr < sg->lo || vaddr - sg->lo >= sg->filesz)
			continue;
		avail = sg->filesz - (vaddr - sg->lo);
		if (len > avail)
			len = (size_t)avail;
		fd = code_file(d);
		if (fd < 0)
			return fd;
		r = pread(fd, buf, len, (off_t)(sg->off + (vaddr - sg->lo)));
		return r < 0 ? -errno : r;
	}
	return -ENOENT;
}
