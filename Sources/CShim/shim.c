// Error traps around libjpeg and libpng.
//
// Both libraries report a fatal error by calling a handler that must not return; the usual answer
// is a longjmp back to a setjmp in the caller. Swift cannot be that caller (jumping over Swift
// frames skips their cleanup and is undefined), so each function here is one *phase* of a decode
// or encode with its own setjmp: when the library fails, the handler records the message in a
// pb_trap and jumps back to the phase function, which returns a status. Nothing is printed: the
// default handlers that write to stderr are all replaced.
//
// Rules kept throughout: the setjmp happens in the same function that calls the library; state
// that outlives a jump lives on the heap (the decoder structs) or in volatile locals; after a
// failure the library objects are only destroyed, never used again.

#include "pbshim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jerror.h>

/// How much of a file the descriptor readers hold at once.
#define PB_READ_BUFFER (64 * 1024)

/// pread that retries interruptions; like pread, 0 at the end of the file and -1 on an error.
static ssize_t read_at(int fd, void *into, size_t count, size_t offset) {
    ssize_t n;
    do n = pread(fd, into, count, (off_t)offset);
    while (n < 0 && errno == EINTR);
    return n;
}

void pb_free(void *pointer) { free(pointer); }

static void trap_set(pb_trap *t, int status, const char *message) {
    t->status = status;
    strncpy(t->message, message, sizeof t->message - 1);
    t->message[sizeof t->message - 1] = 0;
}

/// Records the failure and jumps back to the active phase function.
static void trap_fail(pb_trap *t, int status, const char *message) {
    trap_set(t, status, message);
    longjmp(t->jump, 1);
}

static int buffer_reserve(pb_buffer *b, size_t extra) {
    if (b->capacity - b->size >= extra) return 1;
    size_t want = b->capacity ? b->capacity : 65536;
    while (want - b->size < extra) {
        if (want > SIZE_MAX / 2) return 0;
        want *= 2;
    }
    uint8_t *grown = realloc(b->data, want);
    if (!grown) return 0;
    b->data = grown;
    b->capacity = want;
    return 1;
}

// MARK: - libjpeg error manager

/// Progressive files can carry any number of scans, each a full pass over the coefficients: a
/// few-KB file with thousands of scans takes minutes. Real encoders write about ten.
#define PB_JPEG_MAX_SCANS 500

static void jpeg_fail_from_library(j_common_ptr cinfo, int status) {
    pb_trap *t = (pb_trap *)cinfo->client_data;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    trap_fail(t, status, text);
}

static void jpeg_error_exit(j_common_ptr cinfo) {
    int status = PB_ERROR;
    switch (cinfo->err->msg_code) {
    case JERR_NO_BACKING_STORE:  // what libjpeg reaches for when max_memory_to_use is exceeded
        status = PB_TOO_BIG;
        break;
    case JERR_BAD_PRECISION:      // 12- or 16-bit samples (this build decodes 8-bit)
    case JERR_SOF_UNSUPPORTED:    // lossless and other rare processes
    case JERR_CONVERSION_NOTIMPL: // odd component counts, no conversion to RGB
    case JERR_NOTIMPL:
        status = PB_UNSUPPORTED;
        break;
    }
    jpeg_fail_from_library(cinfo, status);
}

/// Level -1 is a warning: damage libjpeg conceals. Running out of data — of the file (the mem
/// source would pad it with an EOI) or of a scan (a marker where entropy data should be) — leaves
/// the rest of the image grey, so both are always fatal, and at once: a 30000×30000 header over a
/// few bytes of data must not cost a pass over 900 million grey pixels. Other warnings (stray
/// bytes, bad codes) are fatal only when the caller asked for strict decoding.
static void jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;  // trace output
    pb_trap *t = (pb_trap *)cinfo->client_data;
    cinfo->err->num_warnings++;
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER) jpeg_fail_from_library(cinfo, PB_TRUNCATED);
    if (t->strict) jpeg_fail_from_library(cinfo, PB_ERROR);
    t->warnings++;
}

static void jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void jpeg_scan_limit(j_common_ptr common) {
    if (!common->is_decompressor) return;
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    if (cinfo->input_scan_number > PB_JPEG_MAX_SCANS)
        trap_fail((pb_trap *)common->client_data, PB_ERROR, "more than 500 progressive scans");
}

