// ISA-L's igzip (libisal-dev) behind a small C interface: gzip members compressed with isal_deflate and
// decompressed with isal_inflate. ISA-L's stream structs hold arrays of tens of KiB, which Swift would import
// as huge tuples; here they stay opaque, allocated once by the create functions.
#pragma once
#include <stdint.h>

/// Flush modes of `cisal_deflate`.
enum {
    /// Take the input; output appears as ISA-L fills its blocks.
    CISAL_NO_FLUSH = 0,
    /// Emit everything taken so far and byte-align with an empty stored block (zlib's Z_SYNC_FLUSH).
    CISAL_SYNC_FLUSH = 1,
    /// End the member: final block, then the gzip trailer (CRC-32 and size).
    CISAL_FINISH = 2,
};

/// A gzip member being compressed: an `isal_zstream` with `gzip_flag = IGZIP_GZIP`, its level buffer, and a
/// 64 KiB stage that gathers small writes (lines) into large isal_deflate calls.
typedef struct cisal_deflater cisal_deflater;

/// Allocates a deflater for ISA-L level 0...3; NULL for another level or when out of memory.
/// `level_buffer_size` is the size of the level buffer (levels 1...3; 0 picks ISA-L's medium size for the level).
cisal_deflater *cisal_deflater_create(int level, uint32_t level_buffer_size);
void cisal_deflater_destroy(cisal_deflater *deflater);
/// Starts a new member with the same level and buffers (after CISAL_FINISH, or to drop one unfinished).
void cisal_deflater_reset(cisal_deflater *deflater);
/// Bytes `cisal_deflater_create` allocated for `deflater` (stream state and level buffer).
uint64_t cisal_deflater_memory(const cisal_deflater *deflater);

/// Compresses up to `in_count` bytes at `in` into up to `out_count` bytes at `out` with `flush`.
///
/// Sets `*consumed` and `*produced`, and `*complete` to 1 when the request is done: for CISAL_NO_FLUSH all
/// input is taken (possibly only staged: nothing is promised about output before a flush), for
/// CISAL_SYNC_FLUSH all input is taken and the flush is written out, for CISAL_FINISH the member (trailer
/// included) is written out. Otherwise the output was full: call again with the rest and more room.
/// Returns 0 (COMP_OK) or ISA-L's negative error.
int cisal_deflate(cisal_deflater *deflater, const uint8_t *in, uint32_t in_count, uint8_t *out, uint32_t out_count,
                  int flush, uint32_t *consumed, uint32_t *produced, int *complete);

/// A gzip stream being decompressed: an `inflate_state` with `crc_flag = ISAL_GZIP` (header parsed, CRC-32
/// and size checked).
typedef struct cisal_inflater cisal_inflater;

/// Allocates an inflater ready for the first member; NULL when out of memory.
cisal_inflater *cisal_inflater_create(void);
void cisal_inflater_destroy(cisal_inflater *inflater);
/// Prepares for the next member after one ended (keeps the gzip settings).
void cisal_inflater_next_member(cisal_inflater *inflater);

/// Decompresses from `in` (`in_count` bytes) into `out` (`out_count` bytes).
///
/// Sets `*consumed` (input bytes ISA-L took, including bits it buffered but has not decoded yet),
/// `*produced`, and `*member_end` to 1 when the member's trailer was read and checked; the bytes after it
/// are not consumed. Returns 0 (ISAL_DECOMP_OK) or ISA-L's inflate result (negative for damage).
int cisal_inflate(cisal_inflater *inflater, const uint8_t *in, uint32_t in_count, uint8_t *out, uint32_t out_count,
                  uint32_t *consumed, uint32_t *produced, int *member_end);

/// Whether `result` of `cisal_inflate` means damage (a bad header, block, code, distance or check).
int cisal_inflate_failed(int result);

/// A static description of a `cisal_inflate` result, in zlib's words where zlib has them.
const char *cisal_inflate_message(int result);

/// Whether the inflater has started a member (read any of its bytes) that has not ended.
int cisal_inflater_in_member(const cisal_inflater *inflater);
