/* common/samples3.c - SAMPLES layout version 3, encoder and decoder (samples3.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "samples3.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "cpufamily.h"
#endif

/* The state both sides start each block with: what a field equal to it costs nothing. */
static void s3_start(struct memphis_rec_sample *prev, uint64_t *sip_delta)
{
	memset(prev, 0, sizeof(*prev));
	prev->weight = 1;
	*sip_delta = 0;
}

static uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)-(int64_t)(delta >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static unsigned char *put_u64(unsigned char *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*o++ = (unsigned char)v;
	return o;
}

size_t mph_s3_encode(const struct memphis_rec_sample *s, size_t n, unsigned char *out)
{
	struct memphis_rec_sample prev;
	uint64_t sip_delta;
	unsigned char *o = put_u64(out, n);

	s3_start(&prev, &sip_delta);
	for (size_t i = 0; i < n; i++) {
		const struct memphis_rec_sample *r = &s[i];
		uint64_t d = r->sampled_ip - r->ip;
		unsigned h = 0;

		h |= r->addr ? MPH_S3_ADDR : 0;
		h |= r->tid != prev.tid ? MPH_S3_TID : 0;
		h |= r->flags != prev.flags ? MPH_S3_FLAGS : 0;
		h |= d != sip_delta ? MPH_S3_SIP : 0;
		h |= r->region != prev.region ? MPH_S3_REGION : 0;
		h |= r->cpu != prev.cpu ? MPH_S3_CPU : 0;
		h |= r->weight != prev.weight ? MPH_S3_WEIGHT : 0;
		h |= r->ins_lat != prev.ins_lat ? MPH_S3_INS_LAT << 8 : 0;
		h |= r->data_src != prev.data_src ? MPH_S3_DATA_SRC << 8 : 0;
		if (h >> 8)
			h |= MPH_S3_MORE;
		*o++ = (unsigned char)h;
		if (h & MPH_S3_MORE)
			*o++ = (unsigned char)(h >> 8);
		o = put_u64(o, zigzag(r->time - prev.time));
		o = put_u64(o, zigzag(r->ip - prev.ip));
		if (h & MPH_S3_ADDR) {
			o = put_u64(o, zigzag(r->addr - prev.addr));
			prev.addr = r->addr;
		}
		if (h & MPH_S3_SIP)
			o = put_u64(o, zigzag(d));
		if (h & MPH_S3_TID)
			o = put_u64(o, r->tid);
		if (h & MPH_S3_REGION)
			o = put_u64(o, r->region);
		if (h & MPH_S3_CPU)
			o = put_u64(o, r->cpu);
		if (h & MPH_S3_FLAGS)
			o = put_u64(o, r->flags);
		if (h & MPH_S3_WEIGHT)
			o = put_u64(o, r->weight);
		if (h & MPH_S3_INS_LAT << 8)
			o = put_u64(o, r->ins_lat);
		if (h & MPH_S3_DATA_SRC << 8)
			o = put_u64(o, r->data_src);
		prev.time = r->time;
		prev.ip = r->ip;
		prev.tid = r->tid;
		prev.region = r->region;
		prev.cpu = r->cpu;
		prev.flags = r->flags;
		prev.weight = r->weight;
		prev.ins_lat = r->ins_lat;
		prev.data_src = r->data_src;
		sip_delta = d;
	}
	return (size_t)(o - out);
}

/* A decoder's position in one payload. */
struct s3_in {
	const unsigned char *p;
	size_t len, off, rec;
	struct mph_s3_error *e;
};

static int fail(struct s3_in *in, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct s3_in *in, size_t off, const char *fmt, ...)
{
	va_list ap;

	in->e->off = off;
	in->e->rec = in->rec;
	va_start(ap, fmt);
	vsnprintf(in->e->msg, sizeof(in->e->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* One ULEB128 value of at most `bits` bits (field: its name for the message). */
static int get(struct s3_in *in, const char *field, unsigned bits, uint64_t *v)
{
	size_t start = in->off;
	uint64_t r = 0;

	for (unsigned i = 0;; i++) {
		unsigned char b;

		if (in->off >= in->len)
			return fail(in, start, "%s: the payload ends inside it", field);
		b = in->p[in->off++];
		if (i == 9 && b > 1)
			return fail(in, start, "%s: varint longer than 64 bits", field);
		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (b & 0x80)
			continue;
		if (b == 0 && i > 0)
			return fail(in, start, "%s: varint not in its shortest form", field);
		break;
	}
	if (bits < 64 && r >> bits)
		return fail(in, start, "%s: value %llu beyond %u bits", field,
			    (unsigned long long)r, bits);
	*v = r;
	return 0;
}

int mph_s3_count(const unsigned char *p, size_t len, size_t *n, struct mph_s3_error *e)
{
	struct s3_in in = { p, len, 0, SIZE_MAX, e };
	uint64_t v;

	if (get(&in, "record count", 64, &v))
		return -EINVAL;
	if (v > (len - in.off) / 3)
		return fail(&in, 0, "record count %llu: more than its %zu bytes can hold",
			    (unsigned long long)v, len - in.off);
	*n = (size_t)v;
	return 0;
}

int mph_s3_decode_checked(const unsigned char *p, size_t len, struct memphis_rec_sample *out,
			  size_t n, struct mph_s3_error *e)
{
	struct s3_in in = { p, len, 0, SIZE_MAX, e };
	struct memphis_rec_sample prev;
	uint64_t sip_delta, v, count, prev_addr = 0;

	if (get(&in, "record count", 64, &count))
		return -EINVAL;
	if (count != n)
		return fail(&in, 0, "record count %llu, %zu expected", (unsigned long long)count, n);
	s3_start(&prev, &sip_delta);
	for (in.rec = 0; in.rec < n; in.rec++) {
		struct memphis_rec_sample *r = &out[in.rec];
		size_t start = in.off;
		unsigned h;

		if (in.off >= len)
			return fail(&in, start, "the payload ends before the record");
		h = p[in.off++];
		if (h & MPH_S3_MORE) {
			if (in.off >= len)
				return fail(&in, start, "the payload ends inside the header");
			h |= (unsigned)p[in.off++] << 8;
			if ((h >> 8) & ~(unsigned)(MPH_S3_INS_LAT | MPH_S3_DATA_SRC))
				return fail(&in, start, "header 0x%04x: unknown bits", h);
			if (!(h >> 8))
				return fail(&in, start, "header 0x%04x: a second byte of 0", h);
		}
		*r = prev;
		r->reserved16 = 0;
		r->reserved = 0;
		if (get(&in, "time", 64, &v))
			return -EINVAL;
		r->time = prev.time + unzigzag(v);
		if (get(&in, "ip", 64, &v))
			return -EINVAL;
		r->ip = prev.ip + unzigzag(v);
		r->addr = 0;
		if (h & MPH_S3_ADDR) {
			if (get(&in, "addr", 64, &v))
				return -EINVAL;
			r->addr = prev_addr + unzigzag(v);
			if (!r->addr)
				return fail(&in, start, "addr: 0 given as present");
			prev_addr = r->addr;
		}
		if (h & MPH_S3_SIP) {
			if (get(&in, "sampled_ip", 64, &v))
				return -EINVAL;
			if (unzigzag(v) == sip_delta)
				return fail(&in, start, "sampled_ip: given, but unchanged");
			sip_delta = unzigzag(v);
		}
		r->sampled_ip = r->ip + sip_delta;
#define FIELD(bit, name, bits, dst)                                                         \
		if (h & (bit)) {                                                            \
			if (get(&in, #name, bits, &v))                                      \
				return -EINVAL;                                             \
			if (v == (uint64_t)prev.name)                                       \
				return fail(&in, start, #name ": given, but unchanged");    \
			dst = v;                                                            \
		}
		FIELD(MPH_S3_TID, tid, 32, r->tid)
		FIELD(MPH_S3_REGION, region, 32, r->region)
		FIELD(MPH_S3_CPU, cpu, 16, r->cpu)
		FIELD(MPH_S3_FLAGS, flags, 16, r->flags)
		FIELD(MPH_S3_WEIGHT, weight, 32, r->weight)
		FIELD(MPH_S3_INS_LAT << 8, ins_lat, 16, r->ins_lat)
		FIELD(MPH_S3_DATA_SRC << 8, data_src, 64, r->data_src)
#undef FIELD
		prev = *r;
	}
	if (in.off != len) {
		in.rec = SIZE_MAX;
		return fail(&in, in.off, "%zu bytes after the last of its %zu records", len - in.off,
			    n);
	}
	return 0;
}

/* The low 7 bits of each byte of r, packed: by BMI2's PEXT (one instruction) when pext,
 * else in three steps of shifts and masks. */
static inline __attribute__((always_inline)) uint64_t pack7(uint64_t r, int pext)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (pext) {
		uint64_t packed;

		/* asm, not the intrinsic: the file is built for every x86-64 */
		__asm__("pextq %2, %1, %0" : "=r"(packed) : "r"(r), "r"(0x7f7f7f7f7f7f7f7full));
		return packed;
	}
#endif
	r &= 0x7f7f7f7f7f7f7f7full;
	r = ((r & 0x7f007f007f007f00ull) >> 1) | (r & 0x007f007f007f007full);
	r = ((r & 0x3fff00003fff0000ull) >> 2) | (r & 0x00003fff00003fffull);
	return ((r & 0x0fffffff00000000ull) >> 4) | (r & 0x000000000fffffffull);
}

/* One ULEB128 value at *pp, below end, of at most `bits` bits: 0, or -1 where
 * mph_s3_decode_checked's get() refuses it. pext: pack7's, a constant. */
static inline __attribute__((always_inline)) int uleb(const unsigned char **pp,
						      const unsigned char *end, int near_end,
						      unsigned bits, int pext, uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t r, stop;

	if (__builtin_expect((!near_end || p < end) && *p < 0x80, 1)) {
		*v = *p; /* one byte: shortest, and within every field's width */
		*pp = p + 1;
		return 0;
	}
	if (!near_end || end - p >= 8) {
		/* up to 8 bytes at once (little-endian): the 7-bit groups packed (pack7), no
		 * branch on the length */
		memcpy(&r, p, 8);
		stop = ~r & 0x8080808080808080ull;
		if (__builtin_expect(stop != 0, 1)) {
			unsigned nb = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;

			/* *p has its high bit (else the one-byte case): nb > 1 */
			if (!((r >> (8 * nb - 8)) & 0xff))
				return -1; /* not in its shortest form */
			/* the bytes up to the first without its high bit (stop's lowest bit) */
			r = pack7(r & (stop ^ (stop - 1)), pext);
			if (bits < 64 && r >> bits)
				return -1;
			*pp = p + nb;
			*v = r;
			return 0;
		}
	}
	r = 0;
	for (unsigned i = 0;; i++) {
		unsigned b;

		if (near_end && p >= end)
			return -1;
		b = *p++;
		if (i == 9 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << (7 * i);
		if (b < 0x80) {
			if (b == 0 && i > 0)
				return -1;
			break;
		}
	}
	if (bits < 64 && r >> bits)
		return -1;
	*pp = p;
	*v = r;
	return 0;
}

/* What a record can read at most before it is refused: the longest record
 * (MPH_S3_REC_MAX), one varint of 10 bytes where fewer were allowed, and the 8 bytes
 * uleb loads at once past a short last varint. */
#define S3_SLACK 128
_Static_assert(S3_SLACK >= MPH_S3_REC_MAX + 10 + 8, "S3_SLACK covers a record's reads");

/* The previous record's fields, kept in registers: read back from out[], a record
 * written field by field and loaded as a whole stalls on store forwarding. */
struct s3_state {
	uint64_t time, ip, data_src, sip_delta, prev_addr;
	uint32_t tid, region, weight;
	uint16_t cpu, flags, ins_lat;
};

/* Decode one record at *pp into *out. 0, or -1 as decode_fast. */
static inline __attribute__((always_inline)) int s3_record(const unsigned char **pp,
							   const unsigned char *end,
							   int near_end, int pext,
							   struct s3_state *st,
							   struct memphis_rec_sample *out)
{
	const unsigned char *p = *pp;
	uint64_t v, addr = 0;
	unsigned h;

	if (near_end && p >= end)
		return -1;
	h = *p++;
	if (h & MPH_S3_MORE) {
		if (near_end && p >= end)
			return -1;
		h |= (unsigned)*p++ << 8;
		if (((h >> 8) & ~(unsigned)(MPH_S3_INS_LAT | MPH_S3_DATA_SRC)) || !(h >> 8))
			return -1;
	}
	if (uleb(&p, end, near_end, 64, pext, &v))
		return -1;
	st->time += unzigzag(v);
	if (uleb(&p, end, near_end, 64, pext, &v))
		return -1;
	st->ip += unzigzag(v);
	if (h & MPH_S3_ADDR) {
		if (uleb(&p, end, near_end, 64, pext, &v))
			return -1;
		addr = st->prev_addr + unzigzag(v);
		if (!addr)
			return -1;
		st->prev_addr = addr;
	}
	if (h & MPH_S3_SIP) {
		if (uleb(&p, end, near_end, 64, pext, &v) || unzigzag(v) == st->sip_delta)
			return -1;
		st->sip_delta = unzigzag(v);
	}
	if (h & ~(unsigned)(MPH_S3_ADDR | MPH_S3_SIP | MPH_S3_MORE)) {
#define FAST_FIELD(bit, name, bits)                                                         \
		if (h & (bit)) {                                                            \
			if (uleb(&p, end, near_end, bits, pext, &v) || v == (uint64_t)st->name) \
				return -1;                                                  \
			st->name = v;                                                       \
		}
		FAST_FIELD(MPH_S3_TID, tid, 32)
		FAST_FIELD(MPH_S3_REGION, region, 32)
		FAST_FIELD(MPH_S3_CPU, cpu, 16)
		FAST_FIELD(MPH_S3_FLAGS, flags, 16)
		FAST_FIELD(MPH_S3_WEIGHT, weight, 32)
		FAST_FIELD(MPH_S3_INS_LAT << 8, ins_lat, 16)
		FAST_FIELD(MPH_S3_DATA_SRC << 8, data_src, 64)
#undef FAST_FIELD
	}
	*out = (struct memphis_rec_sample){
		.time = st->time, .ip = st->ip, .addr = addr, .sampled_ip = st->ip + st->sip_delta,
		.data_src = st->data_src, .tid = st->tid, .region = st->region,
		.weight = st->weight, .cpu = st->cpu, .flags = st->flags, .ins_lat = st->ins_lat,
	};
	*pp = p;
	return 0;
}

/* The decoding proper: what mph_s3_decode_checked accepts, at a few nanoseconds a record
 * (the checked one's calls per byte cost the report's pass half its time); -1 for the
 * rest, whose message the checked one gives. pext: pack7's, a constant. */
static inline __attribute__((always_inline)) int decode_fast(const unsigned char *p, size_t len,
							     struct memphis_rec_sample *out,
							     size_t n, int pext)
{
	const unsigned char *end = p + len;
	struct memphis_rec_sample z;
	struct s3_state st;
	uint64_t v;

	if (uleb(&p, end, 1, 64, pext, &v) || v != n)
		return -1;
	s3_start(&z, &st.sip_delta);
	st = (struct s3_state){ .time = z.time, .ip = z.ip, .data_src = z.data_src,
				.sip_delta = st.sip_delta, .prev_addr = 0, .tid = z.tid,
				.region = z.region, .weight = z.weight, .cpu = z.cpu,
				.flags = z.flags, .ins_lat = z.ins_lat };
	size_t i = 0;

	/* no bound checked inside a record while S3_SLACK bytes remain */
	for (; i < n && end - p >= S3_SLACK; i++)
		if (s3_record(&p, end, 0, pext, &st, &out[i]))
			return -1;
	for (; i < n; i++)
		if (s3_record(&p, end, 1, pext, &st, &out[i]))
			return -1;
	return p == end ? 0 : -1;
}

static int decode_plain(const unsigned char *p, size_t len, struct memphis_rec_sample *out,
			size_t n)
{
	return decode_fast(p, len, out, n, 0);
}

/* decode_plain by PEXT: only where the CPU has it (mph_s3_decoder_pext) */
static int decode_pext(const unsigned char *p, size_t len, struct memphis_rec_sample *out,
		       size_t n)
{
	return decode_fast(p, len, out, n, 1);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Whether this CPU has PEXT (BMI2). */
static int pext_have(void)
{
	return __builtin_cpu_supports("bmi2");
}

/* Whether PEXT is fast here: BMI2, and not an AMD (or Hygon, Zen 1's licensee) CPU before
 * Zen 3 (family 0x19), where it is microcoded at tens to hundreds of cycles. */
static int pext_fast(void)
{
	unsigned a, b, c, d, family, model;
	char vendor[12];

	if (!pext_have() || !__get_cpuid(0, &a, &b, &c, &d))
		return 0;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	if (memcmp(vendor, "AuthenticAMD", 12) && memcmp(vendor, "HygonGenuine", 12))
		return 1;
	mph_cpu_family_model(&family, &model);
	return family >= 0x19;
}
#else
static int pext_have(void)
{
	return 0;
}

static int pext_fast(void)
{
	return 0;
}
#endif

/* 1: decode by PEXT, 0: not, -1: not chosen yet. Relaxed atomics: every thread that
 * chooses chooses alike. */
static int s3_pext = -1;

int mph_s3_decoder_pext(int want)
{
	int c = want == 0 ? 0 : want == 1 ? pext_have() : pext_fast();

	__atomic_store_n(&s3_pext, c, __ATOMIC_RELAXED);
	return c;
}

/* Whether mph_s3_decode uses PEXT: chosen once (CPUID costs a VM exit). */
static int pext_in_use(void)
{
	int c = __atomic_load_n(&s3_pext, __ATOMIC_RELAXED);

	return c >= 0 ? c : mph_s3_decoder_pext(-1);
}

int mph_s3_decode(const unsigned char *p, size_t len, struct memphis_rec_sample *out, size_t n,
		  struct mph_s3_error *e)
{
	int r = pext_in_use() ? decode_pext(p, len, out, n) : decode_plain(p, len, out, n);

	if (r == 0)
		return 0;
	if (mph_s3_decode_checked(p, len, out, n, e) == 0) {
		/* cannot be: both take the same payloads (fuzz_samples3 checks) */
		e->off = 0;
		e->rec = SIZE_MAX;
		snprintf(e->msg, sizeof(e->msg), "the two decoders disagree");
	}
	return -EINVAL;
}