static void jpeg_install_errors(j_common_ptr cinfo, struct jpeg_error_mgr *err, pb_trap *t) {
    cinfo->err = jpeg_std_error(err);
    err->error_exit = jpeg_error_exit;
    err->emit_message = jpeg_emit_message;
    err->output_message = jpeg_output_message;
    cinfo->client_data = t;
}

// MARK: - JPEG decoding

pb_jpeg_decoder *pb_jpeg_decoder_new(int strict) {
    pb_jpeg_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->trap.strict = strict;
    jpeg_install_errors((j_common_ptr)&d->cinfo, &d->err, &d->trap);
    if (setjmp(d->trap.jump)) {
        free(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);  // keeps err and client_data
    d->created = 1;
    d->progress.progress_monitor = jpeg_scan_limit;
    d->cinfo.progress = &d->progress;
    return d;
}

void pb_jpeg_decoder_free(pb_jpeg_decoder *d) {
    if (!d) return;
    if (d->created) jpeg_destroy_decompress(&d->cinfo);
    free(d);
}

int pb_jpeg_read_header(pb_jpeg_decoder *d, const uint8_t *data, size_t size) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    jpeg_mem_src(&d->cinfo, data, (unsigned long)size);
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);  // with require_image, "no image" is an error, not a return
    return PB_OK;
}

// A source manager over a descriptor, in the manner of libjpeg's stdio source. At the end of the
// file it does what jpeg_mem_src does at the end of its buffer — warn JWRN_JPEG_EOF and hand over
// a fake EOI — so a cut file gets the same verdict and message from either source.

static void fd_source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean fd_source_fill(j_decompress_ptr cinfo) {
    pb_jpeg_fd_source *src = (pb_jpeg_fd_source *)cinfo->src;
    ssize_t n;
    do n = read(src->fd, src->buffer, PB_READ_BUFFER);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        char text[JMSG_LENGTH_MAX];
        snprintf(text, sizeof text, "cannot read the file: %s", strerror(errno));
        trap_fail((pb_trap *)cinfo->client_data, PB_ERROR, text);
    }
    if (n == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);
        src->buffer[0] = (JOCTET)0xFF;
        src->buffer[1] = (JOCTET)JPEG_EOI;
        n = 2;
    }
    src->pub.next_input_byte = src->buffer;
    src->pub.bytes_in_buffer = (size_t)n;
    return TRUE;
}

static void fd_source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)(*src->fill_input_buffer)(cinfo);  // never suspends
    }
    src->next_input_byte += (size_t)count;
    src->bytes_in_buffer -= (size_t)count;
}

static void fd_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

int pb_jpeg_read_header_fd(pb_jpeg_decoder *d, int fd) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    pb_jpeg_fd_source *src = &d->source;
    // From libjpeg's permanent pool: freed with the decompressor, and a failed allocation is an
    // ordinary trapped error.
    src->buffer = (JOCTET *)(*d->cinfo.mem->alloc_small)((j_common_ptr)&d->cinfo, JPOOL_PERMANENT, PB_READ_BUFFER);
    src->fd = fd;
    src->pub.init_source = fd_source_init;
    src->pub.fill_input_buffer = fd_source_fill;
    src->pub.skip_input_data = fd_source_skip;
    src->pub.resync_to_restart = jpeg_resync_to_restart;
    src->pub.term_source = fd_source_term;
    src->pub.bytes_in_buffer = 0;
    src->pub.next_input_byte = NULL;
    d->cinfo.src = &src->pub;
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);
    return PB_OK;
}

int pb_jpeg_prepare(pb_jpeg_decoder *d, J_COLOR_SPACE out_space, unsigned scale_denom, int fast,
                    size_t max_memory) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    d->cinfo.out_color_space = out_space;
    d->cinfo.scale_num = 1;
    d->cinfo.scale_denom = scale_denom;
    d->cinfo.dct_method = fast ? JDCT_IFAST : JDCT_ISLOW;
    d->cinfo.do_fancy_upsampling = fast ? FALSE : TRUE;
    d->cinfo.mem->max_memory_to_use = (long)(max_memory > (size_t)0x7fffffffffffL ? 0x7fffffffffffL : max_memory);
    jpeg_calc_output_dimensions(&d->cinfo);
    return PB_OK;
}

