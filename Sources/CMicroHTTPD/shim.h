// libmicrohttpd behind a few small functions: Swift cannot call MHD_start_daemon (variadic), and
// binding the listening socket here lets the caller choose the address and learn the port.
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
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
#include <pthread.h>
#include <time.h>
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

/// One open connection, as the guard tracks it for its deadline: its socket, whether it was answered
/// busy at once (its request, if it comes, is refused), whether its thread has been seen (it sent a
/// whole request line: ``chatcap_http_request_line``), whether it was answered a head too big
/// (``chatcap_http_answer_too_big``), and the time (CLOCK_MONOTONIC, ms) by which it must have sent a
/// whole request head (0: none, while a request is being answered).
struct chatcap_http_slot {
    int used;
    int fd;
    int answered_busy;
    int claimed;
    int answered_too_big;
    long long deadline_ms;
};

/// Where the calling thread keeps the slot of the connection it serves, once it has seen a request
/// line (libmicrohttpd's thread per connection: a thread serves one connection for its whole life).
/// A function's static: Swift's importer emits the header's functions, not its variables.
static inline struct chatcap_http_slot **chatcap_http_own_slot(void) {
    static _Thread_local struct chatcap_http_slot *slot;
    return &slot;
}

/// The listener's policy and counters, shared by libmicrohttpd's threads (its callbacks below write
/// them), the sweeper thread (deadlines) and any thread that reads them (`chatcap_http_guard_read`).
/// Opaque to Swift.
///
/// A request head past the connection's memory (a request line, 414; headers, 431) libmicrohttpd
/// refuses itself, in its own HTML, with no callback that could change the answer. It logs the refusal
/// first, on the connection's thread, before it sends: the logger then writes the router's answer
/// (`too_big_answer`: the API's error shape) on that connection and shuts its write side, so that
/// libmicrohttpd's own answer is never sent (its send fails; it closes the connection). See
/// ``chatcap_http_answer_too_big`` for how the connection is known.
///
/// libmicrohttpd, at its own connection limit, stops accepting: connections past it wait in the
/// kernel's backlog (connects hang once it is full) and nothing sees or counts them. So the daemon's
/// limit is set one above `limit + busy` and never reached. Past `limit` open connections, the next
/// `busy` are answered at once with `busy_answer` (a whole HTTP response: 503 in the API's error
/// shape), their write side shut, and closed a second later at most; past `limit + busy` the accept
/// policy closes a connection at once (it is shed) and counts it. The per-address limit stays
/// libmicrohttpd's; it closes such a connection with the error-log message "Server reached
/// connection limit", which the logger counts, as it counts "Hit process or system resource limit"
/// (accept failed: EMFILE/ENFILE).
///
/// With `request_timeout_ms`, a connection that has not sent a whole request head that long after it
/// was accepted, or after its previous answer was sent, is shut down by the sweeper thread (a slow
/// client cannot hold a connection by sending a byte now and then: libmicrohttpd's own timeout only
/// counts inactivity). The slots are guarded by `lock`; libmicrohttpd calls the close notification
/// (which frees a slot under the lock) before it closes the socket, so the sweeper never shuts a
/// descriptor that was closed and reused.
struct chatcap_http_guard {
    unsigned int limit;
    unsigned int busy;
    long long request_timeout_ms;
    char *busy_answer;
    size_t busy_length;
    /// The answers to a request line too long (414) and to headers too large (431).
    char *too_big_answer[2];
    size_t too_big_length[2];
    pthread_mutex_t lock;
    struct chatcap_http_slot *slots;
    unsigned int slot_count;
    pthread_t sweeper;
    int sweeping;
    atomic_int stopping;
    atomic_uint open;
    atomic_ullong accepted;
    atomic_ullong shed_over_limit;
    atomic_ullong shed_over_address_limit;
    atomic_ullong accept_failures;
    atomic_ullong answered_busy;
    atomic_ullong cut_slow;
};

/// A copy of a guard's counters.
struct chatcap_http_figures {
    unsigned int limit;
    unsigned int open;
    unsigned long long accepted;
    unsigned long long shed_over_limit;
    unsigned long long shed_over_address_limit;
    unsigned long long accept_failures;
    unsigned long long answered_busy;
    unsigned long long cut_slow;
};

