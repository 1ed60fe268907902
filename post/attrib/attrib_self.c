/* post/attrib/attrib_self.c - libmemphis's own work among a sample's frames (issue 38).
 *
 * A sample in runtime code (libc, libgcc_s) is named by its first caller with a user line
 * (attrib_caller.c). Between the two may lie frames of libmemphis itself, and they tell
 * whose work the sample is: the library's interposers pass the program's own calls on
 * (malloc to the C library's malloc, pthread_create's thread start to the program's start
 * routine), every other function of the library does its own work (recording an
 * allocation: its call-site chain unwound by libgcc_s, its record copied by memcpy; the
 * API's region marks; a new thread's registration). So the first libmemphis frame above
 * the sampled one decides: an interposer's, and the sample is the program's; another, and
 * it is set aside with the library's own samples.
 *
 * The interposers are the library's exported functions but for its API (memphis_*), read
 * from its dynamic symbol table, and the thread start (`trampoline`, lib/thread.c), read
 * from its full symbol table. A library without that table (stripped) names none of its
 * own functions: each of its frames is then taken as an interposer's, as the report did
 * before it told them apart.
 *
 * Linked into the executable (libmemphis.a: RUN lib=""), the library's code and data are
 * the executable's sections named memphis_* (the archive's objects have their sections
 * renamed so when it is built: Makefile), and its functions are those symbols within them;
 * the program's own globals with the names of the library's statics (heap_lock) are not
 * taken for them.
 */
#include "attrib_impl.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/infile.h"
#include "search.h"

/* The library's thread start (lib/thread.c): it calls the program's start routine. */
#define SELF_TRAMPOLINE "trampoline"

struct fwd {
	uint64_t lo, hi; /* [lo, hi) vaddr */
};

struct attrib_self {
	struct fwd *fwd;    /* the interposers, sorted by lo */
	size_t nfwd;
	int named;          /* a full symbol table was read: a function not in fwd is own work */
	uint64_t text[2];   /* linked into the executable: its memphis_text section, vaddr */
	uint64_t data[8][2]; /* ... and its other memphis_* sections (data, bss, rodata) */
	size_t ndata;
};

static int cmp_fwd(const void *x, const void *y)
{
	const struct fwd *a = x, *b = y;

	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* In the library's text: anywhere in a shared library of its own, in memphis_text when
 * linked into the executable. */
static int in_text(const struct attrib_self *s, int in_exe, uint64_t v)
{
	return !in_exe || (v >= s->text[0] && v < s->text[1]);
}

/* The sections named memphis_* (their vaddr ranges) into s. */
static void read_sections(Elf *elf, size_t shstrndx, struct attrib_self *s)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strncmp(name, "memphis_", 8))
			continue;
		if (!strcmp(name, "memphis_text")) {
			s->text[0] = sh.sh_addr;
			s->text[1] = sh.sh_addr + sh.sh_size;
		} else if (s->ndata < sizeof(s->data) / sizeof(s->data[0])) {
			s->data[s->ndata][0] = sh.sh_addr;
			s->data[s->ndata++][1] = sh.sh_addr + sh.sh_size;
		}
	}
}

/* The interposers among the symbols of table scn (of type `type`) into s. 0 or -ENOMEM. */
static int read_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, int in_exe,
			struct attrib_self *s)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int global, fwd;
		struct fwd *nf;

		if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_size)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !in_text(s, in_exe, sym.st_value))
			continue;
		global = GELF_ST_BIND(sym.st_info) != STB_LOCAL &&
			 GELF_ST_VISIBILITY(sym.st_other) == STV_DEFAULT;
		fwd = (global && strncmp(name, "memphis_", 8)) || !strcmp(name, SELF_TRAMPOLINE);
		if (!fwd)
			continue;
		nf = realloc(s->fwd, (s->nfwd + 1) * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		s->fwd = nf;
		s->fwd[s->nfwd++] = (struct fwd){ sym.st_value, sym.st_value + sym.st_size };
	}
	return 0;
}

/* Read what object oi (libmemphis, or the executable it is linked into) tells of the
 * library; NULL when unreadable or out of memory (its frames then count as interposers'). */
static struct attrib_self *self_read(const struct obj *o)
{
	struct attrib_self *s = calloc(1, sizeof(*s));
	int fd = mr_in_open(o->file, MR_IN_MAX_ELF, 0);
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!s || fd < 0 || elf_version(EV_CURRENT) == EV_NONE ||
	    !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)) || elf_getshdrstrndx(elf, &shstrndx))
		goto fail;
	if (o->is_exe) {
		read_sections(elf, shstrndx, s);
		if (s->text[1] <= s->text[0])
			goto fail; /* the library is in it, but not where its sections say */
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (read_symbols(elf, scn, &sh, o->is_exe, s))
			goto fail;
		s->named |= sh.sh_type == SHT_SYMTAB;
	}
	qsort(s->fwd, s->nfwd, sizeof(*s->fwd), cmp_fwd);
	elf_end(elf);
	close(fd);
	return s;
fail:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (s)
		free(s->fwd);
	free(s);
	return NULL;
}

/* What object oi tells of the library, read once (NULL: nothing). Under the lock. */
static const struct attrib_self *self_of(struct mr_attrib *a, uint32_t oi)
{
	struct obj *o = &a->obj[oi];

	if (!o->self_tried) {
		o->self_tried = 1;
		o->self = self_read(o);
	}
	return o->self;
}

/* Is the executable the library's home (RUN lib="": linked into it)? */
static int self_in_exe(const struct mr_attrib *a, uint32_t oi)
{
	return a->obj[oi].is_exe && a->self_path && !a->self_path[0];
}

int attrib_self_code(struct mr_attrib *a, uint32_t oi, uint64_t v)
{
	const struct attrib_self *s;

	if (a->obj[oi].is_self)
		return 1;
	if (!self_in_exe(a, oi) || !(s = self_of(a, oi)))
		return 0;
	return v >= s->text[0] && v < s->text[1];
}

int attrib_self_data(struct mr_attrib *a, uint32_t oi, uint64_t v, uint64_t *lo, uint64_t *hi)
{
	const struct attrib_self *s;

	if (!self_in_exe(a, oi) || !(s = self_of(a, oi)))
		return 0;
	for (size_t i = 0; i < s->ndata; i++)
		if (v >= s->data[i][0] && v < s->data[i][1]) {
			*lo = s->data[i][0];
			*hi = s->data[i][1];
			return 1;
		}
	return 0;
}

int attrib_self_work(struct mr_attrib *a, uint32_t oi, uint64_t v)
{
	const struct attrib_self *s;
	size_t i;

	if (!attrib_self_code(a, oi, v) || !(s = self_of(a, oi)) || !s->named)
		return 0;
	i = mph_upper_bound(s->fwd, s->nfwd, sizeof(*s->fwd), offsetof(struct fwd, lo), v);
	return !(i > 0 && v < s->fwd[i - 1].hi);
}

void attrib_self_free(struct attrib_self *s)
{
	if (s)
		free(s->fwd);
	free(s);
}
