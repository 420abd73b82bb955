// TIFF through libtiff 4.5: handles whose error and warning handlers record the message instead
// of printing it, memory and file input, and decoding to RGBA through libtiff's TIFFRGBAImage
// (which covers 1/2/4/8/16-bit gray, palette, RGB, separated planes, YCbCr and every codec the
// library was built with: LZW, Deflate, JPEG, CCITT G3/G4, PackBits, ...).

#include "pbscan.h"
#include "scan_common.h"

#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <pthread.h>

struct pbs_tiff {
    TIFF *tif;
    TIFFOpenOptions *options;
    const uint8_t *data;
    size_t size, position;
    pbs_text message;
    int failed;
    /// The name libtiff was given, which it puts in front of many messages; the caller adds the
    /// file's name itself, so it is cut.
    char name[256];
};

/// Messages from calls that carry no handle (rare, and all about allocation) would otherwise go
/// to stderr: the process-wide handlers are silenced once.
static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;
static void quiet_globals(void) {
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    pbs_tiff *t = user;
    // The first error is the cause; later ones are consequences ("cannot read strip 3").
    if (!t->failed) {
        pbs_text_vformat(&t->message, module, fmt, ap);
        size_t n = strlen(t->name);
        if (n && strncmp(t->message.text, t->name, n) == 0 && strncmp(t->message.text + n, ": ", 2) == 0)
            memmove(t->message.text, t->message.text + n + 2, strlen(t->message.text + n + 2) + 1);
    }
    t->failed = 1;
    return 1;  // handled: the global handler is not called
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    // Unknown tags and the like: harmless for reading pixels, and never printed.
    (void)tif; (void)user; (void)module; (void)fmt; (void)ap;
    return 1;
}

pbs_tiff *pbs_tiff_new(size_t max_alloc) {
    pthread_once(&quiet_once, quiet_globals);
    pbs_tiff *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->options = TIFFOpenOptionsAlloc();
    if (!t->options) { free(t); return NULL; }
    TIFFOpenOptionsSetMaxSingleMemAlloc(t->options, (tmsize_t)(max_alloc > (size_t)INT64_MAX ? INT64_MAX : max_alloc));
    TIFFOpenOptionsSetErrorHandlerExtR(t->options, on_error, t);
    TIFFOpenOptionsSetWarningHandlerExtR(t->options, on_warning, t);
    return t;
}

void pbs_tiff_free(pbs_tiff *t) {
    if (!t) return;
    if (t->tif) TIFFClose(t->tif);
    TIFFOpenOptionsFree(t->options);
    free(t);
}

const char *pbs_tiff_message(const pbs_tiff *t) { return t->message.text; }

// MARK: - Memory input

static tmsize_t mem_read(thandle_t h, void *buffer, tmsize_t size) {
    pbs_tiff *t = h;
    if (size < 0) return -1;
    size_t left = t->position < t->size ? t->size - t->position : 0;
    size_t n = (size_t)size < left ? (size_t)size : left;
    memcpy(buffer, t->data + t->position, n);
    t->position += n;
    return (tmsize_t)n;
}

static tmsize_t mem_write(thandle_t h, void *buffer, tmsize_t size) { (void)h; (void)buffer; (void)size; return -1; }

static toff_t mem_seek(thandle_t h, toff_t offset, int whence) {
    pbs_tiff *t = h;
    uint64_t base = whence == SEEK_CUR ? t->position : whence == SEEK_END ? t->size : 0;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    // Past the end is allowed (reads there return nothing), as for a file.
    t->position = (size_t)(base + offset);
    return t->position;
}

static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return ((pbs_tiff *)h)->size; }
static int mem_map(thandle_t h, void **base, toff_t *size) { (void)h; (void)base; (void)size; return 0; }
static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }

static int open_status(pbs_tiff *t) {
    if (t->tif) return PBS_OK;
    if (!t->failed) pbs_text_set(&t->message, "not a readable TIFF file");
    return PBS_ERROR;
}

int pbs_tiff_open_memory(pbs_tiff *t, const uint8_t *data, size_t size) {
    t->data = data;
    t->size = size;
    t->position = 0;
    snprintf(t->name, sizeof t->name, "%s", "memory");
    // "m": never map (there is no file); "h": read only the header here, directories on demand.
    t->tif = TIFFClientOpenExt("memory", "rmh", t, mem_read, mem_write, mem_seek, mem_close, mem_size, mem_map,
                               mem_unmap, t->options);
    return open_status(t);
}

int pbs_tiff_open_file(pbs_tiff *t, const char *path) {
    // "m": read() rather than mmap, so pages never decoded never count towards the resident size.
    snprintf(t->name, sizeof t->name, "%s", path);
    t->tif = TIFFOpenExt(path, "rmh", t->options);
    return open_status(t);
}