/// Now on CLOCK_MONOTONIC, in milliseconds.
static inline long long chatcap_http_now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long) now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/// A copy of `length` bytes (at least one byte allocated), or NULL without memory.
static inline char *chatcap_http_copy(const void *bytes, size_t length) {
    char *copy = malloc(length > 0 ? length : 1);
    if (copy != NULL && length > 0) memcpy(copy, bytes, length);
    return copy;
}

/// A guard for `limit` connections served at once and `busy` more answered `busy_answer` (its
/// `busy_length` bytes are copied; with `busy` 0 they are shed instead), each given
/// `request_timeout_ms` to send a request head (0: no limit); a request line too long answered
/// `uri_answer`, headers too large `headers_answer` (copied; empty: libmicrohttpd's own answer);
/// counters at 0; NULL without memory.
static inline struct chatcap_http_guard *chatcap_http_guard_create(
    unsigned int limit, unsigned int busy, long long request_timeout_ms, const void *busy_answer,
    size_t busy_length, const void *uri_answer, size_t uri_length, const void *headers_answer,
    size_t headers_length) {
    struct chatcap_http_guard *guard = calloc(1, sizeof *guard);
    if (guard == NULL) return NULL;
    guard->limit = limit;
    guard->busy = busy_length > 0 ? busy : 0;
    guard->request_timeout_ms = request_timeout_ms;
    guard->slot_count = limit + guard->busy + 2;
    guard->slots = calloc(guard->slot_count, sizeof *guard->slots);
    guard->busy_answer = chatcap_http_copy(busy_answer, busy_length);
    guard->too_big_answer[0] = chatcap_http_copy(uri_answer, uri_length);
    guard->too_big_answer[1] = chatcap_http_copy(headers_answer, headers_length);
    if (guard->slots == NULL || guard->busy_answer == NULL || guard->too_big_answer[0] == NULL
        || guard->too_big_answer[1] == NULL) {
        free(guard->slots);
        free(guard->busy_answer);
        free(guard->too_big_answer[0]);
        free(guard->too_big_answer[1]);
        free(guard);
        return NULL;
    }
    guard->busy_length = busy_length;
    guard->too_big_length[0] = uri_length;
    guard->too_big_length[1] = headers_length;
    pthread_mutex_init(&guard->lock, NULL);
    return guard;
}

/// Frees a guard; only once its daemon has stopped (`chatcap_http_stop`: no callback can run any more).
static inline void chatcap_http_guard_destroy(struct chatcap_http_guard *guard) {
    pthread_mutex_destroy(&guard->lock);
    free(guard->slots);
    free(guard->busy_answer);
    free(guard->too_big_answer[0]);
    free(guard->too_big_answer[1]);
    free(guard);
}

/// Copies the counters (each read atomically; together they are a moment's, not one instant's).
static inline struct chatcap_http_figures chatcap_http_guard_read(struct chatcap_http_guard *guard) {
    struct chatcap_http_figures figures;
    figures.limit = guard->limit;
    figures.open = atomic_load_explicit(&guard->open, memory_order_relaxed);
    figures.accepted = atomic_load_explicit(&guard->accepted, memory_order_relaxed);
    figures.shed_over_limit = atomic_load_explicit(&guard->shed_over_limit, memory_order_relaxed);
    figures.shed_over_address_limit = atomic_load_explicit(&guard->shed_over_address_limit, memory_order_relaxed);
    figures.accept_failures = atomic_load_explicit(&guard->accept_failures, memory_order_relaxed);
    figures.answered_busy = atomic_load_explicit(&guard->answered_busy, memory_order_relaxed);
    figures.cut_slow = atomic_load_explicit(&guard->cut_slow, memory_order_relaxed);
    return figures;
}

/// MHD_OPTION_ACCEPT_POLICY: sheds (and counts) a connection when `limit + busy` are open. Runs on
/// the accepting thread, after libmicrohttpd's per-address check and before the connection exists.
static inline enum MHD_Result chatcap_http_accept(void *context, const struct sockaddr *address, socklen_t length) {
    (void) address;
    (void) length;
    struct chatcap_http_guard *guard = context;
    if (atomic_load_explicit(&guard->open, memory_order_relaxed) >= guard->limit + guard->busy) {
        atomic_fetch_add_explicit(&guard->shed_over_limit, 1, memory_order_relaxed);
        return MHD_NO;
    }
    return MHD_YES;
}

