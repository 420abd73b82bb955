// PDFs of scans through Poppler's GLib API. A scanned book's page is normally one image filling
// the page: that image is taken as Poppler decodes it, at its own resolution, rather than
// re-rendered (which would resample it). Any other page is rendered with cairo at the size the
// caller asks for.
//
// Poppler's parser reports damage through a process-wide callback that by default prints to
// stderr; poppler_quiet.cpp replaces it with one that records the message per thread, and every
// function here clears that record first and reads it when Poppler fails.

#include "pbscan.h"
#include "scan_common.h"

#include <stdlib.h>
#include <math.h>
#include <poppler.h>
#include <cairo.h>

/// From poppler_quiet.cpp.
void pbs_poppler_quiet(void);
const char *pbs_poppler_last_message(void);
void pbs_poppler_clear_message(void);

struct pbs_pdf {
    PopplerDocument *document;
    GBytes *bytes;
    PopplerPage *page;
    int image_id;
    cairo_surface_t *held;
    pbs_text message;
};

pbs_pdf *pbs_pdf_new(void) {
    pbs_poppler_quiet();
    return calloc(1, sizeof(pbs_pdf));
}

static void release_page(pbs_pdf *p) {
    if (p->held) { cairo_surface_destroy(p->held); p->held = NULL; }
    if (p->page) { g_object_unref(p->page); p->page = NULL; }
}

void pbs_pdf_free(pbs_pdf *p) {
    if (!p) return;
    release_page(p);
    if (p->document) g_object_unref(p->document);
    if (p->bytes) g_bytes_unref(p->bytes);
    free(p);
}

const char *pbs_pdf_message(const pbs_pdf *p) { return p->message.text; }

/// Poppler's own message when it left one, else `fallback`.
static int fail(pbs_pdf *p, const char *fallback, int status) {
    const char *poppler = pbs_poppler_last_message();
    pbs_text_set(&p->message, poppler && *poppler ? poppler : fallback);
    return status;
}

static int opened(pbs_pdf *p, GError *error) {
    if (p->document) return PBS_OK;
    int status = PBS_ERROR;
    if (error) {
        if (error->domain == POPPLER_ERROR && error->code == POPPLER_ERROR_ENCRYPTED) {
            pbs_text_set(&p->message, "the PDF is encrypted (a password is needed)");
            status = PBS_UNSUPPORTED;
        } else {
            // GLib's message names the URI; the caller names the file.
            const char *poppler = pbs_poppler_last_message();
            pbs_text_set(&p->message, poppler && *poppler ? poppler : error->message);
        }
        g_error_free(error);
    } else {
        fail(p, "not a readable PDF", PBS_ERROR);
    }
    return status;
}

int pbs_pdf_open_file(pbs_pdf *p, const char *path) {
    pbs_poppler_clear_message();
    GError *error = NULL;
    char *absolute = g_canonicalize_filename(path, NULL);
    char *uri = absolute ? g_filename_to_uri(absolute, NULL, &error) : NULL;
    g_free(absolute);
    if (!uri) return opened(p, error);
    p->document = poppler_document_new_from_file(uri, NULL, &error);
    g_free(uri);
    return opened(p, error);
}

int pbs_pdf_open_memory(pbs_pdf *p, const uint8_t *data, size_t size) {
    pbs_poppler_clear_message();
    GError *error = NULL;
    p->bytes = g_bytes_new_static(data, size);
    p->document = poppler_document_new_from_bytes(p->bytes, NULL, &error);
    return opened(p, error);
}

int pbs_pdf_page_count(const pbs_pdf *p) { return poppler_document_get_n_pages(p->document); }

