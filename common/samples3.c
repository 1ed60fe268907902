/* common/samples3.c - SAMPLES layout version 3, encoder and decoder (samples3.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "samples3.h"

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

int mph_s3_decode(const unsigned char *p, size_t len, struct memphis_rec_sample *out, size_t n,
		  struct mph_s3_error *e)
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