/// The connection's slot (its socket context), or NULL.
static inline struct chatcap_http_slot *chatcap_http_slot_of(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// MHD_OPTION_NOTIFY_CONNECTION: counts the connections open, and those accepted; gives each a slot
/// and its first deadline; answers one past `limit` busy at once. STARTED
/// runs on the accepting thread, CLOSED on the thread that cleans the connection up: the slots are
/// changed under the lock, the counters atomically.
static inline void chatcap_http_notify(
    void *context, struct MHD_Connection *connection, void **socket_context, enum MHD_ConnectionNotificationCode code) {
    struct chatcap_http_guard *guard = context;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        unsigned int open = atomic_fetch_add_explicit(&guard->open, 1, memory_order_relaxed) + 1;
        atomic_fetch_add_explicit(&guard->accepted, 1, memory_order_relaxed);
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        int fd = info == NULL ? -1 : info->connect_fd;
        long long now = chatcap_http_now_ms();
        pthread_mutex_lock(&guard->lock);
        struct chatcap_http_slot *slot = NULL;
        for (unsigned int i = 0; i < guard->slot_count && fd >= 0; i++) {
            if (!guard->slots[i].used) {
                slot = &guard->slots[i];
                break;
            }
        }
        if (slot != NULL) {
            slot->used = 1;
            slot->fd = fd;
            slot->answered_busy = 0;
            slot->claimed = 0;
            slot->answered_too_big = 0;
            slot->deadline_ms = guard->request_timeout_ms > 0 ? now + guard->request_timeout_ms : 0;
            if (guard->busy > 0 && open > guard->limit) {
                // Small enough for an empty socket buffer: sent whole or not at all, never blocking.
                (void) send(fd, guard->busy_answer, guard->busy_length, MSG_NOSIGNAL | MSG_DONTWAIT);
                shutdown(fd, SHUT_WR);
                slot->answered_busy = 1;
                slot->deadline_ms = now + 1000;
                atomic_fetch_add_explicit(&guard->answered_busy, 1, memory_order_relaxed);
            }
        }
        *socket_context = slot;
        pthread_mutex_unlock(&guard->lock);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        struct chatcap_http_slot *slot = *socket_context;
        if (slot != NULL) {
            pthread_mutex_lock(&guard->lock);
            slot->used = 0;
            slot->deadline_ms = 0;
            pthread_mutex_unlock(&guard->lock);
            *socket_context = NULL;
        }
        atomic_fetch_sub_explicit(&guard->open, 1, memory_order_relaxed);
    }
}

/// MHD_OPTION_NOTIFY_COMPLETED: a request's answer was sent (or given up); the connection's next
/// request head is due within the timeout. The connection's thread.
static inline void chatcap_http_completed(
    void *context, struct MHD_Connection *connection, void **request_context, enum MHD_RequestTerminationCode code) {
    (void) request_context;
    (void) code;
    struct chatcap_http_guard *guard = context;
    struct chatcap_http_slot *slot = chatcap_http_slot_of(connection);
    if (slot == NULL || guard->request_timeout_ms <= 0) return;
    pthread_mutex_lock(&guard->lock);
    slot->deadline_ms = chatcap_http_now_ms() + guard->request_timeout_ms;
    pthread_mutex_unlock(&guard->lock);
}

/// Called by the access handler as a request head is complete: 1 when the connection was already
/// answered busy (the handler then refuses it: the connection closes), else 0, the deadline lifted
/// while the request is answered. The connection's thread.
static inline int chatcap_http_request_began(struct chatcap_http_guard *guard, struct MHD_Connection *connection) {
    struct chatcap_http_slot *slot = chatcap_http_slot_of(connection);
    if (slot == NULL) return 0;
    pthread_mutex_lock(&guard->lock);
    int answered = slot->answered_busy;
    if (!answered) slot->deadline_ms = 0;
    pthread_mutex_unlock(&guard->lock);
    return answered;
}