int pbs_pdf_select(pbs_pdf *p, int index, pbs_pdf_page *out) {
    release_page(p);
    pbs_poppler_clear_message();
    p->page = poppler_document_get_page(p->document, index);
    if (!p->page) return fail(p, "cannot read the page", PBS_ERROR);
    poppler_page_get_size(p->page, &out->width_pt, &out->height_pt);
    if (!(out->width_pt > 0 && out->height_pt > 0 && out->width_pt < 1e6 && out->height_pt < 1e6)) {
        pbs_text_set(&p->message, "the page has no usable size");
        return PBS_ERROR;
    }
    // A scan page: exactly one image, covering at least 90 % of the page (scanner software often
    // leaves a thin margin). An OCR text layer over it does not count against it: it is invisible.
    out->single_image = 0;
    p->image_id = -1;
    GList *images = poppler_page_get_image_mapping(p->page);
    if (images && !images->next) {
        PopplerImageMapping *m = images->data;
        double w = fabs(m->area.x2 - m->area.x1), h = fabs(m->area.y2 - m->area.y1);
        if (w * h >= 0.9 * out->width_pt * out->height_pt) {
            out->single_image = 1;
            p->image_id = m->image_id;
        }
    }
    poppler_page_free_image_mapping(images);
    return PBS_OK;
}

int pbs_pdf_take_image(pbs_pdf *p, uint32_t *width, uint32_t *height) {
    if (!p->page || p->image_id < 0) { pbs_text_set(&p->message, "the page is not a single image"); return PBS_ERROR; }
    pbs_poppler_clear_message();
    if (p->held) { cairo_surface_destroy(p->held); p->held = NULL; }
    cairo_surface_t *s = poppler_page_get_image(p->page, p->image_id);
    if (!s) return fail(p, "cannot decode the page's image", PBS_ERROR);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS || cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE) {
        cairo_surface_destroy(s);
        return fail(p, "cannot decode the page's image", PBS_ERROR);
    }
    cairo_format_t format = cairo_image_surface_get_format(s);
    if (format != CAIRO_FORMAT_ARGB32 && format != CAIRO_FORMAT_RGB24) {
        cairo_surface_destroy(s);
        pbs_text_set(&p->message, "the page's image came back in an unexpected pixel format");
        return PBS_UNSUPPORTED;
    }
    p->held = s;
    *width = (uint32_t)cairo_image_surface_get_width(s);
    *height = (uint32_t)cairo_image_surface_get_height(s);
    return PBS_OK;
}

int pbs_pdf_render(pbs_pdf *p, uint32_t width, uint32_t height) {
    if (!p->page) { pbs_text_set(&p->message, "no page selected"); return PBS_ERROR; }
    if (width == 0 || height == 0 || width > 32767 || height > 32767) {
        pbs_text_set(&p->message, "the rendered page would be larger than 32767 pixels a side");
        return PBS_TOO_BIG;
    }
    pbs_poppler_clear_message();
    if (p->held) { cairo_surface_destroy(p->held); p->held = NULL; }
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width, (int)height);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        pbs_text_set(&p->message, "out of memory for the rendered page");
        return PBS_TOO_BIG;
    }
    double pw, ph;
    poppler_page_get_size(p->page, &pw, &ph);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_scale(cr, width / pw, height / ph);
    poppler_page_render_for_printing(p->page, cr);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    p->held = s;
    return PBS_OK;
}

int pbs_pdf_copy_rgba(pbs_pdf *p, uint8_t *pixels, size_t stride) {
    if (!p->held) { pbs_text_set(&p->message, "no image held"); return PBS_ERROR; }
    cairo_surface_flush(p->held);
    int w = cairo_image_surface_get_width(p->held), h = cairo_image_surface_get_height(p->held);
    int source_stride = cairo_image_surface_get_stride(p->held);
    int has_alpha = cairo_image_surface_get_format(p->held) == CAIRO_FORMAT_ARGB32;
    const uint8_t *data = cairo_image_surface_get_data(p->held);
    if (!data) { pbs_text_set(&p->message, "the image has no pixels"); return PBS_ERROR; }
    for (int y = 0; y < h; y++) {
        const uint32_t *src = (const uint32_t *)(data + (size_t)y * source_stride);
        uint8_t *dst = pixels + (size_t)y * stride;
        // cairo pixels are native-endian 0xAARRGGBB words, premultiplied when there is alpha.
        for (int x = 0; x < w; x++) {
            uint32_t v = src[x];
            dst[4 * x] = (v >> 16) & 0xff;
            dst[4 * x + 1] = (v >> 8) & 0xff;
            dst[4 * x + 2] = v & 0xff;
            dst[4 * x + 3] = has_alpha ? v >> 24 : 255;
        }
        if (has_alpha) pbs_unpremultiply(dst, (size_t)w);
    }
    cairo_surface_destroy(p->held);
    p->held = NULL;
    return PBS_OK;
}

