/* tests/unit/unit_kallsyms.c - post/binary/kallsyms.c: the text symbols of a kallsyms file, a
 * kernel address's function (also through a cache), and a file whose addresses are hidden
 * (kptr_restrict: all zero) or missing; the cache of a boot's symbols and its key. TAP
 * output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary/kallsyms.h"

#include "tap.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

int main(void)
{
	char path[] = "/tmp/unit_kallsymsXXXXXX";
	int fd = mkstemp(path);
	struct mr_kallsyms k;
	long i;
	int rc;

	if (fd < 0)
		return 1;
	close(fd);
	/* out of order, data symbols among them, a module's symbol with its [module] */
	write_file(path, "ffffffff81200000 T clear_page_erms\n"
			 "ffffffff81000000 T _text\n"
			 "ffffffff82000000 D jiffies\n"
			 "ffffffff81100000 t get_page_from_freelist\n"
			 "ffffffffc0001000 t memphismod_ioctl\t[memphismod]\n"
			 "ffffffff81300000 W weak_one\n"
			 "ffffffff81400000 t update_sd_lb_stats.constprop.0\n");
	rc = mr_kallsyms_load(&k, path);
	ok(rc == 0 && k.n == 6, "6 text symbols of 7 (%zu)", k.n);
	i = mr_kallsyms_find(&k, 0xffffffff81400010ull);
	ok(i >= 0 && !strcmp(mr_kallsyms_name(&k, (size_t)i), "update_sd_lb_stats"),
	   "a clone by its function's name: %s", i >= 0 ? mr_kallsyms_name(&k, (size_t)i) : "-");
	i = mr_kallsyms_find(&k, 0xffffffff81200123ull);
	ok(i >= 0 && !strcmp(mr_kallsyms_name(&k, (size_t)i), "clear_page_erms"),
	   "inside clear_page_erms: %s", i >= 0 ? mr_kallsyms_name(&k, (size_t)i) : "-");
	i = mr_kallsyms_find(&k, 0xffffffff81100000ull);
	ok(i >= 0 && !strcmp(mr_kallsyms_name(&k, (size_t)i), "get_page_from_freelist"),
	   "at a symbol's first byte: that symbol");
	i = mr_kallsyms_find(&k, 0xffffffffc0001010ull);
	ok(i >= 0 && !strcmp(mr_kallsyms_name(&k, (size_t)i), "memphismod_ioctl"),
	   "a module's function, without its [module]");
	ok(mr_kallsyms_find(&k, 0xffffffff80000000ull) == -1, "below the first symbol: none");
	mr_kallsyms_free(&k);
	ok(mr_kallsyms_find(&k, 0xffffffff81200123ull) == -1 && !strcmp(mr_kallsyms_name(&k, 0), ""),
	   "nothing loaded: none");
	/* lines that are not symbols among them, and a name longer than 255 bytes, cut */
	{
		char text[1024], long_name[301];

		memset(long_name, 'x', 300);
		long_name[300] = '\0';
		snprintf(text, sizeof(text),
			 "not a line of kallsyms\n"
			 "ffffffff81500000\n"
			 "ffffffff81510000 \n"
			 "1ffffffff81600000 T seventeen_digits\n"
			 "ffffffff8170000g T not_hex\n"
			 "ffffffff81800000 T %s\n"
			 "ffffffff81900000   t  spaced_out\n",
			 long_name);
		write_file(path, text);
	}
	ok(mr_kallsyms_load(&k, path) == 0 && k.n == 2, "2 symbols of 7 lines");
	i = mr_kallsyms_find(&k, 0xffffffff81800000ull);
	ok(i >= 0 && strlen(mr_kallsyms_name(&k, (size_t)i)) == 255, "a long name cut at 255 bytes");
	i = mr_kallsyms_find(&k, 0xffffffff81900001ull);
	ok(i >= 0 && !strcmp(mr_kallsyms_name(&k, (size_t)i), "spaced_out"),
	   "more blanks between the fields: %s", i >= 0 ? mr_kallsyms_name(&k, (size_t)i) : "-");
	mr_kallsyms_free(&k);
	/* every byte (but NUL and newline) as the 11th of 16 digits: a symbol exactly where it
	 * is a hexadecimal digit, of either case, at its value (a 16-digit line is read 8
	 * digits at once, other lines a digit at a time) */
	{
		static char text[256 * 32];
		size_t len = 0, right = 0;

		for (unsigned b = 1; b < 256; b++)
			if (b != '\n')
				len += (size_t)snprintf(text + len, sizeof(text) - len,
							"ffffffff81%c00000 T s%u\n", (char)b, b);
		write_file(path, text);
		rc = mr_kallsyms_load(&k, path);
		ok(rc == 0 && k.n == 22, "a byte of 255 as a digit: %zu symbols, one a hexadecimal "
		   "digit's", k.n);
		for (size_t j = 0; j < k.n; j++) {
			unsigned b = (unsigned)atoi(mr_kallsyms_name(&k, j) + 1);
			unsigned v = b >= '0' && b <= '9' ? b - '0' : b >= 'a' && b <= 'f' ? b - 'a' + 10
				   : b >= 'A' && b <= 'F' ? b - 'A' + 10 : 16;

			right += v < 16 && k.sym[j].addr == (0xffffffff81000000ull | (uint64_t)v << 20);
		}
		ok(right == 22, "each at its digit's value (%zu of 22)", right);
		mr_kallsyms_free(&k);
	}
	/* 2,000 symbols 16 bytes apart asked 10,000 times at random through a cache of 256
	 * slots: every answer mr_kallsyms_find's, those of addresses that share a slot too */
	{
		static char text[2000 * 40];
		struct mr_kallsyms_cache c = { 0 };
		size_t len = 0, same = 0;
		uint64_t x = 42;

		for (unsigned j = 0; j < 2000; j++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%016llx t f%u\n",
						0xffffffff81000000ull + 16ull * j, j);
		write_file(path, text);
		rc = mr_kallsyms_load(&k, path);
		for (unsigned j = 0; j < 10000; j++) {
			uint64_t ip;

			x = x * 6364136223846793005ull + 1442695040888963407ull;
			ip = 0xffffffff80fffff0ull + (x >> 33) % (16 * 2000 + 32);
			same += mr_kallsyms_find_cached(&k, &c, ip) == mr_kallsyms_find(&k, ip);
		}
		ok(rc == 0 && k.n == 2000 && same == 10000, "through a cache: %zu of 10000 answers "
		   "the same", same);
		mr_kallsyms_free(&k);
	}
	/* the cache: a miss loads the file and writes the copy, a hit takes the copy (the file
	 * changed since is not read), a copy of another key, damaged, cut short, writable by
	 * others or a link is read past (and replaced); an unwritable place is no error */
	{
		char dir[] = "/tmp/unit_kcacheXXXXXX", cache[64], link[64], none[80];
		const char *a = "ffffffff81000000 T _text\nffffffff81100000 t alpha\n"
				"ffffffff81200000 T beta\n";
		struct stat st;
		FILE *f;

		if (!mkdtemp(dir))
			return 1;
		snprintf(cache, sizeof(cache), "%s/kallsyms", dir);
		snprintf(link, sizeof(link), "%s/link", dir);
		snprintf(none, sizeof(none), "%s/missing/kallsyms", dir);
		write_file(path, a);
		rc = mr_kallsyms_load_cached(&k, path, cache, 1);
		if (stat(cache, &st))
			st.st_mode = 0;
		ok(rc == 0 && k.n == 3 && !k.map && (st.st_mode & 0777) == 0600,
		   "a miss: the file's 3 symbols, the copy written (mode %o)",
		   (unsigned)(st.st_mode & 0777));
		mr_kallsyms_free(&k);
		write_file(path, "ffffffff81000000 T _text\nffffffff81300000 t gamma\n");
		rc = mr_kallsyms_load_cached(&k, path, cache, 1);
		i = mr_kallsyms_find(&k, 0xffffffff81100010ull);
		ok(rc == 0 && k.n == 3 && k.map && i >= 0 &&
		   !strcmp(mr_kallsyms_name(&k, (size_t)i), "alpha"), "a hit: the copy's symbols");
		mr_kallsyms_free(&k);
		rc = mr_kallsyms_load_cached(&k, path, cache, 2);
		ok(rc == 0 && k.n == 2 && !k.map, "another key: the file read again");
		mr_kallsyms_free(&k);
		rc = mr_kallsyms_load_cached(&k, path, cache, 2);
		i = mr_kallsyms_find(&k, 0xffffffff81300010ull);
		ok(rc == 0 && k.n == 2 && k.map && i >= 0 &&
		   !strcmp(mr_kallsyms_name(&k, (size_t)i), "gamma"), "... and its copy replaced");
		mr_kallsyms_free(&k);
		/* a byte of the last name changed: the checksum */
		if ((f = fopen(cache, "r+"))) {
			fseek(f, -3, SEEK_END);
			fputc('X', f);
			fclose(f);
		}
		write_file(path, a);
		rc = mr_kallsyms_load_cached(&k, path, cache, 2);
		ok(rc == 0 && k.n == 3 && !k.map, "a damaged copy: read past");
		mr_kallsyms_free(&k);
		rc = truncate(cache, 60);
		rc = mr_kallsyms_load_cached(&k, path, cache, 2);
		ok(rc == 0 && k.n == 3 && !k.map, "a copy cut short: read past");
		mr_kallsyms_free(&k);
		chmod(cache, 0622);
		rc = mr_kallsyms_load_cached(&k, path, cache, 2);
		ok(rc == 0 && !k.map, "a copy others may write: read past");
		mr_kallsyms_free(&k);
		rc = mr_kallsyms_load_cached(&k, path, cache, 2); /* the last one wrote it anew */
		ok(rc == 0 && k.map, "... and replaced by one of mode 0600");
		mr_kallsyms_free(&k);
		rc = symlink(cache, link);
		rc = mr_kallsyms_load_cached(&k, path, link, 2);
		ok(rc == 0 && !k.map && lstat(link, &st) == 0 && S_ISREG(st.st_mode),
		   "a link: not followed, replaced by a file");
		mr_kallsyms_free(&k);
		/* a file size limit below the copy's: not written (the write would raise
		 * SIGXFSZ and kill the report) */
		{
			struct rlimit old, low = { 100, 100 };

			unlink(cache);
			getrlimit(RLIMIT_FSIZE, &old);
			low.rlim_max = old.rlim_max;
			setrlimit(RLIMIT_FSIZE, &low);
			rc = mr_kallsyms_load_cached(&k, path, cache, 2);
			setrlimit(RLIMIT_FSIZE, &old);
			ok(rc == 0 && k.n == 3 && stat(cache, &st) != 0,
			   "a file size limit below the copy's: loaded, nothing written");
			mr_kallsyms_free(&k);
		}
		rc = mr_kallsyms_load_cached(&k, path, none, 2);
		ok(rc == 0 && k.n == 3 && stat(none, &st) != 0, "a directory that is not there: "
		   "loaded, nothing written");
		mr_kallsyms_free(&k);
		unlink(cache);
		unlink(link);
		rmdir(dir);
	}
	/* the key: the boot and each module's name, size and address, not its use count */
	{
		char mods[] = "/tmp/unit_kmodsXXXXXX";
		uint64_t k1, k2, k3, k4, k5;

		if ((fd = mkstemp(mods)) < 0)
			return 1;
		close(fd);
		write_file(mods, "memphismod 16384 0 - Live 0xffffffffc0a00000\n"
				 "ext4 1069056 2 mbcache,jbd2, Live 0xffffffffc0100000\n");
		k1 = mr_kallsyms_key("boot-a", mods);
		k2 = mr_kallsyms_key("boot-b", mods);
		write_file(mods, "memphismod 16384 3 - Live 0xffffffffc0a00000\n"
				 "ext4 1069056 2 mbcache,jbd2, Live 0xffffffffc0100000\n");
		k3 = mr_kallsyms_key("boot-a", mods);
		write_file(mods, "memphismod 16384 0 - Live 0xffffffffc0b00000\n"
				 "ext4 1069056 2 mbcache,jbd2, Live 0xffffffffc0100000\n");
		k4 = mr_kallsyms_key("boot-a", mods);
		unlink(mods);
		k5 = mr_kallsyms_key("boot-a", mods);
		ok(k1 != k2 && k1 == k3 && k1 != k4 && k5 != k1,
		   "the key: another boot, a module elsewhere, none: other keys; a use count: the same");
	}
	write_file(path, "0000000000000000 T _text\n0000000000000000 T clear_page_erms\n");
	ok(mr_kallsyms_load(&k, path) == -ENOENT && k.n == 0, "addresses hidden (all 0): -ENOENT");
	unlink(path);
	ok(mr_kallsyms_load(&k, path) == -ENOENT, "no file: -ENOENT");
	return tap_done();
}