/// The sweeper: every 100 ms, shuts down each connection past its deadline (libmicrohttpd then sees
/// the end of the stream and closes it on its own thread) and counts those cut for slowness.
static inline void *chatcap_http_sweep(void *context) {
    struct chatcap_http_guard *guard = context;
    while (!atomic_load_explicit(&guard->stopping, memory_order_relaxed)) {
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
        long long now = chatcap_http_now_ms();
        pthread_mutex_lock(&guard->lock);
        for (unsigned int i = 0; i < guard->slot_count; i++) {
            struct chatcap_http_slot *slot = &guard->slots[i];
            if (!slot->used || slot->deadline_ms == 0 || now < slot->deadline_ms) continue;
            // Counted first: whoever sees the connection end sees it counted.
            if (!slot->answered_busy) atomic_fetch_add_explicit(&guard->cut_slow, 1, memory_order_relaxed);
            shutdown(slot->fd, SHUT_RDWR);
            slot->deadline_ms = 0;
        }
        pthread_mutex_unlock(&guard->lock);
    }
    return NULL;
}

/// MHD_OPTION_URI_LOG_CALLBACK: a request line has been read on this connection's thread; the
/// thread now knows its connection's slot (``chatcap_http_own_slot``), and the slot is claimed.
/// Returns NULL (no request context).
static inline void *chatcap_http_request_line(void *context, const char *uri, struct MHD_Connection *connection) {
    (void) uri;
    struct chatcap_http_guard *guard = context;
    struct chatcap_http_slot *slot = chatcap_http_slot_of(connection);
    if (slot == NULL) return NULL;
    pthread_mutex_lock(&guard->lock);
    slot->claimed = 1;
    pthread_mutex_unlock(&guard->lock);
    *chatcap_http_own_slot() = slot;
    return NULL;
}

/// Answers the connection of the calling thread (a connection thread, in libmicrohttpd's logger, as
/// it refuses a head too big with `status`: 414 or 431) with the guard's answer for `status`, shuts
/// its write side and reads what it has sent meanwhile (so that closing it does not reset the answer
/// away). libmicrohttpd's own answer then fails to send.
///
/// Which connection: the thread's slot once it has seen a request line (headers too large; a later
/// request of a kept-alive connection). A first request line too long comes before any callback of
/// the thread: its slot is then the one not yet claimed, if there is one only (other connections that
/// have not sent a line yet, such as idle pre-connections, make it ambiguous: libmicrohttpd's own
/// answer goes out).
static inline void chatcap_http_answer_too_big(struct chatcap_http_guard *guard, unsigned int status) {
    int which = status == 414 ? 0 : 1;
    if (guard->too_big_length[which] == 0) return;
    pthread_mutex_lock(&guard->lock);
    struct chatcap_http_slot *slot = *chatcap_http_own_slot();
    if (slot < guard->slots || slot >= guard->slots + guard->slot_count || !slot->used) slot = NULL;
    if (slot == NULL && status == 414) {
        for (unsigned int i = 0; i < guard->slot_count; i++) {
            struct chatcap_http_slot *candidate = &guard->slots[i];
            if (!candidate->used || candidate->claimed) continue;
            if (slot != NULL) {
                slot = NULL;
                break;
            }
            slot = candidate;
        }
    }
    if (slot != NULL && !slot->answered_busy && !slot->answered_too_big) {
        // Small enough for an empty socket buffer: sent whole or not at all, never blocking.
        (void) send(slot->fd, guard->too_big_answer[which], guard->too_big_length[which], MSG_NOSIGNAL | MSG_DONTWAIT);
        shutdown(slot->fd, SHUT_WR);
        slot->answered_too_big = 1;
        char discard[4096];
        for (int i = 0; i < 256 && recv(slot->fd, discard, sizeof discard, MSG_DONTWAIT) > 0; i++) {}
    }
    pthread_mutex_unlock(&guard->lock);
}

