/* post/binary/debuginfo_debugfile.c - finding and reading separate debug files: the build-id
 * path under the debug directory and .gnu_debuglink. */
#include "debuginfo_impl.h"

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
#include "hash.h"
#include "search.h"

/* ---- separate debug files (build-id and .gnu_debuglink) ---- */

/* Section of elf named `name`, or NULL. */
Elf_Scn *di_find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			return NULL;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Build-id of elf from its .note.gnu.build-id section (debug files keep the section even
 * where their program headers point at nothing) into out[129]; "" if none. */
static void section_build_id(Elf *elf, char *out)
{
	Elf_Scn *scn = di_find_section(elf, ".note.gnu.build-id");
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	out[0] = '\0';
	if (!data || !data->d_buf)
		return;
	while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
		const unsigned char *desc = (const unsigned char *)data->d_buf + doff;

		if (nh.n_type != NT_GNU_BUILD_ID || !nh.n_descsz || nh.n_descsz > 64)
			continue;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(out + 2 * i, 3, "%02x", desc[i]);
		return;
	}
}

/* Open candidate as the debug file of d: an ELF file with .debug_info whose build-id (if
 * both have one) matches. Its symbols are added; its DWARF is read now in a child, or with
 * lazy (a file under the debug directory: a distribution's debug package) when first
 * needed, partly in this process (debuginfo_lazy.c). A failure there only means no DWARF
 * (d stays usable from the ELF symbols). 1 if it was used, 0 if not. */
static int try_debug_file(struct di_ctx *c, const char *candidate, int lazy)
{
	struct mr_debuginfo *d = c->d;
	char bid[129], *saved_path = d->path;
	int fd, used = 0;
	Elf *elf;

	fd = mr_in_open(candidate, MR_IN_MAX_ELF, 0);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !di_find_section(elf, ".debug_info"))
		goto out;
	section_build_id(elf, bid);
	if (bid[0] && d->build_id[0] && strcmp(bid, d->build_id))
		goto out;
	d->path = (char *)candidate; /* name the debug file in messages */
	if (!di_read_symbols(c, elf)) {
		if (lazy)
			di_lazy_new(d, candidate); /* -ENOMEM: no DWARF */
		else if (!di_read_dwarf_isolated(c, fd))
			d->debug_path = strdup(candidate); /* NULL on ENOMEM: the name is lost */
	}
	d->path = saved_path;
	if (c->err && c->errlen)
		c->err[0] = '\0'; /* degrade silently: the object itself is fine */
	used = 1;                  /* a matching file was tried: look no further */
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return used;
}

/* No DWARF in the object itself: look for it where Debian's -dbgsym/-dbg packages and
 * objcopy --add-gnu-debuglink put it, as gdb does: DEBUG_DIR/.build-id/xx/rest.debug,
 * then the .gnu_debuglink name next to the object, in .debug/ there, and under DEBUG_DIR
 * plus the object's directory. */
void di_find_debug_file(struct di_ctx *c, Elf *elf, const char *debug_dir)
{
	struct mr_debuginfo *d = c->d;
	char cand[4096], dir[4096], link[256];
	const char *slash;
	int n;
	Elf_Scn *scn;
	Elf_Data *data;

	if (debug_dir && strlen(d->build_id) > 2) {
		n = snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", debug_dir,
			     d->build_id, d->build_id + 2);
		if (n < (int)sizeof(cand) && try_debug_file(c, cand, 1))
			return;
	}
	scn = di_find_section(elf, ".gnu_debuglink");
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf || !data->d_size || !memchr(data->d_buf, '\0', data->d_size))
		return;
	snprintf(link, sizeof(link), "%s", (const char *)data->d_buf);
	if (!link[0] || strchr(link, '/'))
		return;
	slash = strrchr(d->path, '/');
	n = snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - d->path) : 1,
		     slash ? d->path : ".");
	if (n >= (int)sizeof(dir))
		return;
	n = snprintf(cand, sizeof(cand), "%s/%s", dir, link);
	if (n < (int)sizeof(cand) && strcmp(cand, d->path) && try_debug_file(c, cand, 0))
		return;
	n = snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, link);
	if (n < (int)sizeof(cand) && try_debug_file(c, cand, 0))
		return;
	if (debug_dir && dir[0] == '/') {
		n = snprintf(cand, sizeof(cand), "%s%s/%s", debug_dir, dir, link);
		if (n < (int)sizeof(cand))
			try_debug_file(c, cand, 1);
	}
}
