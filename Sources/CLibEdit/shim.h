// Non-variadic wrappers around libedit's variadic el_set/el_get/history calls, which Swift
// cannot call directly. Each wrapper names the one operation it performs.
#ifndef UNITI_CLIBEDIT_SHIM_H
#define UNITI_CLIBEDIT_SHIM_H

#include <stdio.h>
#include <histedit.h>

typedef char *(*uniti_prompt_fn)(EditLine *);
typedef unsigned char (*uniti_editor_fn)(EditLine *, int);

static inline int uniti_el_set_prompt(EditLine *el, uniti_prompt_fn fn) {
    return el_set(el, EL_PROMPT, fn);
}
static inline int uniti_el_set_editor(EditLine *el, const char *mode) {
    return el_set(el, EL_EDITOR, mode);
}
static inline int uniti_el_set_history(EditLine *el, History *h) {
    return el_set(el, EL_HIST, history, h);
}
static inline int uniti_el_set_signal(EditLine *el, int on) {
    return el_set(el, EL_SIGNAL, on);
}
static inline int uniti_el_add_function(EditLine *el, const char *name, const char *help, uniti_editor_fn fn) {
    return el_set(el, EL_ADDFN, name, help, fn);
}
static inline int uniti_el_bind(EditLine *el, const char *key, const char *function) {
    return el_set(el, EL_BIND, key, function, NULL);
}
/// Turns the terminal's own signal keys off while editing, so that Ctrl-C reaches the editor
/// as a key (bound to "abandon the line") instead of killing the process.
static inline int uniti_el_disable_tty_signals(EditLine *el) {
    return el_set(el, EL_SETTY, "-d", "-isig", NULL);
}
/// Replaces libedit's character reader (so the shell can do work while it waits for a key).
typedef int (*uniti_getc_fn)(EditLine *, wchar_t *);
static inline int uniti_el_set_getc(EditLine *el, uniti_getc_fn fn) {
    return el_set(el, EL_GETCFN, fn);
}
/// Draws the prompt and the line typed so far again (after something else wrote to the terminal).
static inline int uniti_el_refresh(EditLine *el) {
    return el_set(el, EL_REFRESH);
}
static inline int uniti_el_set_client_data(EditLine *el, void *data) {
    return el_set(el, EL_CLIENTDATA, data);
}
static inline void *uniti_el_client_data(EditLine *el) {
    void *data = NULL;
    el_get(el, EL_CLIENTDATA, &data);
    return data;
}

static inline int uniti_history_set_size(History *h, int size) {
    HistEvent ev;
    return history(h, &ev, H_SETSIZE, size);
}
static inline int uniti_history_set_unique(History *h, int unique) {
    HistEvent ev;
    return history(h, &ev, H_SETUNIQUE, unique);
}
static inline int uniti_history_enter(History *h, const char *line) {
    HistEvent ev;
    return history(h, &ev, H_ENTER, line);
}
static inline int uniti_history_load(History *h, const char *path) {
    HistEvent ev;
    return history(h, &ev, H_LOAD, path);
}
/// The newest entry (then `uniti_history_next` for older ones); NULL when there is none.
static inline const char *uniti_history_first(History *h) {
    HistEvent ev;
    return history(h, &ev, H_FIRST) == -1 ? NULL : ev.str;
}
static inline const char *uniti_history_next(History *h) {
    HistEvent ev;
    return history(h, &ev, H_NEXT) == -1 ? NULL : ev.str;
}
static inline int uniti_history_clear(History *h) {
    HistEvent ev;
    return history(h, &ev, H_CLEAR);
}
static inline int uniti_history_save(History *h, const char *path) {
    HistEvent ev;
    return history(h, &ev, H_SAVE, path);
}

#endif
