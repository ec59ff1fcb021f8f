// A minimal HTTP call through libcurl, loaded with dlopen on first use.
//
// Why not FoundationNetworking's URLSession (which is also libcurl on Linux): linking it makes
// every start of `uniti` load libcurl and its TLS, Kerberos and LDAP libraries, which cost more
// than the rest of start-up together (measured: see README). Most commands never touch the
// network, so libcurl is loaded only when the first request is made.
#ifndef UNITI_HTTP_H
#define UNITI_HTTP_H

#include <stddef.h>

typedef struct {
    long status;           // HTTP status, 0 when no answer arrived
    char *body;            // response body (malloc'ed, may contain NULs), or NULL
    size_t body_length;
    char *headers;         // raw response header lines (malloc'ed, NUL-terminated), or NULL
    size_t headers_length;
    char error[256];       // why no answer arrived (empty on success)
} uniti_http_response;

/// Performs one request. `headers` holds `header_count` lines such as "Accept: application/json".
/// Returns 0 when an HTTP answer arrived (any status), non-zero otherwise (see `error`).
int uniti_http_perform(const char *method, const char *url,
                       const char *const *headers, size_t header_count,
                       const void *body, size_t body_length,
                       long timeout_seconds, uniti_http_response *response);

/// Frees what `uniti_http_perform` allocated.
void uniti_http_response_free(uniti_http_response *response);

#endif
