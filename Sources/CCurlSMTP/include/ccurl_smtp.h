#ifndef CCURL_SMTP_H
#define CCURL_SMTP_H

#include <stddef.h>

/// Sends one RFC 5322 message through libcurl's SMTP client.
/// `url` is smtp://[user:password@]host[:port] (STARTTLS when the server offers it) or smtps://...
/// Returns 0 on success; otherwise writes libcurl's reason into `error` and returns its code.
int uniti_smtp_send(const char *url, const char *from, const char *const *recipients, size_t recipient_count,
                    const char *message, size_t message_length, long timeout_seconds,
                    char *error, size_t error_size);

#endif