// MARK: - Declared image sizes

typedef struct size_scan {
    pbs_pdf_sizes sizes;
    uint64_t last_width, last_height;
    uint64_t width_at, height_at;  // absolute offsets (+1; 0 = not seen)
} size_scan;

static int is_delimiter(uint8_t c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0 || c == '/' || c == '<' || c == '>' || c == '[';
}

/// Looks for "/Width N" and "/Height N" in `p[0..<n]` (`base` is p's offset in the file). Only
/// matches that start before `limit` are taken, so the overlap between chunks is read once.
static void scan_sizes(size_scan *s, const uint8_t *p, size_t n, size_t limit, uint64_t base) {
    for (size_t i = 0; i < limit && i < n; i++) {
        if (p[i] != '/') continue;
        int is_width = 0;
        size_t j;
        if (n - i >= 7 && memcmp(p + i + 1, "Width", 5) == 0 && is_delimiter(p[i + 6])) { is_width = 1; j = i + 6; }
        else if (n - i >= 8 && memcmp(p + i + 1, "Height", 6) == 0 && is_delimiter(p[i + 7])) { j = i + 7; }
        else continue;
        while (j < n && (p[j] == ' ' || p[j] == '\n' || p[j] == '\r' || p[j] == '\t')) j++;
        uint64_t v = 0;
        int digits = 0;
        while (j < n && p[j] >= '0' && p[j] <= '9' && digits < 15) { v = v * 10 + (uint64_t)(p[j] - '0'); j++; digits++; }
        if (!digits) continue;
        // "/Width 12 0 R" is a reference to an object, not a size.
        size_t k = j;
        while (k < n && p[k] == ' ') k++;
        if (k < n && p[k] >= '0' && p[k] <= '9') {
            while (k < n && p[k] >= '0' && p[k] <= '9') k++;
            while (k < n && p[k] == ' ') k++;
            if (k < n && p[k] == 'R') continue;
        }
        uint64_t at = base + i + 1;
        if (is_width) {
            s->last_width = v; s->width_at = at;
            if (v > s->sizes.max_width) s->sizes.max_width = v;
        } else {
            s->last_height = v; s->height_at = at;
            if (v > s->sizes.max_height) s->sizes.max_height = v;
        }
        // One dictionary: the two entries within a few hundred bytes of each other.
        if (s->width_at && s->height_at) {
            uint64_t gap = s->width_at > s->height_at ? s->width_at - s->height_at : s->height_at - s->width_at;
            if (gap < 512) {
                uint64_t px = s->last_width * s->last_height;
                if (s->last_width && px / s->last_width != s->last_height) px = UINT64_MAX;
                if (px > s->sizes.max_pixels) s->sizes.max_pixels = px;
            }
        }
    }
}

void pbs_pdf_declared_sizes_memory(const uint8_t *data, size_t size, pbs_pdf_sizes *out) {
    size_scan s = {0};
    scan_sizes(&s, data, size, size, 0);
    *out = s.sizes;
}

int pbs_pdf_declared_sizes_file(const char *path, pbs_pdf_sizes *out) {
    enum { CHUNK = 1 << 20, OVERLAP = 64 };
    FILE *f = fopen(path, "rb");
    if (!f) return PBS_ERROR;
    uint8_t *buffer = malloc(CHUNK + OVERLAP);
    if (!buffer) { fclose(f); return PBS_TOO_BIG; }
    size_scan s = {0};
    size_t kept = 0;
    uint64_t base = 0;  // file offset of buffer[0]
    for (;;) {
        size_t got = fread(buffer + kept, 1, CHUNK, f);
        size_t n = kept + got;
        if (got == 0) { scan_sizes(&s, buffer, n, n, base); break; }
        // Matches starting in the last OVERLAP bytes are read with the next chunk, whole.
        size_t limit = n > OVERLAP ? n - OVERLAP : 0;
        scan_sizes(&s, buffer, n, limit, base);
        kept = n - limit;
        memmove(buffer, buffer + limit, kept);
        base += limit;
    }
    int failed = ferror(f);
    free(buffer);
    fclose(f);
    *out = s.sizes;
    return failed ? PBS_ERROR : PBS_OK;
}
