// Helpers shared by tiff.c, jp2.c and pdf.c (not part of the public header).
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/// A library message, kept for the Swift side to put in a CodecError.
typedef struct pbs_text { char text[512]; } pbs_text;

static inline void pbs_text_trim(pbs_text *t) {
    size_t n = strlen(t->text);
    while (n > 0 && (t->text[n - 1] == '\n' || t->text[n - 1] == ' ' || t->text[n - 1] == '.')) t->text[--n] = 0;
}

static inline void pbs_text_set(pbs_text *t, const char *message) {
    snprintf(t->text, sizeof t->text, "%s", message ? message : "unknown error");
    pbs_text_trim(t);
}

static inline void pbs_text_vformat(pbs_text *t, const char *prefix, const char *fmt, va_list ap) {
    char body[sizeof t->text];
    vsnprintf(body, sizeof body, fmt, ap);
    // libtiff's module is the function or file name; it adds nothing a reader can act on.
    (void)prefix;
    snprintf(t->text, sizeof t->text, "%s", body);
    pbs_text_trim(t);
}

__attribute__((format(printf, 2, 3)))
static inline void pbs_text_format(pbs_text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->text, sizeof t->text, fmt, ap);
    va_end(ap);
    pbs_text_trim(t);
}

/// Premultiplied RGBA → straight RGBA in place (opaque pixels are left alone).
static inline void pbs_unpremultiply(uint8_t *p, size_t count) {
    for (size_t i = 0; i < count; i++, p += 4) {
        unsigned a = p[3];
        if (a == 255) continue;
        if (a == 0) { p[0] = p[1] = p[2] = 0; continue; }
        for (int c = 0; c < 3; c++) {
            unsigned v = (p[c] * 255u + a / 2) / a;
            p[c] = (uint8_t)(v > 255 ? 255 : v);
        }
    }
}
