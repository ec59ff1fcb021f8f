// The ALSA client library (libasound), used by UNITICore's audio service for playback,
// capture and device listing. Only Sources/UNITICore/Audio/ALSADevice.swift imports it.
#ifndef UNITI_CALSA_SHIM_H
#define UNITI_CALSA_SHIM_H
#include <alsa/asoundlib.h>

// ALSA prints its own diagnostics to stderr; UNITI reports one line of its own instead.
// The handler is variadic, which Swift cannot define, hence this wrapper.
static void uniti_alsa_quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
static inline void uniti_alsa_silence_errors(void) {
    snd_lib_error_set_handler(uniti_alsa_quiet_handler);
}
#endif
