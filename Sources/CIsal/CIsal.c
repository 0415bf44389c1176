// See include/CIsal.h.
#include "CIsal.h"

#include <isa-l/igzip_lib.h>
#include <stdlib.h>
#include <string.h>

/// Input is gathered here and handed to isal_deflate in large pieces. Fed line by line, isal_deflate
/// compresses on every call once the current block holds over 32 KiB, and each of those calls first
/// shifts its 32 KiB history down (a memmove per line: a fifth of capture's CPU). A full stage is one call.
#define CISAL_STAGE_SIZE (64 * 1024)

struct cisal_deflater {
    struct isal_zstream stream;
    uint64_t memory;
    /// Staged input not yet taken by isal_deflate: stage[stage_start ..< stage_end].
    uint32_t stage_start;
    uint32_t stage_end;
    uint8_t stage[CISAL_STAGE_SIZE];
};

struct cisal_inflater {
    struct inflate_state state;
    /// Whether any byte of the current member was taken.
    int started;
};

/// ISA-L's "medium" level buffers (room for 32 K tokens): on capture-like input (many streams, sync flushes)
/// within 1% of the default "large" ones in speed and size, at half the memory per open file.
static uint32_t default_level_buffer_size(int level) {
    switch (level) {
    case 1: return ISAL_DEF_LVL1_MEDIUM;
    case 2: return ISAL_DEF_LVL2_MEDIUM;
    case 3: return ISAL_DEF_LVL3_MEDIUM;
    default: return 0;
    }
}

cisal_deflater *cisal_deflater_create(int level, uint32_t level_buffer_size) {
    if (level < ISAL_DEF_MIN_LEVEL || level > ISAL_DEF_MAX_LEVEL) return NULL;
    uint32_t size = level == 0 ? 0 : (level_buffer_size ? level_buffer_size : default_level_buffer_size(level));
    // 64-byte alignment: ISA-L's vector code reads the state and the level buffer in whole cache lines.
    cisal_deflater *deflater = aligned_alloc(64, (sizeof(cisal_deflater) + 63) & ~(size_t)63);
    if (!deflater) return NULL;
    uint8_t *buffer = NULL;
    if (size > 0) {
        buffer = aligned_alloc(64, ((size_t)size + 63) & ~(size_t)63);
        if (!buffer) {
            free(deflater);
            return NULL;
        }
    }
    isal_deflate_init(&deflater->stream);
    deflater->stream.level = (uint32_t)level;
    deflater->stream.level_buf = buffer;
    deflater->stream.level_buf_size = size;
    deflater->stream.gzip_flag = IGZIP_GZIP;
    deflater->stream.flush = NO_FLUSH;
    deflater->stream.end_of_stream = 0;
    deflater->stage_start = 0;
    deflater->stage_end = 0;
    deflater->memory = sizeof(cisal_deflater) + size;
    return deflater;
}

void cisal_deflater_destroy(cisal_deflater *deflater) {
    if (!deflater) return;
    free(deflater->stream.level_buf);
    free(deflater);
}

void cisal_deflater_reset(cisal_deflater *deflater) {
    // Keeps the level and level buffer (igzip_lib.h); the flush and end-of-stream flags are set by every
    // cisal_deflate call. The wrapper is set again: once the header is out, ISA-L marks the stream
    // IGZIP_GZIP_NO_HDR, and a reset alone would start the next member without one.
    isal_deflate_reset(&deflater->stream);
    deflater->stream.gzip_flag = IGZIP_GZIP;
    deflater->stage_start = 0;
    deflater->stage_end = 0;
}

uint64_t cisal_deflater_memory(const cisal_deflater *deflater) { return deflater->memory; }