static int status_of(pbs_tiff *t, const char *fallback) {
    if (!t->failed) pbs_text_set(&t->message, fallback);
    const char *m = t->message.text;
    if (strstr(m, "Read error") || strstr(m, "Seek error") || strstr(m, "past end") || strstr(m, "Not enough data"))
        return PBS_TRUNCATED;
    if (strstr(m, "Memory allocation") || strstr(m, "exceeding limit") || strstr(m, "Out of memory"))
        return PBS_TOO_BIG;
    return PBS_ERROR;
}

int pbs_tiff_page_count(pbs_tiff *t, int max_pages, int *count) {
    t->failed = 0;
    // Walks the chain of directory offsets (libtiff detects loops) without reading the entries
    // beyond what it needs.
    tdir_t n = TIFFNumberOfDirectories(t->tif);
    if (t->failed) return status_of(t, "cannot count the pages");
    if (n == 0) { pbs_text_set(&t->message, "no pages"); return PBS_ERROR; }
    if ((long long)n > max_pages) {
        pbs_text_format(&t->message, "%u pages, more than the %d a book may have", (unsigned)n, max_pages);
        return PBS_TOO_BIG;
    }
    *count = (int)n;
    // Counting leaves libtiff on the first directory again; make that explicit.
    if (!TIFFSetDirectory(t->tif, 0)) return status_of(t, "cannot read the first page");
    return PBS_OK;
}

int pbs_tiff_select(pbs_tiff *t, int index, pbs_tiff_page *out) {
    t->failed = 0;
    if (index < 0 || !TIFFSetDirectory(t->tif, (tdir_t)index)) return status_of(t, "cannot read the page's directory");
    uint32_t w = 0, h = 0;
    uint16_t bps = 1, spp = 1, photometric = 0, compression = 1, planar = 1, orientation = 1;
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    if (!TIFFGetField(t->tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(t->tif, TIFFTAG_IMAGELENGTH, &h)) {
        pbs_text_set(&t->message, "the page has no ImageWidth or ImageLength");
        return PBS_ERROR;
    }
    TIFFGetFieldDefaulted(t->tif, TIFFTAG_BITSPERSAMPLE, &bps);
    TIFFGetFieldDefaulted(t->tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(t->tif, TIFFTAG_COMPRESSION, &compression);
    TIFFGetFieldDefaulted(t->tif, TIFFTAG_PLANARCONFIG, &planar);
    TIFFGetFieldDefaulted(t->tif, TIFFTAG_ORIENTATION, &orientation);
    TIFFGetFieldDefaulted(t->tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra);
    if (!TIFFGetField(t->tif, TIFFTAG_PHOTOMETRIC, &photometric)) photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    out->width = w;
    out->height = h;
    out->bits_per_sample = bps;
    out->samples_per_pixel = spp;
    out->photometric = photometric;
    out->compression = compression;
    out->planar = planar;
    out->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    out->has_alpha = extra_count > 0 && extra && (extra[0] == EXTRASAMPLE_ASSOCALPHA || extra[0] == EXTRASAMPLE_UNASSALPHA);
    out->is_gray = (photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE) && !out->has_alpha;
    char why[1024];
    if (!TIFFRGBAImageOK(t->tif, why)) {
        pbs_text_set(&t->message, why);
        return PBS_UNSUPPORTED;
    }
    if (t->failed) return status_of(t, "unreadable directory");
    return PBS_OK;
}

int pbs_tiff_read_rgba(pbs_tiff *t, uint8_t *pixels) {
    t->failed = 0;
    uint32_t w = 0, h = 0;
    TIFFGetField(t->tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(t->tif, TIFFTAG_IMAGELENGTH, &h);
    // Asking for the file's own orientation makes libtiff flip nothing: the rows come out as
    // stored, and Codecs applies the Orientation tag (EXIF's numbering) like any other rotation.
    // Stop on the first damaged strip rather than leave it blank.
    uint16_t orientation = ORIENTATION_TOPLEFT;
    TIFFGetFieldDefaulted(t->tif, TIFFTAG_ORIENTATION, &orientation);
    if (orientation < 1 || orientation > 8) orientation = ORIENTATION_TOPLEFT;
    if (!TIFFReadRGBAImageOriented(t->tif, w, h, (uint32_t *)pixels, orientation, 1) || t->failed)
        return status_of(t, "cannot decode the image");
    // libtiff packs each pixel as A<<24 | B<<16 | G<<8 | R: R,G,B,A in memory on little-endian
    // machines; on big-endian ones the bytes are swapped into that order.
    size_t n = (size_t)w * h;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (size_t i = 0; i < n; i++) {
        uint32_t v = ((uint32_t *)pixels)[i];
        pixels[4 * i] = v & 0xff; pixels[4 * i + 1] = (v >> 8) & 0xff;
        pixels[4 * i + 2] = (v >> 16) & 0xff; pixels[4 * i + 3] = v >> 24;
    }
#endif
    // TIFFRGBAImage premultiplies unassociated alpha; Bitmaps hold straight alpha.
    pbs_unpremultiply(pixels, n);
    return PBS_OK;
}
