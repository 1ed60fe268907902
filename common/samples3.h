/* common/samples3.h - SAMPLES layout version 3 (include/memphis/format.h, docs/format.md):
 * the encoder the library writes with and the decoder every reader uses. A block's payload
 * is a ULEB128 record count, then the records, each a header byte (two with
 * MPH_S3_MORE), time and ip as zigzag deltas from the previous record, then the fields
 * the header names. Neither side allocates; the decoder checks every byte it reads. */
#ifndef MPH_SAMPLES3_H
#define MPH_SAMPLES3_H

#include <stddef.h>
#include <stdint.h>

#include "memphis/format.h"

/* The longest encoding of one record, and of a block of n records (count included). */
#define MPH_S3_REC_MAX 76u
#define MPH_S3_BOUND(n) (10u + (size_t)(n) * MPH_S3_REC_MAX)

/* Where and why a payload did not decode: byte offset in the payload, the record's index
 * (the count's: SIZE_MAX) and a message naming the field, without the file's name. */
struct mph_s3_error {
	size_t off;
	size_t rec;
	char msg[112];
};

/* Encode s[0..n) as one self-contained payload into out, which holds MPH_S3_BOUND(n)
 * bytes. The reserved fields are not stored (they decode as 0). Returns the bytes
 * written. */
size_t mph_s3_encode(const struct memphis_rec_sample *s, size_t n, unsigned char *out);

/* The record count a payload of len bytes announces: 0 and *n (at most what len bytes can
 * hold: 3 bytes a record), or -EINVAL and *e. */
int mph_s3_count(const unsigned char *p, size_t len, size_t *n, struct mph_s3_error *e);

/* Decode a whole payload into out[0..n), n as mph_s3_count gave it. 0, or -EINVAL and
 * *e when a record overruns the payload, a varint is longer than 10 bytes, not in its
 * shortest form or too large for its field, a header has unknown bits, or bytes follow
 * the last record; out[] is undefined then. */
int mph_s3_decode(const unsigned char *p, size_t len, struct memphis_rec_sample *out, size_t n,
		  struct mph_s3_error *e);
/* Set which of mph_s3_decode's two decoders, equal in what they answer, it uses: want 1
 * the one packing varints by BMI2's PEXT (when the CPU has it), 0 the other, -1 the one
 * for this CPU (PEXT where it is fast), which is also what it uses until told. Returns 1
 * when the PEXT one is in use. For the tests and the benchmark. */
int mph_s3_decoder_pext(int want);
/* The same answer (and out[]) as mph_s3_decode, checking byte by byte, slower: what gives
 * mph_s3_decode's message, and what the fuzz target holds it to. */
int mph_s3_decode_checked(const unsigned char *p, size_t len, struct memphis_rec_sample *out,
			  size_t n, struct mph_s3_error *e);

#endif /* MPH_SAMPLES3_H */
