// libmicrohttpd behind a few small functions: Swift cannot call MHD_start_daemon (variadic), and
// binding the listening socket here lets the caller choose the address and learn the port.
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// Binds and listens on `host:port` (a numeric address or a name; port 0 picks a free one) and
/// stores the bound port in `*bound`. Returns the socket, or -1 with `*error` set to an errno, or
/// to -(a getaddrinfo error) when the host does not resolve.
static inline int chatcap_http_listen(const char *host, uint16_t port, uint16_t *bound, int *error) {
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned) port);
    struct addrinfo *list = NULL;
    int status = getaddrinfo(host, service, &hints, &list);
    if (status != 0) {
        *error = status == EAI_SYSTEM ? errno : -status;
        return -1;
    }
    int fd = -1;
    *error = 0;
    for (struct addrinfo *a = list; a != NULL; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) { *error = errno; continue; }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) break;
        *error = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(list);
    if (fd < 0) return -1;
    struct sockaddr_storage address;
    socklen_t length = sizeof address;
    if (getsockname(fd, (struct sockaddr *) &address, &length) != 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    if (address.ss_family == AF_INET6) {
        *bound = ntohs(((struct sockaddr_in6 *) &address)->sin6_port);
    } else {
        *bound = ntohs(((struct sockaddr_in *) &address)->sin_port);
    }
    return fd;
}

/// The listener's policy and counters, shared by libmicrohttpd's thread (its callbacks below write
/// them) and any thread that reads them (`chatcap_http_guard_read`). Opaque to Swift.
///
/// libmicrohttpd, at its own connection limit, stops accepting: connections past it wait in the
/// kernel's backlog (connects hang once it is full) and nothing sees or counts them. So the daemon's
/// limit is set one above `limit` and never reached: the accept policy closes every connection past
/// `limit` at once (it is shed) and counts it. The per-address limit stays libmicrohttpd's; it
/// closes such a connection with the error-log message "Server reached connection limit", which the
/// logger counts, as it counts "Hit process or system resource limit" (accept failed: EMFILE/ENFILE).
struct chatcap_http_guard {
    unsigned int limit;
    atomic_uint open;
    atomic_ullong accepted;
    atomic_ullong shed_over_limit;
    atomic_ullong shed_over_address_limit;
    atomic_ullong accept_failures;
};

/// A copy of a guard's counters.
struct chatcap_http_figures {
    unsigned int limit;
    unsigned int open;
    unsigned long long accepted;
    unsigned long long shed_over_limit;
    unsigned long long shed_over_address_limit;
    unsigned long long accept_failures;
};

/// A guard for at most `limit` connections open at once, counters at 0; NULL without memory.
static inline struct chatcap_http_guard *chatcap_http_guard_create(unsigned int limit) {
    struct chatcap_http_guard *guard = calloc(1, sizeof *guard);
    if (guard != NULL) guard->limit = limit;
    return guard;
}

/// Frees a guard; only once its daemon has stopped (no callback can run any more).
static inline void chatcap_http_guard_destroy(struct chatcap_http_guard *guard) { free(guard); }

/// Copies the counters (each read atomically; together they are a moment's, not one instant's).
static inline struct chatcap_http_figures chatcap_http_guard_read(struct chatcap_http_guard *guard) {
    struct chatcap_http_figures figures;
    figures.limit = guard->limit;
    figures.open = atomic_load_explicit(&guard->open, memory_order_relaxed);
    figures.accepted = atomic_load_explicit(&guard->accepted, memory_order_relaxed);
    figures.shed_over_limit = atomic_load_explicit(&guard->shed_over_limit, memory_order_relaxed);
    figures.shed_over_address_limit = atomic_load_explicit(&guard->shed_over_address_limit, memory_order_relaxed);
    figures.accept_failures = atomic_load_explicit(&guard->accept_failures, memory_order_relaxed);
    return figures;
}

/// MHD_OPTION_ACCEPT_POLICY: sheds (and counts) a connection when `limit` are open. Runs on the
/// daemon's thread, after libmicrohttpd's per-address check and before the connection exists.
static inline enum MHD_Result chatcap_http_accept(void *context, const struct sockaddr *address, socklen_t length) {
    (void) address;
    (void) length;
    struct chatcap_http_guard *guard = context;
    if (atomic_load_explicit(&guard->open, memory_order_relaxed) >= guard->limit) {
        atomic_fetch_add_explicit(&guard->shed_over_limit, 1, memory_order_relaxed);
        return MHD_NO;
    }
    return MHD_YES;
}

