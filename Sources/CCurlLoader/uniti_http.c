#include "uniti_http.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The libcurl functions used, resolved once with dlopen/dlsym.
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
    int loaded;
    char problem[200];
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void load_curl(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(curl.problem, sizeof curl.problem, "libcurl is not installed (%s)", dlerror());
        return;
    }
#define RESOLVE(field, name) \
    *(void **)(&curl.field) = dlsym(library, name); \
    if (!curl.field) { snprintf(curl.problem, sizeof curl.problem, "libcurl lacks %s", name); return; }
    RESOLVE(global_init, "curl_global_init")
    RESOLVE(easy_init, "curl_easy_init")
    RESOLVE(easy_setopt, "curl_easy_setopt")
    RESOLVE(easy_perform, "curl_easy_perform")
    RESOLVE(easy_getinfo, "curl_easy_getinfo")
    RESOLVE(easy_cleanup, "curl_easy_cleanup")
    RESOLVE(easy_strerror, "curl_easy_strerror")
    RESOLVE(slist_append, "curl_slist_append")
    RESOLVE(slist_free_all, "curl_slist_free_all")
#undef RESOLVE
    if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(curl.problem, sizeof curl.problem, "libcurl could not be initialised");
        return;
    }
    curl.loaded = 1;
}

typedef struct {
    char *data;
    size_t length;
    size_t capacity;
} buffer;

static size_t append(char *pointer, size_t size, size_t count, void *context) {
    buffer *target = context;
    size_t length = size * count;
    if (target->length + length + 1 > target->capacity) {
        size_t capacity = target->capacity ? target->capacity : 4096;
        while (capacity < target->length + length + 1) capacity *= 2;
        char *grown = realloc(target->data, capacity);
        if (!grown) return 0;  // makes libcurl fail the transfer with a write error
        target->data = grown;
        target->capacity = capacity;
    }
    memcpy(target->data + target->length, pointer, length);
    target->length += length;
    target->data[target->length] = '\0';
    return length;
}

int uniti_http_perform(const char *method, const char *url,
                       const char *const *headers, size_t header_count,
                       const void *body, size_t body_length,
                       long timeout_seconds, uniti_http_response *response) {
    memset(response, 0, sizeof *response);
    pthread_once(&curl_once, load_curl);
    if (!curl.loaded) {
        snprintf(response->error, sizeof response->error, "%s", curl.problem);
        return 1;
    }
    CURL *handle = curl.easy_init();
    if (!handle) {
        snprintf(response->error, sizeof response->error, "libcurl could not start a request");
        return 1;
    }
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < header_count; i++) list = curl.slist_append(list, headers[i]);
    // No "Expect: 100-continue" round trip for bodies.
    list = curl.slist_append(list, "Expect:");

    buffer content = {0}, head = {0};
    curl.easy_setopt(handle, CURLOPT_URL, url);
    curl.easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method);
    curl.easy_setopt(handle, CURLOPT_HTTPHEADER, list);
    curl.easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, CURLOPT_TIMEOUT, timeout_seconds);
    curl.easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, timeout_seconds < 10 ? timeout_seconds : 10L);
    curl.easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, append);
    curl.easy_setopt(handle, CURLOPT_WRITEDATA, &content);
    curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, append);
    curl.easy_setopt(handle, CURLOPT_HEADERDATA, &head);
    if (body && body_length > 0) {
        curl.easy_setopt(handle, CURLOPT_POSTFIELDS, body);
        curl.easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
    } else if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        curl.easy_setopt(handle, CURLOPT_POSTFIELDS, "");
        curl.easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
    }
    CURLcode result = curl.easy_perform(handle);
    int failed = 0;
    if (result != CURLE_OK) {
        snprintf(response->error, sizeof response->error, "%s", curl.easy_strerror(result));
        free(content.data);
        free(head.data);
        failed = 1;
    } else {
        curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response->status);
        response->body = content.data;
        response->body_length = content.length;
        response->headers = head.data;
        response->headers_length = head.length;
    }
    curl.slist_free_all(list);
    curl.easy_cleanup(handle);
    return failed;
}

void uniti_http_response_free(uniti_http_response *response) {
    free(response->body);
    free(response->headers);
    response->body = NULL;
    response->headers = NULL;
}
