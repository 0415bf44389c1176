// libmicrohttpd behind a few small functions: Swift cannot call MHD_start_daemon (variadic), and
// binding the listening socket here lets the caller choose the address and learn the port.
#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
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
        if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 128) == 0) break;
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

/// Starts a daemon on the listening socket `fd` (which it then owns and closes when stopped): one
/// internal thread polling with epoll, at most `connection_limit` connections, `per_ip_limit` from
/// one address, each closed after `timeout_seconds` without activity, `memory_limit` bytes of
/// buffers each. Returns NULL when it cannot start.
static inline struct MHD_Daemon *chatcap_http_start(
    int fd, unsigned int connection_limit, unsigned int per_ip_limit, unsigned int timeout_seconds,
    size_t memory_limit, MHD_AccessHandlerCallback handler, void *context) {
    return MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD, 0, NULL, NULL, handler, context,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket) fd,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_END);
}

/// Queues a response of `length` bytes (copied) with `status`, a Content-Type and, when not NULL,
/// an `Allow` header. Returns MHD_NO when it could not.
static inline enum MHD_Result chatcap_http_respond(
    struct MHD_Connection *connection, unsigned int status, const char *content_type, const void *body,
    size_t length, const char *allow) {
    struct MHD_Response *response =
        MHD_create_response_from_buffer(length, (void *) body, MHD_RESPMEM_MUST_COPY);
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(response, "Access-Control-Allow-Origin", "*");
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