int pb_jpeg_read_image(pb_jpeg_decoder *d, uint8_t *pixels, size_t stride) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    struct jpeg_decompress_struct *cinfo = &d->cinfo;
    JDIMENSION expected_height = cinfo->output_height;
    jpeg_start_decompress(cinfo);
    // start_decompress recomputes the output size; it must still fit the caller's buffer.
    if ((size_t)cinfo->output_width * (size_t)cinfo->output_components > stride ||
        cinfo->output_height != expected_height)
        trap_fail(&d->trap, PB_ERROR, "output size changed after allocation");
    // Several rows per call lets libjpeg hand over whole iMCU rows at once.
    enum { BATCH = 16 };
    JSAMPROW rows[BATCH];
    while (cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION first = cinfo->output_scanline;
        JDIMENSION n = cinfo->output_height - first;
        if (n > BATCH) n = BATCH;
        for (JDIMENSION i = 0; i < n; i++) rows[i] = pixels + (size_t)(first + i) * stride;
        if (jpeg_read_scanlines(cinfo, rows, n) == 0)  // only a suspending source returns 0
            trap_fail(&d->trap, PB_TRUNCATED, "no more scanlines");
    }
    jpeg_finish_decompress(cinfo);
    return PB_OK;
}

// MARK: - JPEG encoding

typedef struct pb_jpeg_destination {
    struct jpeg_destination_mgr pub;
    pb_buffer *out;
} pb_jpeg_destination;

static void dest_init(j_compress_ptr cinfo) {
    pb_jpeg_destination *dest = (pb_jpeg_destination *)cinfo->dest;
    if (!buffer_reserve(dest->out, 65536)) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    dest->pub.next_output_byte = dest->out->data + dest->out->size;
    dest->pub.free_in_buffer = dest->out->capacity - dest->out->size;
}

static boolean dest_empty(j_compress_ptr cinfo) {
    pb_jpeg_destination *dest = (pb_jpeg_destination *)cinfo->dest;
    dest->out->size = dest->out->capacity;  // libjpeg only calls this when the buffer is full
    if (!buffer_reserve(dest->out, dest->out->capacity)) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    dest->pub.next_output_byte = dest->out->data + dest->out->size;
    dest->pub.free_in_buffer = dest->out->capacity - dest->out->size;
    return TRUE;
}

static void dest_term(j_compress_ptr cinfo) {
    pb_jpeg_destination *dest = (pb_jpeg_destination *)cinfo->dest;
    dest->out->size = dest->out->capacity - dest->pub.free_in_buffer;
}

/// After a failure in a compress phase: the struct destroyed and the partial output freed.
static int compress_failed(struct jpeg_compress_struct *cinfo, pb_buffer *out, pb_trap *trap) {
    jpeg_destroy_compress(cinfo);
    free(out->data);
    out->data = NULL;
    out->size = out->capacity = 0;
    return trap->status;
}

/// Creates the compress struct, writing into `dest`'s buffer. Called after the phase's setjmp.
static void compress_into(struct jpeg_compress_struct *cinfo, pb_jpeg_destination *dest) {
    jpeg_create_compress(cinfo);
    dest->pub.init_destination = dest_init;
    dest->pub.empty_output_buffer = dest_empty;
    dest->pub.term_destination = dest_term;
    cinfo->dest = &dest->pub;
}