/// MHD_OPTION_NOTIFY_CONNECTION: counts the connections open, and those accepted. Daemon's thread.
static inline void chatcap_http_notify(
    void *context, struct MHD_Connection *connection, void **socket_context, enum MHD_ConnectionNotificationCode code) {
    (void) connection;
    (void) socket_context;
    struct chatcap_http_guard *guard = context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        atomic_fetch_add_explicit(&guard->open, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&guard->accepted, 1, memory_order_relaxed);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        atomic_fetch_sub_explicit(&guard->open, 1, memory_order_relaxed);
    }
}

/// MHD_OPTION_EXTERNAL_LOGGER: prints nothing; counts the two messages that mean a connection was
/// not served (libmicrohttpd 0.9.75's texts; others are ignored).
static inline void chatcap_http_log(void *context, const char *format, va_list arguments) {
    (void) arguments;
    struct chatcap_http_guard *guard = context;
    if (strstr(format, "reached connection limit") != NULL) {
        atomic_fetch_add_explicit(&guard->shed_over_address_limit, 1, memory_order_relaxed);
    } else if (strstr(format, "resource limit") != NULL) {
        atomic_fetch_add_explicit(&guard->accept_failures, 1, memory_order_relaxed);
    }
}

/// MHD_OPTION_UNESCAPE_CALLBACK: percent-decodes `text` in place (the path, query names and values)
/// as libmicrohttpd does, except `%00`, which stays as those three characters: a decoded NUL would
/// end the C string the handler reads, cutting the path (`/x/pixelharbor%00/../y` read as
/// `/x/pixelharbor`). Returns the new length.
static inline size_t chatcap_http_unescape(void *context, struct MHD_Connection *connection, char *text) {
    (void) context;
    (void) connection;
    char *read = text;
    char *write = text;
    while (*read != '\0') {
        if (read[0] == '%' && isxdigit((unsigned char) read[1]) && isxdigit((unsigned char) read[2])) {
            char hex[3] = {read[1], read[2], '\0'};
            unsigned long value = strtoul(hex, NULL, 16);
            if (value != 0) {
                *write++ = (char) value;
                read += 3;
                continue;
            }
        }
        *write++ = *read++;
    }
    *write = '\0';
    return (size_t) (write - text);
}

/// Starts a daemon on the listening socket `fd` (which it then owns and closes when stopped): one
/// internal thread polling with epoll, at most `guard`'s limit of connections open (more are shed,
/// see ``chatcap_http_guard``), `per_ip_limit` from one address, each closed after
/// `timeout_seconds` without activity, `memory_limit` bytes of buffers each. Returns NULL when it
/// cannot start. `guard` must outlive the daemon.
static inline struct MHD_Daemon *chatcap_http_start(
    int fd, struct chatcap_http_guard *guard, unsigned int per_ip_limit, unsigned int timeout_seconds,
    size_t memory_limit, MHD_AccessHandlerCallback handler, void *context) {
    return MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, chatcap_http_accept, guard, handler, context,
        MHD_OPTION_EXTERNAL_LOGGER, chatcap_http_log, guard,
        MHD_OPTION_NOTIFY_CONNECTION, chatcap_http_notify, guard,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket) fd,
        MHD_OPTION_CONNECTION_LIMIT, guard->limit + 1,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_UNESCAPE_CALLBACK, chatcap_http_unescape, NULL,
        MHD_OPTION_END);
}

/// Queues a response of `length` bytes (copied) with `status`, a Content-Type, when not NULL an
/// `Allow` header, and `Access-Control-Allow-Origin: *` when `any_origin` (the public APIs only, never
/// /metrics or /healthz: a page in the operator's browser must not read those). Returns MHD_NO when
/// it could not.
static inline enum MHD_Result chatcap_http_respond(
    struct MHD_Connection *connection, unsigned int status, const char *content_type, const void *body,
    size_t length, const char *allow, int any_origin) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, (void *) body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    if (any_origin) MHD_add_response_header(response, "Access-Control-Allow-Origin", "*");
    if (allow != NULL) MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

/// The value of query argument `key` (percent-decoded by MHD), NULL when absent; "" for `?key`.
static inline const char *chatcap_http_query(struct MHD_Connection *connection, const char *key) {
    const char *value = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, key);
    return value;
}

/// Whether query argument `key` is present at all (also without a value).
static inline int chatcap_http_has_query(struct MHD_Connection *connection, const char *key) {
    return MHD_lookup_connection_value_n(connection, MHD_GET_ARGUMENT_KIND, key, strlen(key), NULL, NULL)
        == MHD_YES;
}

/// MHD_NO, for a handler that cannot answer (the enum's constants do not import into Swift).
static inline enum MHD_Result chatcap_http_refuse(void) { return MHD_NO; }