/// MHD_OPTION_EXTERNAL_LOGGER: prints nothing; counts the two messages that mean a connection was
/// not served, and answers a head too big in the API's shape (``chatcap_http_answer_too_big``)
/// (libmicrohttpd 0.9.75's texts; others are ignored).
static inline void chatcap_http_log(void *context, const char *format, va_list arguments) {
    struct chatcap_http_guard *guard = context;
    if (strstr(format, "Error processing request (HTTP response code is %u") != NULL) {
        va_list copy;
        va_copy(copy, arguments);
        unsigned int status = va_arg(copy, unsigned int);
        va_end(copy);
        if (status == 414 || status == 431) chatcap_http_answer_too_big(guard, status);
    } else if (strstr(format, "reached connection limit") != NULL) {
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
/// internal thread that accepts, and a thread per connection (libmicrohttpd's
/// MHD_USE_THREAD_PER_CONNECTION), which reads its requests, calls the handler and the body's reader,
/// and sends: a request that takes long (a search reading an archive, a body read from disk) holds its
/// own thread and no other connection. At most `guard`'s `limit + busy` connections open, so at most
/// as many threads (more are
/// shed, see ``chatcap_http_guard``), `per_ip_limit` from one address, each closed after
/// `timeout_seconds` without activity, `memory_limit` bytes of buffers each (a request line and
/// headers must fit: past it the guard's answers, ``chatcap_http_answer_too_big``), and the sweeper thread when the guard has a request timeout or a busy band.
/// Returns NULL when it cannot start. `guard` must outlive the daemon; stop it with `chatcap_http_stop`.
static inline struct MHD_Daemon *chatcap_http_start(
    int fd, struct chatcap_http_guard *guard, unsigned int per_ip_limit, unsigned int timeout_seconds,
    size_t memory_limit, MHD_AccessHandlerCallback handler, void *context) {
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0, chatcap_http_accept, guard, handler, context,
        MHD_OPTION_EXTERNAL_LOGGER, chatcap_http_log, guard,
        MHD_OPTION_NOTIFY_CONNECTION, chatcap_http_notify, guard,
        MHD_OPTION_NOTIFY_COMPLETED, chatcap_http_completed, guard,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket) fd,
        MHD_OPTION_CONNECTION_LIMIT, guard->limit + guard->busy + 1,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_UNESCAPE_CALLBACK, chatcap_http_unescape, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, chatcap_http_request_line, guard,
        MHD_OPTION_END);
    if (daemon != NULL && (guard->request_timeout_ms > 0 || guard->busy > 0)) {
        guard->sweeping = pthread_create(&guard->sweeper, NULL, chatcap_http_sweep, guard) == 0;
    }
    return daemon;
}

/// Shuts down (both ways) every open connection's socket, as the sweeper does: its thread sees the end
/// of the stream and closes it. The caller's thread, under the guard's lock.
static inline void chatcap_http_shut_all(struct chatcap_http_guard *guard) {
    pthread_mutex_lock(&guard->lock);
    for (unsigned int i = 0; i < guard->slot_count; i++) {
        if (guard->slots[i].used) shutdown(guard->slots[i].fd, SHUT_RDWR);
    }
    pthread_mutex_unlock(&guard->lock);
}

/// Stops the daemon (every connection closed, no callback runs after) and then the sweeper.
///
/// The connections are closed before the daemon is told to stop, not by it: libmicrohttpd 0.9.75
/// crashes (a NULL response in `build_header_response`) when a connection's thread refuses a request
/// itself (a head too big, a malformed header) after `MHD_stop_daemon` has begun, since
/// `MHD_queue_response` then queues nothing and says it did. So the daemon first stops accepting
/// (`MHD_quiesce_daemon`), every connection is shut down until none is open (each closed on its own
/// thread, its callbacks run, its thread joined: ``chatcap_http_notify``'s CLOSED), and only then is
/// the daemon stopped, with no connection left for it to close. A connection still open after 10 s
/// (a route still answering: `MHD_stop_daemon` waited for it as well) is left to `MHD_stop_daemon`.
/// The listening socket, the daemon's no longer once it is quiesced, is closed here.
static inline void chatcap_http_stop(struct MHD_Daemon *daemon, struct chatcap_http_guard *guard) {
    MHD_socket listening = MHD_quiesce_daemon(daemon);
    for (int round = 0; round < 10000; round++) {
        chatcap_http_shut_all(guard);
        struct timespec pause = {0, 1000 * 1000};
        nanosleep(&pause, NULL);
        // Twice none open in a row: one accepted while the daemon was being quiesced is seen.
        if (atomic_load_explicit(&guard->open, memory_order_relaxed) == 0) {
            nanosleep(&pause, NULL);
            if (atomic_load_explicit(&guard->open, memory_order_relaxed) == 0) break;
        }
    }
    MHD_stop_daemon(daemon);
    if (listening != MHD_INVALID_SOCKET) close(listening);
    if (guard->sweeping) {
        atomic_store_explicit(&guard->stopping, 1, memory_order_relaxed);
        pthread_join(guard->sweeper, NULL);
        guard->sweeping = 0;
    }
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
