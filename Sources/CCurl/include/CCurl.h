// libcurl's easy interface for `chatcap load`, loaded at run time: only `load` speaks HTTP, so the
// binary does not link libcurl, and every other command starts without it and the two dozen
// libraries it pulls in (TLS, Kerberos, LDAP, SSH, …: about 4 MB of resident pages, and their
// relocations at every start). `chatcap_curl_load` opens libcurl.so.4 once; the wrappers below call
// through the pointers it found. The header's types and constants come from libcurl's own header
// (libcurl4-openssl-dev, a build dependency).
#pragma once
#include <curl/curl.h>

/// Opens libcurl.so.4 and finds the functions below, once per process (later calls answer the same).
/// Returns 1 when libcurl is ready, 0 when it is not: then `chatcap_curl_load_error` says why.
int chatcap_curl_load(void);
/// Why `chatcap_curl_load` failed (the dynamic loader's message), or "" when it did not.
const char *chatcap_curl_load_error(void);

// The easy interface, through the loaded library. Call only after `chatcap_curl_load` returned 1.
CURLcode chatcap_curl_global_init(void);
CURL *chatcap_curl_easy_init(void);
void chatcap_curl_easy_cleanup(CURL *handle);
void chatcap_curl_easy_reset(CURL *handle);
CURLcode chatcap_curl_easy_perform(CURL *handle);
const char *chatcap_curl_easy_strerror(CURLcode code);
struct curl_slist *chatcap_curl_slist_append(struct curl_slist *list, const char *text);
void chatcap_curl_slist_free_all(struct curl_slist *list);

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per
// kind of argument.
CURLcode chatcap_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode chatcap_curl_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode chatcap_curl_setopt_offset(CURL *handle, CURLoption option, curl_off_t value);
typedef size_t (*chatcap_curl_write_callback)(char *data, size_t size, size_t count, void *context);
CURLcode chatcap_curl_setopt_write(CURL *handle, chatcap_curl_write_callback callback);
CURLcode chatcap_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
/// CURLOPT_HTTPAUTH = CURLAUTH_BASIC (a macro expression Swift does not import).
CURLcode chatcap_curl_use_basic_auth(CURL *handle);
