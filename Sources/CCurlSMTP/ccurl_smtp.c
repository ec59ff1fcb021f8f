// A thin C shim over libcurl's SMTP support: Swift cannot call curl_easy_setopt (variadic), so the
// few options SMTP needs are set here.
#include "ccurl_smtp.h"

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

struct upload_cursor {
    const char *data;
    size_t remaining;
};

static size_t read_message(char *buffer, size_t size, size_t count, void *user) {
    struct upload_cursor *cursor = (struct upload_cursor *)user;
    size_t room = size * count;
    size_t chunk = cursor->remaining < room ? cursor->remaining : room;
    memcpy(buffer, cursor->data, chunk);
    cursor->data += chunk;
    cursor->remaining -= chunk;
    return chunk;
}

int uniti_smtp_send(const char *url, const char *from, const char *const *recipients, size_t recipient_count,
                    const char *message, size_t message_length, long timeout_seconds,
                    char *error, size_t error_size) {
    CURL *curl = curl_easy_init();
    if (curl == NULL) {
        snprintf(error, error_size, "libcurl could not be initialised");
        return -1;
    }
    char reason[CURL_ERROR_SIZE] = {0};
    struct curl_slist *to = NULL;
    for (size_t index = 0; index < recipient_count; index++) {
        to = curl_slist_append(to, recipients[index]);
    }
    struct upload_cursor cursor = { message, message_length };
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
    curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, to);
    curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_message);
    curl_easy_setopt(curl, CURLOPT_READDATA, &cursor);
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, reason);
    CURLcode result = curl_easy_perform(curl);
    if (result != CURLE_OK) {
        snprintf(error, error_size, "%s", reason[0] ? reason : curl_easy_strerror(result));
    }
    curl_slist_free_all(to);
    curl_easy_cleanup(curl);
    return (int)result;
}
