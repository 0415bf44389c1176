#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The functions of libcurl's easy interface chatcap uses, found once by `load_once`.
static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    void (*easy_reset)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = 0;
static char load_error[512] = "";

// Finds `name` in `library`, or records why not. Returns 0 on failure.
static int find(void *library, const char *name, void **slot) {
    // SAFETY: `slot` is a field of `curl`, written only here, inside `pthread_once`.
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "libcurl.so.4 has no %s (%s)", name, why ? why : "not found");
        return 0;
    }
    return 1;
}

static void load_once(void) {
    // SAFETY: runs once (pthread_once); RTLD_LOCAL keeps libcurl's symbols out of the global scope.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "%s", why ? why : "libcurl.so.4 could not be opened");
        return;
    }
    int ok = find(library, "curl_global_init", (void **)&curl.global_init)
        && find(library, "curl_easy_init", (void **)&curl.easy_init)
        && find(library, "curl_easy_cleanup", (void **)&curl.easy_cleanup)
        && find(library, "curl_easy_reset", (void **)&curl.easy_reset)
        && find(library, "curl_easy_perform", (void **)&curl.easy_perform)
        && find(library, "curl_easy_strerror", (void **)&curl.easy_strerror)
        && find(library, "curl_easy_setopt", (void **)&curl.easy_setopt)
        && find(library, "curl_easy_getinfo", (void **)&curl.easy_getinfo)
        && find(library, "curl_slist_append", (void **)&curl.slist_append)
        && find(library, "curl_slist_free_all", (void **)&curl.slist_free_all);
    // The library stays open for the life of the process, as a linked one would.
    // SAFETY: `loaded` is published by pthread_once: every caller of chatcap_curl_load reads it after.
    loaded = ok;
}

int chatcap_curl_load(void) {
    pthread_once(&once, load_once);
    return loaded;
}

const char *chatcap_curl_load_error(void) { return load_error; }

// SAFETY (every wrapper below): called only after chatcap_curl_load() returned 1, so every function
// pointer is set (HTTPClient checks `libcurlLoaded` before its first call); the handle is one
// curl_easy_init returned and not yet cleaned up, used by one thread at a time (HTTPClient is
// confined to its thread).

// SAFETY: once per process, before any handle (HTTPClient.globalInit is a lazy static).
CURLcode chatcap_curl_global_init(void) { return curl.global_init(CURL_GLOBAL_DEFAULT); }
CURL *chatcap_curl_easy_init(void) { return curl.easy_init(); }
void chatcap_curl_easy_cleanup(CURL *handle) { curl.easy_cleanup(handle); }
void chatcap_curl_easy_reset(CURL *handle) { curl.easy_reset(handle); }
CURLcode chatcap_curl_easy_perform(CURL *handle) { return curl.easy_perform(handle); }
const char *chatcap_curl_easy_strerror(CURLcode code) { return curl.easy_strerror(code); }
struct curl_slist *chatcap_curl_slist_append(struct curl_slist *list, const char *text) {
    return curl.slist_append(list, text);
}
void chatcap_curl_slist_free_all(struct curl_slist *list) { curl.slist_free_all(list); }

// SAFETY (the setopt wrappers): curl_easy_setopt is variadic, and each option reads its argument as
// one type. Each wrapper passes exactly one type (`long`, a pointer, `curl_off_t`, the write callback)
// and the Swift caller picks the wrapper of the option's type; a pointer must outlive its last use by
// libcurl (string options are copied when set).
CURLcode chatcap_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode chatcap_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode chatcap_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl.easy_setopt(handle, option, value);
}
CURLcode chatcap_curl_setopt_write(CURL *handle, chatcap_curl_write_callback callback) {
    return curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
// SAFETY: `info` must be a CURLINFO_LONG item; `value` is valid for the call.
CURLcode chatcap_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl.easy_getinfo(handle, info, value);
}
// SAFETY: CURLOPT_HTTPAUTH reads a `long`: the bitmask is cast to one.
CURLcode chatcap_curl_use_basic_auth(CURL *handle) {
    return curl.easy_setopt(handle, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
}
