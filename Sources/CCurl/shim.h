#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per
// kind of argument.
static inline CURLcode chatcap_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode chatcap_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode chatcap_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*chatcap_curl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode chatcap_curl_setopt_write(CURL *handle, chatcap_curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode chatcap_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
// Macros Swift does not import (they are expressions).
static inline CURLcode chatcap_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
static inline CURLcode chatcap_curl_use_basic_auth(CURL *handle) {
    return curl_easy_setopt(handle, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
}