int pb_jpeg_encode(const pb_jpeg_encode_params *p, const uint8_t *pixels, pb_buffer *out,
                   pb_trap *trap) {
    // The compress struct is only modified through pointers by libjpeg, so after a jump it is
    // still the object to destroy (the pattern of libjpeg's own example.c).
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    pb_jpeg_destination dest = {.out = out};
    memset(&cinfo, 0, sizeof cinfo);
    jpeg_install_errors((j_common_ptr)&cinfo, &err, trap);
    if (setjmp(trap->jump)) return compress_failed(&cinfo, out, trap);
    compress_into(&cinfo, &dest);

    cinfo.image_width = p->width;
    cinfo.image_height = p->height;
    cinfo.input_components = p->input_components;
    cinfo.in_color_space = p->input_space;
    jpeg_set_defaults(&cinfo);
    jpeg_set_colorspace(&cinfo, p->jpeg_space);  // CMYK/YCCK also get the Adobe marker
    jpeg_set_quality(&cinfo, p->quality, TRUE);
    if (p->jpeg_space == JCS_YCbCr || p->jpeg_space == JCS_YCCK) {
        for (int c = 0; c < cinfo.num_components; c++) {
            int full = c == 0 || c == 3;  // luma and K keep full resolution
            cinfo.comp_info[c].h_samp_factor = full ? p->subsample : 1;
            cinfo.comp_info[c].v_samp_factor = full ? p->subsample : 1;
        }
    }
    cinfo.optimize_coding = p->optimize ? TRUE : FALSE;
    cinfo.dct_method = JDCT_ISLOW;
    if (p->progressive) jpeg_simple_progression(&cinfo);

    jpeg_start_compress(&cinfo, TRUE);
    enum { BATCH = 16 };
    JSAMPROW rows[BATCH];
    while (cinfo.next_scanline < cinfo.image_height) {
        JDIMENSION first = cinfo.next_scanline;
        JDIMENSION n = cinfo.image_height - first;
        if (n > BATCH) n = BATCH;
        for (JDIMENSION i = 0; i < n; i++) rows[i] = (JSAMPROW)(pixels + (size_t)(first + i) * p->stride);
        jpeg_write_scanlines(&cinfo, rows, n);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return PB_OK;
}

static JDIMENSION round_up(JDIMENSION n, JDIMENSION m) { return (n + m - 1) / m * m; }

int pb_jpeg_band_encode(pb_jpeg_decoder *src, uint32_t band_height, const int16_t *const *coefficients,
                        pb_buffer *out, pb_trap *trap) {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    pb_jpeg_destination dest = {.out = out};
    memset(&cinfo, 0, sizeof cinfo);
    jpeg_install_errors((j_common_ptr)&cinfo, &err, trap);
    if (setjmp(trap->jump)) return compress_failed(&cinfo, out, trap);
    compress_into(&cinfo, &dest);
    // Width, components, sampling, quantization tables and colour space (with its JFIF or Adobe
    // marker) as the source declared them; only the height is the band's.
    jpeg_copy_critical_parameters(&src->cinfo, &cinfo);
    cinfo.image_height = band_height;
    cinfo.optimize_coding = FALSE;  // the standard tables code every 8-bit coefficient
    int hmax = 1, vmax = 1;
    for (int c = 0; c < cinfo.num_components; c++) {
        if (cinfo.comp_info[c].h_samp_factor > hmax) hmax = cinfo.comp_info[c].h_samp_factor;
        if (cinfo.comp_info[c].v_samp_factor > vmax) vmax = cinfo.comp_info[c].v_samp_factor;
    }
    jvirt_barray_ptr arrays[MAX_COMPONENTS];
    JDIMENSION wide[MAX_COMPONENTS], tall[MAX_COMPONENTS];
    for (int c = 0; c < cinfo.num_components; c++) {
        jpeg_component_info *k = &cinfo.comp_info[c];
        // ITU-T T.81 A.1.1: a component's size is the image's scaled by its sampling, rounded up.
        JDIMENSION w = (JDIMENSION)(((uint64_t)cinfo.image_width * k->h_samp_factor + hmax - 1) / hmax);
        JDIMENSION h = (JDIMENSION)(((uint64_t)band_height * k->v_samp_factor + vmax - 1) / vmax);
        wide[c] = (w + 7) / 8;
        tall[c] = (h + 7) / 8;
        arrays[c] = (*cinfo.mem->request_virt_barray)((j_common_ptr)&cinfo, JPOOL_IMAGE, TRUE,
            round_up(wide[c], (JDIMENSION)k->h_samp_factor), round_up(tall[c], (JDIMENSION)k->v_samp_factor),
            (JDIMENSION)k->v_samp_factor);
    }
    jpeg_write_coefficients(&cinfo, arrays);
    for (int c = 0; c < cinfo.num_components; c++) {
        for (JDIMENSION row = 0; row < tall[c]; row++) {
            JBLOCKARRAY blocks = (*cinfo.mem->access_virt_barray)((j_common_ptr)&cinfo, arrays[c], row, 1, TRUE);
            memcpy(blocks[0], coefficients[c] + (size_t)row * wide[c] * DCTSIZE2, (size_t)wide[c] * sizeof(JBLOCK));
        }
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return PB_OK;
}

// MARK: - libpng error handling and memory I/O

static void png_error_fn(png_structp png, png_const_charp message) {
    pb_trap *t = (pb_trap *)png_get_error_ptr(png);
    // The read callback sets PB_TRUNCATED before raising; keep that classification.
    trap_fail(t, t->status ? t->status : PB_ERROR, message);
}

/// Warnings are ancillary-chunk damage libpng skips (bad CRC, known-bad ICC profile, ...).
static void png_warning_fn(png_structp png, png_const_charp message) {
    pb_trap *t = (pb_trap *)png_get_error_ptr(png);
    if (t->strict) trap_fail(t, PB_ERROR, message);
    t->warnings++;
}

static void png_read_memory(png_structp png, png_bytep out, size_t count) {
    pb_png_decoder *d = (pb_png_decoder *)png_get_io_ptr(png);
    if (count > d->size - d->position) {
        d->trap.status = PB_TRUNCATED;
        png_error(png, "file ends before the image does");
    }
    memcpy(out, d->data + d->position, count);
    d->position += count;
}

static void png_read_failed(png_structp png, pb_png_decoder *d, ssize_t n) {
    if (n == 0) {  // the file shrank since its size was taken: it ends here
        d->trap.status = PB_TRUNCATED;
        png_error(png, "file ends before the image does");
    }
    char text[JMSG_LENGTH_MAX];
    snprintf(text, sizeof text, "cannot read the file: %s", strerror(errno));
    png_error(png, text);
}

/// The descriptor twin of png_read_memory: the same limit and message, the bytes come through a
/// 64 KiB buffer (large reads, whole big chunks, go straight to libpng's memory).
static void png_read_fd(png_structp png, png_bytep out, size_t count) {
    pb_png_decoder *d = (pb_png_decoder *)png_get_io_ptr(png);
    if (count > d->size - d->position) {
        d->trap.status = PB_TRUNCATED;
        png_error(png, "file ends before the image does");
    }
    while (count > 0) {
        size_t at = d->position;
        if (at >= d->buffer_offset && at < d->buffer_offset + d->buffered) {
            size_t n = d->buffer_offset + d->buffered - at;
            if (n > count) n = count;
            memcpy(out, d->buffer + (at - d->buffer_offset), n);
            out += n;
            count -= n;
            d->position += n;
        } else if (count >= PB_READ_BUFFER) {
            ssize_t n = read_at(d->fd, out, count, at);
            if (n <= 0) png_read_failed(png, d, n);
            out += n;
            count -= (size_t)n;
            d->position += (size_t)n;
        } else {
            ssize_t n = read_at(d->fd, d->buffer, PB_READ_BUFFER, at);
            if (n <= 0) png_read_failed(png, d, n);
            d->buffer_offset = at;
            d->buffered = (size_t)n;
        }
    }
}

static void png_write_memory(png_structp png, png_bytep data, size_t count) {
    pb_buffer *b = (pb_buffer *)png_get_io_ptr(png);
    if (!buffer_reserve(b, count)) png_error(png, "out of memory");
    memcpy(b->data + b->size, data, count);
    b->size += count;
}

static void png_flush_memory(png_structp png) { (void)png; }

// MARK: - PNG decoding

pb_png_decoder *pb_png_decoder_new(int strict) {
    pb_png_decoder *d = calloc(1, sizeof *d);
    if (d) d->trap.strict = strict;
    return d;
}

void pb_png_decoder_free(pb_png_decoder *d) {
    if (!d) return;
    if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    free(d->buffer);
    free(d);
}

/// Where the input is seen to end: libpng allocates (and zeroes) a buffer of a chunk's declared
/// length before reading it, so a 45-byte file declaring a 2 GB tEXt chunk would cost 2 GB. A chunk
/// that claims more bytes than are left cannot be complete, so the file is seen to end where that
/// chunk starts, exactly as if it had been cut there (the same "truncated" verdict, no allocation).
/// A chunk whose length and type are there but whose CRC is not counts too (libpng allocates as
/// soon as it has read the eight header bytes; found by the png fuzz harness). The chunk lengths
/// come from `data`, or, when it is NULL, from `fd` by pread, four bytes a chunk, skipping the
/// rest: the same cut without reading the file whole.
static size_t png_readable_size(const uint8_t *data, int fd, size_t size) {
    if (size < 8) return size;
    size_t at = 8;
    while (size - at >= 8) {
        uint8_t b[4];
        if (data) memcpy(b, data + at, 4);
        else if (read_at(fd, b, 4, at) != 4) return at;  // shrank (or unreadable): it ends here
        uint32_t length = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        if ((size_t)length + 4 > size - at - 8) return at;
        at += 12 + (size_t)length;
    }
    return size;
}

static int png_read_header_common(pb_png_decoder *d, png_rw_ptr reader, pb_png_header *out);

int pb_png_read_header(pb_png_decoder *d, const uint8_t *data, size_t size, pb_png_header *out) {
    d->data = data;
    d->fd = -1;
    d->size = png_readable_size(data, -1, size);
    d->position = 0;
    return png_read_header_common(d, png_read_memory, out);
}

int pb_png_read_header_fd(pb_png_decoder *d, int fd, size_t size, pb_png_header *out) {
    d->data = NULL;
    d->fd = fd;
    d->size = png_readable_size(NULL, fd, size);
    d->position = 0;
    d->buffer = malloc(PB_READ_BUFFER);
    if (!d->buffer) {
        trap_set(&d->trap, PB_ERROR, "out of memory");
        return PB_ERROR;
    }
    d->buffer_offset = d->buffered = 0;
    return png_read_header_common(d, png_read_fd, out);
}

static int png_read_header_common(pb_png_decoder *d, png_rw_ptr reader, pb_png_header *out) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    // Created here, not in _new, because creation can already raise an error.
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d->trap, png_error_fn, png_warning_fn);
    if (!d->png) trap_fail(&d->trap, PB_ERROR, "out of memory");
    d->info = png_create_info_struct(d->png);
    if (!d->info) png_error(d->png, "out of memory");
    png_set_read_fn(d->png, d, reader);
    // Picturebook checks the size itself (to report it as too large, with the numbers), so lift
    // libpng's own default cap of a million pixels per side.
    png_set_user_limits(d->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
    // Cap what one ancillary chunk may decompress into (zTXt, iCCP: a few MB at most in any real
    // scan) and how many are kept. (A chunk's declared length is bounded by the file itself, above.)
    png_set_chunk_malloc_max(d->png, 16u << 20);
    png_set_chunk_cache_max(d->png, 1000);
    png_read_info(d->png, d->info);

    png_uint_32 width, height;
    int depth, color, interlace;
    png_get_IHDR(d->png, d->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    memset(out, 0, sizeof *out);
    out->width = width;
    out->height = height;
    out->bit_depth = depth;
    out->color_type = color;
    out->interlaced = interlace != PNG_INTERLACE_NONE;
    out->has_trns = png_get_valid(d->png, d->info, PNG_INFO_tRNS) != 0;
    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_colorp palette = NULL;
        int count = 0;
        if (png_get_PLTE(d->png, d->info, &palette, &count) && palette && count > 0) {
            if (count > 256) count = 256;
            for (int i = 0; i < count; i++) {
                out->palette[3 * i] = palette[i].red;
                out->palette[3 * i + 1] = palette[i].green;
                out->palette[3 * i + 2] = palette[i].blue;
            }
            out->num_palette = count;
        }
    }
#ifdef PNG_eXIf_SUPPORTED
    png_uint_32 exif_length = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(d->png, d->info, &exif_length, &exif) && exif) {
        out->exif = exif;
        out->exif_length = exif_length;
    }
#endif
    return PB_OK;
}

