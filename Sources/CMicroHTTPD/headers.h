// Responses with headers of the caller's choosing (HTTPListener+Headers.swift), beside shim.h's
// chatcap_http_respond: made, given their headers one by one, then queued.
#include <stddef.h>
#include <microhttpd.h>

/// A response of `length` bytes (copied) with a Content-Type, or NULL (`Access-Control-Allow-Origin`
/// only when the route asks, through chatcap_http_add_header). The caller adds headers and hands it to chatcap_http_queue.
static inline struct MHD_Response *chatcap_http_response(const void *body, size_t length, const char *content_type) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, (void *) body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return NULL;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    return response;
}

/// Adds a header (both strings copied); 0 when it could not.
static inline int chatcap_http_add_header(struct MHD_Response *response, const char *name, const char *value) {
    return MHD_add_response_header(response, name, value) == MHD_YES;
}

/// Queues `response` with `status` and releases the caller's reference.
static inline enum MHD_Result chatcap_http_queue(
    struct MHD_Connection *connection, unsigned int status, struct MHD_Response *response) {
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

/// A response whose body is produced as it is sent (chunked, size unknown): libmicrohttpd calls
/// `reader(context, …)` for each block of at most `block_size` bytes on its own thread, and
/// `release(context)` once the response is done with (sent, or the client went away). With a
/// Content-Type, or NULL.
static inline struct MHD_Response *chatcap_http_stream_response(
    size_t block_size, MHD_ContentReaderCallback reader, void *context, MHD_ContentReaderFreeCallback release,
    const char *content_type) {
    struct MHD_Response *response =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block_size, reader, context, release);
    if (response == NULL) return NULL;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    return response;
}

/// What a content reader returns at the end of its body (MHD_CONTENT_READER_END_OF_STREAM).
static inline ssize_t chatcap_http_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }

/// What a content reader returns when its body cannot be finished (MHD_CONTENT_READER_END_WITH_ERROR):
/// libmicrohttpd closes the connection, so the client sees the body cut off.
static inline ssize_t chatcap_http_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

/// The value of request header `name` (any case), NULL when absent.
static inline const char *chatcap_http_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}
