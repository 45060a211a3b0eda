#include <curl/curl.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_share_setopt are variadic, which Swift cannot call: these typed
   wrappers are what HTTPClient calls instead. Each passes exactly the argument type the option documents. */

typedef size_t (*gatehouse_curl_data_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode gatehouse_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gatehouse_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* Strings are copied by libcurl (CURLOPT_URL, CURLOPT_CAINFO…): the caller's buffer may go once this returns. */
static inline CURLcode gatehouse_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Pointers libcurl keeps (CURLOPT_WRITEDATA, CURLOPT_HTTPHEADER, CURLOPT_ERRORBUFFER): the caller keeps them alive
   until the transfer ends and the option is reset. */
static inline CURLcode gatehouse_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode gatehouse_curl_setopt_callback(CURL *handle, CURLoption option,
                                                      gatehouse_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode gatehouse_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* Macros built from other macros, which Swift does not import. */
static inline long gatehouse_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
static inline size_t gatehouse_curl_error_size(void) { return CURL_ERROR_SIZE; }