int pb_png_start(pb_png_decoder *d, int mode, int expected_channels) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    int color = png_get_color_type(d->png, d->info);
    int has_trns = png_get_valid(d->png, d->info, PNG_INFO_tRNS) != 0;
    switch (mode) {
    case PB_PNG_RGBA:
        png_set_expand(d->png);    // palette → RGB, 1/2/4-bit gray → 8, tRNS → alpha
        png_set_scale_16(d->png);  // 16 → 8 by rounding v·255/65535, not by dropping the low byte
        if (!(color & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(d->png);
        if (!(color & PNG_COLOR_MASK_ALPHA) && !has_trns) png_set_add_alpha(d->png, 0xff, PNG_FILLER_AFTER);
        break;
    case PB_PNG_GRAY:
        png_set_expand_gray_1_2_4_to_8(d->png);
        png_set_scale_16(d->png);
        break;
    case PB_PNG_INDEX:
        png_set_packing(d->png);  // one index per byte, values unchanged
        break;
    default:
        trap_fail(&d->trap, PB_ERROR, "unknown decode mode");
    }
    d->passes = png_set_interlace_handling(d->png);
    png_read_update_info(d->png, d->info);
    size_t want = (size_t)png_get_image_width(d->png, d->info) * (size_t)expected_channels;
    if (png_get_rowbytes(d->png, d->info) != want || png_get_bit_depth(d->png, d->info) != 8)
        trap_fail(&d->trap, PB_ERROR, "unexpected row layout after transformations");
    return PB_OK;
}

int pb_png_read_rows(pb_png_decoder *d, uint8_t *pixels, size_t stride, uint32_t count) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    enum { BATCH = 32 };
    png_bytep rows[BATCH];
    for (uint32_t done = 0; done < count;) {
        uint32_t n = count - done < BATCH ? count - done : BATCH;
        for (uint32_t i = 0; i < n; i++) rows[i] = pixels + (size_t)(done + i) * stride;
        png_read_rows(d->png, rows, NULL, n);
        done += n;
    }
    return PB_OK;
}

