/* tests/fuzz/fuzz_samples3.c - libFuzzer entry for SAMPLES layout 3 (common/samples3.c):
 * the input is one block's payload. Checks, besides ASan/UBSan: a payload that decodes
 * re-encodes to the same bytes (a block has one encoding) and decodes again to the same
 * records; the fast decoders (with and without PEXT) and the checked one
 * (mph_s3_decode_checked) take the same payloads and give the same records; the input
 * read as raw 64-byte records encodes within MPH_S3_BOUND and decodes to them (their
 * reserved fields 0). Built by `make fuzz`, run by t_fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "samples3.h"

/* Decode p (len bytes): a malloc'd array of *n records, or NULL (refused). */
static struct memphis_rec_sample *decode(const uint8_t *p, size_t len, size_t *n)
{
	struct mph_s3_error e;
	struct memphis_rec_sample *s;

	if (mph_s3_count(p, len, n, &e))
		return NULL;
	if (*n > len / 3)
		abort(); /* the count is bounded by what the payload can hold */
	s = malloc((*n ? *n : 1) * sizeof(*s));
	if (!s)
		abort();
	struct memphis_rec_sample *c = malloc((*n ? *n : 1) * sizeof(*c));
	if (!c)
		abort();
	int slow = mph_s3_decode_checked(p, len, c, *n, &e);
	/* both fast decoders (PEXT's where the CPU has it) */
	for (int pext = mph_s3_decoder_pext(1); pext >= 0; pext--) {
		mph_s3_decoder_pext(pext);
		if (mph_s3_decode(p, len, s, *n, &e)) {
			if (e.off > len || !slow)
				abort();
			continue;
		}
		if (slow || memcmp(c, s, *n * sizeof(*s)))
			abort(); /* the checked decoder refused it, or read it otherwise */
	}
	free(c);
	if (slow) {
		free(s);
		return NULL;
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n, n2, len, raw = size / sizeof(struct memphis_rec_sample);
	struct memphis_rec_sample *s = decode(data, size, &n), *s2, *in;
	unsigned char *enc;

	if (s) {
		enc = malloc(MPH_S3_BOUND(n));
		if (!enc)
			abort();
		len = mph_s3_encode(s, n, enc);
		if (len != size || memcmp(enc, data, size))
			abort(); /* not the one encoding of these records */
		s2 = decode(enc, len, &n2);
		if (!s2 || n2 != n || memcmp(s2, s, n * sizeof(*s)))
			abort();
		free(s2);
		free(enc);
		free(s);
	}
	/* the other way: any records encode and decode back */
	in = malloc((raw ? raw : 1) * sizeof(*in));
	enc = malloc(MPH_S3_BOUND(raw));
	if (!in || !enc)
		abort();
	memcpy(in, data, raw * sizeof(*in));
	for (size_t i = 0; i < raw; i++) {
		in[i].reserved16 = 0;
		in[i].reserved = 0;
	}
	len = mph_s3_encode(in, raw, enc);
	if (len > MPH_S3_BOUND(raw))
		abort();
	s2 = decode(enc, len, &n2);
	if (!s2 || n2 != raw || memcmp(s2, in, raw * sizeof(*in)))
		abort();
	free(s2);
	free(enc);
	free(in);
	return 0;
}