int cisal_deflate(cisal_deflater *deflater, const uint8_t *in, uint32_t in_count, uint8_t *out, uint32_t out_count,
                  int flush, uint32_t *consumed, uint32_t *produced, int *complete) {
    struct isal_zstream *stream = &deflater->stream;
    uint32_t taken = 0;
    uint32_t made = 0;
    int result = COMP_OK;
    int done = 0;
    for (;;) {
        // Stage as much input as fits.
        if (deflater->stage_start == deflater->stage_end) {
            deflater->stage_start = deflater->stage_end = 0;
        } else if (deflater->stage_end == CISAL_STAGE_SIZE && deflater->stage_start > 0 && taken < in_count) {
            // Rare: the output filled while the stage was being compressed. isal_deflate keeps no pointer into
            // input it has not taken, so the rest may move.
            memmove(deflater->stage, deflater->stage + deflater->stage_start,
                    deflater->stage_end - deflater->stage_start);
            deflater->stage_end -= deflater->stage_start;
            deflater->stage_start = 0;
        }
        uint32_t room = CISAL_STAGE_SIZE - deflater->stage_end;
        uint32_t copy = in_count - taken < room ? in_count - taken : room;
        if (copy > 0) {
            memcpy(deflater->stage + deflater->stage_end, in + taken, copy);
            deflater->stage_end += copy;
            taken += copy;
        }
        int all_staged = taken == in_count;
        if (flush == CISAL_NO_FLUSH && all_staged && deflater->stage_end < CISAL_STAGE_SIZE) {
            done = 1;  // everything is staged; the stage is compressed when it fills or at a flush
            break;
        }
        if (made == out_count) break;  // no room left to compress into

        // Compress the stage; the flush or the member end only once all input is staged.
        stream->next_in = deflater->stage + deflater->stage_start;
        stream->avail_in = deflater->stage_end - deflater->stage_start;
        stream->next_out = out + made;
        stream->avail_out = out_count - made;
        stream->flush = all_staged && flush == CISAL_SYNC_FLUSH ? SYNC_FLUSH : NO_FLUSH;
        stream->end_of_stream = all_staged && flush == CISAL_FINISH ? 1 : 0;
        uint32_t before = stream->avail_in;
        uint32_t room_out = stream->avail_out;
        result = isal_deflate(stream);
        deflater->stage_start += before - stream->avail_in;
        made += room_out - stream->avail_out;
        int stage_empty = stream->avail_in == 0;
        int out_left = stream->avail_out > 0;
        stream->next_in = NULL;
        stream->avail_in = 0;
        stream->next_out = NULL;
        stream->avail_out = 0;
        if (result != COMP_OK) break;
        if (all_staged && stage_empty) {
            if (flush == CISAL_NO_FLUSH) {
                done = 1;
            } else if (flush == CISAL_SYNC_FLUSH) {
                // igzip_lib.h: "Checking that the out_buffer is not empty or that internal_state.state =
                // ZSTATE_NEW_HDR is sufficient to guarantee all input has been flushed."
                done = stream->internal_state.state == ZSTATE_NEW_HDR || out_left;
            } else {
                done = stream->internal_state.state == ZSTATE_END;
            }
            if (done || !out_left) break;
        } else if (!out_left) {
            break;
        }
    }
    *consumed = taken;
    *produced = made;
    *complete = done;
    return result;
}

cisal_inflater *cisal_inflater_create(void) {
    cisal_inflater *inflater = aligned_alloc(64, (sizeof(cisal_inflater) + 63) & ~(size_t)63);
    if (!inflater) return NULL;
    isal_inflate_init(&inflater->state);
    inflater->state.crc_flag = ISAL_GZIP;
    inflater->started = 0;
    return inflater;
}

void cisal_inflater_destroy(cisal_inflater *inflater) { free(inflater); }

void cisal_inflater_next_member(cisal_inflater *inflater) {
    isal_inflate_reset(&inflater->state);
    inflater->state.crc_flag = ISAL_GZIP;
    inflater->started = 0;
}

int cisal_inflate(cisal_inflater *inflater, const uint8_t *in, uint32_t in_count, uint8_t *out, uint32_t out_count,
                  uint32_t *consumed, uint32_t *produced, int *member_end) {
    struct inflate_state *state = &inflater->state;
    state->next_in = (uint8_t *)in;
    state->avail_in = in_count;
    state->next_out = out;
    state->avail_out = out_count;
    int result = state->block_state == ISAL_BLOCK_FINISH ? ISAL_DECOMP_OK : isal_inflate(state);
    *consumed = in_count - state->avail_in;
    *produced = out_count - state->avail_out;
    if (*consumed > 0) inflater->started = 1;
    *member_end = state->block_state == ISAL_BLOCK_FINISH;
    state->next_in = NULL;
    state->avail_in = 0;
    state->next_out = NULL;
    state->avail_out = 0;
    return result;
}

int cisal_inflater_in_member(const cisal_inflater *inflater) {
    return inflater->started && inflater->state.block_state != ISAL_BLOCK_FINISH;
}

int cisal_inflate_failed(int result) {
    // ISAL_END_INPUT and ISAL_OUT_OVERFLOW are progress, not damage; the header-buffer overflows cannot
    // happen (no header buffers are given), and a gzip stream never asks for a dictionary.
    return result != ISAL_DECOMP_OK && result != ISAL_END_INPUT && result != ISAL_OUT_OVERFLOW;
}

const char *cisal_inflate_message(int result) {
    switch (result) {
    case ISAL_INVALID_BLOCK: return "invalid block type";
    case ISAL_INVALID_SYMBOL: return "invalid code";
    case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER: return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
    case ISAL_NEED_DICT: return "needs a preset dictionary";
    default: return "igzip error";
    }
}