int pb_png_read_image(pb_png_decoder *d, uint8_t *pixels, size_t stride) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    png_uint_32 height = png_get_image_height(d->png, d->info);
    // Each pass fills in its own pixels of the same rows ("sparkle" order); after the last pass
    // every pixel has been written once.
    for (int pass = 0; pass < d->passes; pass++)
        for (png_uint_32 y = 0; y < height; y++) png_read_row(d->png, pixels + (size_t)y * stride, NULL);
    return PB_OK;
}

int pb_png_finish(pb_png_decoder *d) {
    if (setjmp(d->trap.jump)) return d->trap.status;
    png_read_end(d->png, NULL);
    return PB_OK;
}

// MARK: - PNG encoding

int pb_png_encode(const pb_png_encode_params *p, const uint8_t *pixels, pb_buffer *out,
                  pb_trap *trap) {
    // Assigned after setjmp and used after a jump, hence volatile.
    png_structp volatile png = NULL;
    png_infop volatile info = NULL;
    if (setjmp(trap->jump)) {
        png_structp s = png;
        png_infop i = info;
        if (s) png_destroy_write_struct(&s, i ? &i : NULL);
        free(out->data);
        out->data = NULL;
        out->size = out->capacity = 0;
        return trap->status;
    }
    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, trap, png_error_fn, png_warning_fn);
    if (!png) trap_fail(trap, PB_ERROR, "out of memory");
    info = png_create_info_struct(png);
    if (!info) png_error(png, "out of memory");
    png_set_write_fn(png, out, png_write_memory, png_flush_memory);

    png_set_IHDR(png, info, p->width, p->height, p->bit_depth, p->color_type,
                 p->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (p->palette && p->num_palette > 0) png_set_PLTE(png, info, (png_const_colorp)p->palette, p->num_palette);
    if (p->trans && p->num_trans > 0) png_set_tRNS(png, info, p->trans, p->num_trans, NULL);
    if (p->has_trans_color) {
        png_color_16 c = {0};
        c.gray = p->trans_gray;
        c.red = p->trans_red;
        c.green = p->trans_green;
        c.blue = p->trans_blue;
        png_set_tRNS(png, info, NULL, 0, &c);
    }
#ifdef PNG_eXIf_SUPPORTED
    if (p->exif && p->exif_length > 0) png_set_eXIf_1(png, info, p->exif_length, (png_bytep)p->exif);
#endif
    png_set_compression_level(png, p->level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, p->filters);
    png_write_info(png, info);
    if (p->strip_filler) png_set_filler(png, 0, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++)
        for (uint32_t y = 0; y < p->height; y++) png_write_row(png, (png_const_bytep)(pixels + (size_t)y * p->stride));
    png_write_end(png, info);
    png_structp s = png;
    png_infop i = info;
    png_destroy_write_struct(&s, &i);
    return PB_OK;
}
