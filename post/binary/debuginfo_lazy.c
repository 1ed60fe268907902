/* post/binary/debuginfo_lazy.c - a separate debug file's DWARF, read when needed (see
 * debuginfo_impl.h).
 *
 * A report asks a library such as libc about a handful of addresses (the callers of
 * allocation sites, a first touch in its thread start, a sample in its mutex), yet its
 * whole DWARF is 0.15 s of CPU: 0.04 s to inflate the sections and walk the unit headers,
 * 0.07 s more for all line programs, 0.08 s more for all DIE trees. So the unit holding an
 * address, found through .debug_aranges, is read on the first question about a line or a
 * scope there, into the same arrays the whole pass fills (in this process, with one
 * libdwarf handle, as debuginfo_locals.c reads DIEs). A question about variables, or an
 * address no arange covers, reads every unit not read yet with the open's pass (a child
 * process). Within one unit nothing changes: an address's line and scopes come from its
 * unit's line program and DIEs, whichever other units were read.
 *
 * Only for debug files under the debug directory (Debian's -dbgsym and libc6-dbg
 * packages): units read here are not isolated in a child, so a crash of libdwarf on
 * corrupt DWARF would be the report's; a distribution's file is trusted that far, as
 * debuginfo_locals.c trusts it with DIEs. Other debug files are read whole at the open.
 */
#include "debuginfo_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "base/infile.h"

/* Units read one at a time before the rest is read whole: each re-sorts the arrays, so a
 * report that asks about many units (a program living in libc) pays the whole pass once
 * rather than that many sorts (libc: a unit ~1.5 ms, the whole 0.15-0.19 s). */
#define UNITS_ALONE 32

struct di_lazy {
	char *path;          /* the debug file */
	int tried;           /* the handle below was opened (or failed to) */
	int fd;
	Dwarf_Debug dbg;     /* NULL: not readable in this process */
	Dwarf_Arange *ar;    /* .debug_aranges, NULL when it has none */
	Dwarf_Signed nar;
	Dwarf_Off *done;     /* header offsets of the units read */
	size_t ndone, capdone;
};

int di_lazy_new(struct mr_debuginfo *d, const char *path)
{
	struct di_lazy *l = calloc(1, sizeof(*l));

	if (!l || !(l->path = strdup(path))) {
		free(l);
		return -ENOMEM;
	}
	l->fd = -1;
	d->lazy = l;
	atomic_store_explicit(&d->lazy_growing, 1, memory_order_release);
	return 0;
}

void di_lazy_free(struct mr_debuginfo *d)
{
	struct di_lazy *l = d->lazy;

	if (!l)
		return;
	if (l->ar) {
		for (Dwarf_Signed i = 0; i < l->nar; i++)
			dwarf_dealloc(l->dbg, l->ar[i], DW_DLA_ARANGE);
		dwarf_dealloc(l->dbg, l->ar, DW_DLA_LIST);
	}
	if (l->dbg)
		dwarf_finish(l->dbg, NULL);
	if (l->fd >= 0)
		close(l->fd);
	free(l->done);
	free(l->path);
	free(l);
	d->lazy = NULL;
}

/* The handle and the aranges, opened on first use. NULL when the file cannot be read. */
static Dwarf_Debug lazy_open(struct di_lazy *l)
{
	Dwarf_Error e = NULL;

	if (l->tried)
		return l->dbg;
	l->tried = 1;
	l->fd = mr_in_open(l->path, MR_IN_MAX_ELF, 0);
	if (l->fd < 0)
		return NULL;
	if (dwarf_init_b(l->fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &l->dbg, &e) !=
	    DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(NULL, e);
		l->dbg = NULL;
		return NULL;
	}
	if (dwarf_get_aranges(l->dbg, &l->ar, &l->nar, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(l->dbg, e);
		l->ar = NULL;
		l->nar = 0;
	}
	return l->dbg;
}

Dwarf_Debug di_lazy_dbg(struct mr_debuginfo *d)
{
	return d->lazy ? lazy_open(d->lazy) : NULL;
}

void di_lazy_read_all(struct mr_debuginfo *d)
{
	struct di_lazy *l = d->lazy;
	char err[256] = "";
	struct di_ctx c = { .d = d, .err = err, .errlen = sizeof(err), .skip = l->done,
			    .nskip = l->ndone };
	int fd = mr_in_open(l->path, MR_IN_MAX_ELF, 0);

	/* as the open's pass did: a failure keeps what was read and names no debug file */
	if (fd >= 0 && !di_read_dwarf_isolated(&c, fd))
		d->debug_path = strdup(l->path); /* NULL on ENOMEM: only the name is lost */
	if (fd >= 0)
		close(fd);
}

/* Header offset of the unit whose aranges cover vaddr: 0 and *off, or -ENOENT. */
static int unit_of(struct di_lazy *l, uint64_t vaddr, Dwarf_Off *off)
{
	Dwarf_Arange a;
	Dwarf_Error e = NULL;

	if (l->ar && dwarf_get_arange(l->ar, l->nar, vaddr, &a, &e) == DW_DLV_OK &&
	    dwarf_get_arange_cu_header_offset(a, off, &e) == DW_DLV_OK)
		return 0;
	if (e)
		dwarf_dealloc_error(l->dbg, e);
	return -ENOENT;
}

/* Read the unit at header offset off into d. 0 or -errno (what was read stays). */
static int read_unit(struct mr_debuginfo *d, struct di_lazy *l, Dwarf_Off off)
{
	char err[256] = "";
	struct di_ctx c = { .d = d, .dbg = l->dbg, .err = err, .errlen = sizeof(err) };
	Dwarf_Off die_off;
	Dwarf_Error e = NULL;
	Dwarf_Die cu;
	int rc;

	if (di_grow((void **)&l->done, &l->capdone, l->ndone, sizeof(*l->done)))
		return -ENOMEM;
	l->done[l->ndone++] = off; /* once, whatever happens below */
	if (dwarf_get_cu_die_offset_given_cu_header_offset_b(l->dbg, off, 1, &die_off, &e) !=
		    DW_DLV_OK ||
	    dwarf_offdie_b(l->dbg, die_off, 1, &cu, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(l->dbg, e);
		return -EINVAL;
	}
	c.cu_off = off;
	rc = di_read_cu(&c, cu);
	if (di_scope_finish(&c) && !rc)
		rc = -ENOMEM;
	free(c.linefiles);
	dwarf_dealloc_die(cu);
	return rc;
}

int di_lazy_read_addr(struct mr_debuginfo *d, uint64_t vaddr)
{
	struct di_lazy *l = d->lazy;
	Dwarf_Off off;

	if (!lazy_open(l) || unit_of(l, vaddr, &off))
		return -1;
	for (size_t i = 0; i < l->ndone; i++)
		if (l->done[i] == off)
			return 0;
	if (l->ndone >= UNITS_ALONE)
		return -1;
	read_unit(d, l, off);
	return 1;
}
