// JPEG 2000 through OpenJPEG 2.5: JP2 files and raw J2K codestreams from memory, messages
// recorded instead of printed, strict mode so a truncated codestream is an error rather than a
// silently blurred image, and conversion of the decoded components (any precision, signed or not,
// subsampled or not, sRGB, gray or sYCC) to 8-bit straight RGBA.

#include "pbscan.h"
#include "scan_common.h"

#include <errno.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <openjpeg.h>

struct pbs_jp2 {
    opj_codec_t *codec;
    opj_stream_t *stream;
    opj_image_t *image;
    const uint8_t *data;  ///< the bytes, when reading memory
    int fd;               ///< the file, when reading one (pread at `position`); -1 otherwise
    size_t size, position;
    pbs_text message;
    int failed;
    /// The size the header declared: the caller's buffer is exactly this, whatever the decode says.
    uint32_t width, height;
    int codestream;  ///< a raw J2K codestream rather than a JP2 file
    /// The JP2 header holds a palette, component mapping or channel definition: OpenJPEG applies
    /// them to the image on the first decode and then forgets them, so such a file is not decoded
    /// twice through one codec.
    int has_channel_boxes;
    uint32_t x0, y0;  ///< the image's left column and top row on the reference grid
};

static void on_error(const char *message, void *user) {
    pbs_jp2 *j = user;
    if (!j->failed) pbs_text_set(&j->message, message);
    j->failed = 1;
}

static void on_quiet(const char *message, void *user) { (void)message; (void)user; }

pbs_jp2 *pbs_jp2_new(void) {
    pbs_jp2 *j = calloc(1, sizeof(pbs_jp2));
    if (j) j->fd = -1;
    return j;
}

void pbs_jp2_free(pbs_jp2 *j) {
    if (!j) return;
    if (j->image) opj_image_destroy(j->image);
    if (j->stream) opj_stream_destroy(j->stream);
    if (j->codec) opj_destroy_codec(j->codec);
    free(j);
}

const char *pbs_jp2_message(const pbs_jp2 *j) { return j->message.text; }

// MARK: - Memory stream

/// Reads `count` bytes at `offset` of the file, as many as it still has (it may have shrunk
/// since it was measured): fewer is its end.
static size_t fd_read_at(int fd, void *buffer, size_t count, size_t offset) {
    size_t done = 0;
    while (done < count) {
        ssize_t n = pread(fd, (uint8_t *)buffer + done, count - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    return done;
}

static OPJ_SIZE_T mem_read(void *buffer, OPJ_SIZE_T count, void *user) {
    pbs_jp2 *j = user;
    if (j->position >= j->size) return (OPJ_SIZE_T)-1;  // OpenJPEG's end-of-stream
    size_t n = count < j->size - j->position ? count : j->size - j->position;
    if (j->fd >= 0) {
        n = fd_read_at(j->fd, buffer, n, j->position);
        if (n == 0) { j->position = j->size; return (OPJ_SIZE_T)-1; }
    } else {
        memcpy(buffer, j->data + j->position, n);
    }
    j->position += n;
    return n;
}

static OPJ_OFF_T mem_skip(OPJ_OFF_T count, void *user) {
    pbs_jp2 *j = user;
    if (count < 0) {
        if ((size_t)-count > j->position) return -1;
        j->position -= (size_t)-count;
    } else {
        if ((uint64_t)count > j->size - j->position) { j->position = j->size; return -1; }
        j->position += (size_t)count;
    }
    return count;
}

static OPJ_BOOL mem_seek(OPJ_OFF_T offset, void *user) {
    pbs_jp2 *j = user;
    if (offset < 0 || (uint64_t)offset > j->size) return OPJ_FALSE;
    j->position = (size_t)offset;
    return OPJ_TRUE;
}

static const uint8_t jp2_signature[12] = {0, 0, 0, 0x0c, 'j', 'P', ' ', ' ', 0x0d, 0x0a, 0x87, 0x0a};
static const uint8_t j2k_signature[4] = {0xff, 0x4f, 0xff, 0x51};

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/// Reads up to `count` bytes at `offset` of an input into `buffer`; returns how many it had.
typedef size_t (*read_at_fn)(const void *input, void *buffer, size_t count, size_t offset);

typedef struct memory_input {
    const uint8_t *data;
    size_t size;
} memory_input;

static size_t memory_read_at(const void *input, void *buffer, size_t count, size_t offset) {
    const memory_input *m = input;
    if (offset >= m->size) return 0;
    size_t n = count < m->size - offset ? count : m->size - offset;
    memcpy(buffer, m->data + offset, n);
    return n;
}

static size_t file_read_at(const void *input, void *buffer, size_t count, size_t offset) {
    return fd_read_at(*(const int *)input, buffer, count, offset);
}

/// The box whose header starts at `at`, in a run of boxes ending at `end`: its type, where its
/// payload starts and where the next box starts (which may lie past `end`: a box cut short). 0
/// when no box header is there.
static int read_box(read_at_fn read_at, const void *input, size_t at, size_t end, uint8_t type[4],
                    size_t *payload, uint64_t *next) {
    uint8_t box[16];
    if (at > end || end - at < 8) return 0;
    size_t got = read_at(input, box, 16, at);
    if (got < 8) return 0;
    uint64_t length = be32(box);
    size_t header = 8;
    if (length == 1) {  // a 64-bit length follows the type
        if (end - at < 16 || got < 16) return 0;
        length = (uint64_t)be32(box + 8) << 32 | be32(box + 12);
        header = 16;
    } else if (length == 0) {  // the box runs to the end of its run
        length = end - at;
    }
    if (length < header) return 0;
    memcpy(type, box + 4, 4);
    *payload = at + header;
    *next = (uint64_t)at + length;
    return 1;
}

/// Offset of the codestream inside a JP2 file of `size` bytes: the payload of its first
/// top-level `jp2c` box (even one cut short), found by reading the box headers alone.
static int jp2c_offset(read_at_fn read_at, const void *input, size_t size, size_t *offset) {
    uint8_t type[4];
    size_t at = 0, payload;
    uint64_t next;
    while (read_box(read_at, input, at, size, type, &payload, &next)) {
        if (memcmp(type, "jp2c", 4) == 0) { *offset = payload; return 1; }
        if (next > size) return 0;
        at = (size_t)next;
    }
    return 0;
}

/// Whether the JP2 header box holds a palette (`pclr`), component mapping (`cmap`) or channel
/// definition (`cdef`).
static int jp2h_has_channel_boxes(read_at_fn read_at, const void *input, size_t size) {
    uint8_t type[4];
    size_t at = 0, payload;
    uint64_t next;
    while (read_box(read_at, input, at, size, type, &payload, &next) && next <= size) {
        if (memcmp(type, "jp2h", 4) == 0) {
            size_t inner = payload, inner_payload;
            uint64_t inner_next;
            while (read_box(read_at, input, inner, (size_t)next, type, &inner_payload, &inner_next) && inner_next <= next) {
                if (memcmp(type, "pclr", 4) == 0 || memcmp(type, "cmap", 4) == 0 || memcmp(type, "cdef", 4) == 0) return 1;
                inner = (size_t)inner_next;
            }
            return 0;
        }
        if (memcmp(type, "jp2c", 4) == 0) return 0;
        at = (size_t)next;
    }
    // Not readable as boxes: OpenJPEG read it, so say yes and decode it the careful way.
    return 1;
}

/// SIZ of the codestream at `data` (`size` bytes from SOC on).
static int declared_in_codestream(const uint8_t *data, size_t size, pbs_jp2_declared *out);

int pbs_jp2_declared_size(const uint8_t *data, size_t size, pbs_jp2_declared *out) {
    size_t at = 0;
    if (size >= 12 && memcmp(data, jp2_signature, 12) == 0) {
        memory_input m = {data, size};
        if (!jp2c_offset(memory_read_at, &m, size, &at)) return PBS_ERROR;
    }
    if (size < at) return PBS_ERROR;
    return declared_in_codestream(data + at, size - at, out);
}

static int declared_in_codestream(const uint8_t *data, size_t size, pbs_jp2_declared *out) {
    // SOC, then the SIZ marker: Lsiz, Rsiz, nine 32-bit fields, Csiz, and 3 bytes per component.
    if (size < 2 + 40 || memcmp(data, j2k_signature, 4) != 0) return PBS_ERROR;
    const uint8_t *siz = data + 2;
    uint16_t length = be16(siz + 2);
    uint32_t xs = be32(siz + 6), ys = be32(siz + 10), x0 = be32(siz + 14), y0 = be32(siz + 18);
    uint32_t tw = be32(siz + 22), th = be32(siz + 26), tx0 = be32(siz + 30), ty0 = be32(siz + 34);
    uint16_t components = be16(siz + 38);
    if (xs <= x0 || ys <= y0 || tw == 0 || th == 0 || tx0 > x0 || ty0 > y0 || components == 0) return PBS_ERROR;
    if ((size_t)length < 38 + 3 * (size_t)components || size - 4 < (size_t)length) return PBS_ERROR;
    out->width = xs - x0;
    out->height = ys - y0;
    out->components = components;
    uint64_t across = ((uint64_t)xs - tx0 + tw - 1) / tw, down = ((uint64_t)ys - ty0 + th - 1) / th;
    out->tiles = across * down > UINT32_MAX ? UINT32_MAX : (uint32_t)(across * down);
    out->samples = 0;
    for (uint16_t c = 0; c < components; c++) {
        uint8_t dx = siz[40 + 3 * c + 1], dy = siz[40 + 3 * c + 2];
        if (dx == 0 || dy == 0) return PBS_ERROR;
        // A component's extent is ceil(X/dx) - ceil(X0/dx) (ITU-T T.800 B.2).
        uint64_t cw = ((uint64_t)xs + dx - 1) / dx - ((uint64_t)x0 + dx - 1) / dx;
        uint64_t ch = ((uint64_t)ys + dy - 1) / dy - ((uint64_t)y0 + dy - 1) / dy;
        uint64_t n = cw * ch;  // each factor is below 2^32, so the product fits
        out->samples = out->samples > UINT64_MAX - n ? UINT64_MAX : out->samples + n;
    }
    return PBS_OK;
}

int pbs_jp2_declared_size_fd(int fd, size_t size, pbs_jp2_declared *out) {
    uint8_t head[12];
    size_t at = 0;
    if (fd_read_at(fd, head, 12, 0) == 12 && memcmp(head, jp2_signature, 12) == 0) {
        if (!jp2c_offset(file_read_at, &fd, size, &at)) return PBS_ERROR;
    }
    // SOC, SIZ's marker and length, and at most 65535 bytes of SIZ.
    if (at > size) return PBS_ERROR;
    size_t want = size - at < 4 + 65535 ? size - at : 4 + 65535;
    uint8_t *siz = malloc(want ? want : 1);
    if (!siz) return PBS_ERROR;
    size_t got = fd_read_at(fd, siz, want, at);
    int status = declared_in_codestream(siz, got, out);
    free(siz);
    return status;
}

static int read_header(pbs_jp2 *j, const uint8_t *head, size_t head_size, pbs_jp2_info *out);

int pbs_jp2_read_header(pbs_jp2 *j, const uint8_t *data, size_t size, pbs_jp2_info *out) {
    j->data = data;
    j->size = size;
    return read_header(j, data, size, out);
}

int pbs_jp2_read_header_fd(pbs_jp2 *j, int fd, size_t size, pbs_jp2_info *out) {
    uint8_t head[12];
    size_t n = fd_read_at(fd, head, size < sizeof head ? size : sizeof head, 0);
    j->fd = fd;
    j->size = size;
    return read_header(j, head, n, out);
}

/// Makes a codec and a stream reading the input from its first byte, and reads the main header
/// into `j->image`. Called once for the header, and again for each band of rows when a band
/// cannot be decoded through the same codec (see `pbs_jp2_decode_rgba`).
static int open_codec(pbs_jp2 *j) {
    if (j->image) { opj_image_destroy(j->image); j->image = NULL; }
    if (j->stream) { opj_stream_destroy(j->stream); j->stream = NULL; }
    if (j->codec) { opj_destroy_codec(j->codec); j->codec = NULL; }
    j->position = 0;
    j->failed = 0;
    j->codec = opj_create_decompress(j->codestream ? OPJ_CODEC_J2K : OPJ_CODEC_JP2);
    j->stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
    if (!j->codec || !j->stream) { pbs_text_set(&j->message, "out of memory"); return PBS_TOO_BIG; }
    opj_set_error_handler(j->codec, on_error, j);
    opj_set_warning_handler(j->codec, on_quiet, j);
    opj_set_info_handler(j->codec, on_quiet, j);
    opj_stream_set_user_data(j->stream, j, NULL);
    opj_stream_set_user_data_length(j->stream, j->size);
    opj_stream_set_read_function(j->stream, mem_read);
    opj_stream_set_skip_function(j->stream, mem_skip);
    opj_stream_set_seek_function(j->stream, mem_seek);
    opj_dparameters_t parameters;
    opj_set_default_decoder_parameters(&parameters);
    if (!opj_setup_decoder(j->codec, &parameters)) { pbs_text_set(&j->message, "cannot set up the decoder"); return PBS_ERROR; }
    // A codestream that ends early is an error, not a partial image.
    opj_decoder_set_strict_mode(j->codec, OPJ_TRUE);
    if (!opj_read_header(j->stream, j->codec, &j->image) || !j->image) {
        if (!j->failed) pbs_text_set(&j->message, "unreadable header");
        return j->position >= j->size ? PBS_TRUNCATED : PBS_ERROR;
    }
    return PBS_OK;
}

/// `head`: the first bytes of the input (at least its signature, when it has one).
static int read_header(pbs_jp2 *j, const uint8_t *head, size_t head_size, pbs_jp2_info *out) {
    if (head_size >= 12 && memcmp(head, jp2_signature, 12) == 0) j->codestream = 0;
    else if (head_size >= 4 && memcmp(head, j2k_signature, 4) == 0) j->codestream = 1;
    else { pbs_text_set(&j->message, "not a JP2 file or J2K codestream"); return PBS_ERROR; }
    int status = open_codec(j);
    if (status != PBS_OK) return status;
    opj_image_t *im = j->image;
    if (im->numcomps == 0 || !im->comps || im->x1 <= im->x0 || im->y1 <= im->y0) {
        pbs_text_set(&j->message, "the header declares an empty image");
        return PBS_ERROR;
    }
    out->width = im->x1 - im->x0;
    out->height = im->y1 - im->y0;
    j->width = out->width;
    j->height = out->height;
    out->components = (int)im->numcomps;
    out->precision = (int)im->comps[0].prec;
    out->is_codestream = j->codestream;
    int colour = im->color_space == OPJ_CLRSPC_GRAY || (im->color_space != OPJ_CLRSPC_SRGB && im->color_space != OPJ_CLRSPC_SYCC && im->numcomps <= 2) ? 1 : 3;
    out->is_gray = colour == 1 && im->numcomps == 1;
    out->has_alpha = (int)im->numcomps > colour;
    if (im->color_space == OPJ_CLRSPC_CMYK || im->color_space == OPJ_CLRSPC_EYCC) {
        pbs_text_set(&j->message, im->color_space == OPJ_CLRSPC_CMYK ? "CMYK JPEG 2000" : "e-YCC JPEG 2000");
        return PBS_UNSUPPORTED;
    }
    if (colour == 3 && im->numcomps < 3) { pbs_text_set(&j->message, "a colour image with fewer than 3 components"); return PBS_ERROR; }
    for (OPJ_UINT32 c = 0; c < im->numcomps; c++) {
        if (im->comps[c].prec < 1 || im->comps[c].prec > 31 || im->comps[c].dx == 0 || im->comps[c].dy == 0) {
            pbs_text_set(&j->message, "a component with an impossible precision or subsampling");
            return PBS_ERROR;
        }
    }
    if (!j->codestream) {
        if (j->fd >= 0) j->has_channel_boxes = jp2h_has_channel_boxes(file_read_at, &j->fd, j->size);
        else {
            memory_input m = {j->data, j->size};
            j->has_channel_boxes = jp2h_has_channel_boxes(memory_read_at, &m, j->size);
        }
    }
    return PBS_OK;
}

/// One sample of component `c` at reference-grid position (X, Y), scaled to 0...255: the stored
/// sample at or before it (subsampled components are upsampled by repetition), clamped to what
/// this decode holds. `c` may hold a window of rows (its y0 and h), not the whole image.
static inline int sample8(const opj_image_comp_t *c, uint32_t X, uint32_t Y) {
    int64_t cx = (int64_t)(X / c->dx) - c->x0, cy = (int64_t)(Y / c->dy) - c->y0;
    if (cx < 0) cx = 0;
    if (cy < 0) cy = 0;
    if (cx >= c->w) cx = c->w - 1;
    if (cy >= c->h) cy = c->h - 1;
    int64_t v = c->data[(size_t)cy * c->w + (size_t)cx];
    if (c->sgnd) v += (int64_t)1 << (c->prec - 1);
    int64_t max = ((int64_t)1 << c->prec) - 1;
    if (v < 0) v = 0;
    if (v > max) v = max;
    return c->prec == 8 ? (int)v : (int)((v * 255 + max / 2) / max);
}

static inline uint8_t clamp8(double v) { return v <= 0 ? 0 : v >= 255 ? 255 : (uint8_t)(v + 0.5); }

/// Checks what one decode produced (rows `y0..<y1`, columns `x0..<x1` of the reference grid) and
/// converts it into that part of the caller's buffer.
static int convert_area(pbs_jp2 *j, uint32_t x0, uint32_t x1, uint32_t y0, uint32_t y1, uint8_t *pixels, size_t stride) {
    opj_image_t *im = j->image;
    // The decode may change the image the header described (a JP2 palette or channel definition
    // box applied, components dropped), so everything the conversion relies on is checked again
    // here: the size the caller's buffer was made for, the components each path reads, and each
    // component's data, precision and subsampling. (Found by fuzzing: a decoded image with no
    // components left.)
    if (!im || im->x0 != x0 || im->x1 != x1 || x1 <= x0 || x1 - j->x0 > j->width || im->y0 != y0 || im->y1 != y1) {
        pbs_text_set(&j->message, "the decoded image is not the size its header declared");
        return PBS_ERROR;
    }
    if (im->numcomps == 0 || !im->comps) {
        pbs_text_set(&j->message, "the decoded image has no components");
        return PBS_ERROR;
    }
    for (OPJ_UINT32 c = 0; c < im->numcomps; c++) {
        const opj_image_comp_t *k = &im->comps[c];
        if (!k->data || k->w == 0 || k->h == 0 || k->prec < 1 || k->prec > 31 || k->dx == 0 || k->dy == 0) {
            pbs_text_set(&j->message, "a component was not decoded");
            return PBS_ERROR;
        }
    }
    int gray = im->color_space == OPJ_CLRSPC_GRAY || (im->color_space != OPJ_CLRSPC_SRGB && im->color_space != OPJ_CLRSPC_SYCC && im->numcomps <= 2);
    if (!gray && im->numcomps < 3) {
        pbs_text_set(&j->message, "a colour image with fewer than 3 components");
        return PBS_ERROR;
    }
    int sycc = im->color_space == OPJ_CLRSPC_SYCC;
    int alpha = gray ? (im->numcomps >= 2 ? 1 : -1) : (im->numcomps >= 4 ? 3 : -1);
    for (uint32_t Y = y0; Y < y1; Y++) {
        uint8_t *row = pixels + (size_t)(Y - j->y0) * stride;
        for (uint32_t X = x0; X < x1; X++) {
            uint8_t *p = row + 4 * (size_t)(X - j->x0);
            if (gray) {
                p[0] = p[1] = p[2] = (uint8_t)sample8(&im->comps[0], X, Y);
            } else if (sycc) {
                // ITU-R BT.601 full range, as sYCC defines it.
                double Yv = sample8(&im->comps[0], X, Y), cb = sample8(&im->comps[1], X, Y) - 128.0,
                       cr = sample8(&im->comps[2], X, Y) - 128.0;
                p[0] = clamp8(Yv + 1.402 * cr);
                p[1] = clamp8(Yv - 0.344136 * cb - 0.714136 * cr);
                p[2] = clamp8(Yv + 1.772 * cb);
            } else {
                for (int c = 0; c < 3; c++) p[c] = (uint8_t)sample8(&im->comps[c], X, Y);
            }
            p[3] = alpha >= 0 ? (uint8_t)sample8(&im->comps[alpha], X, Y) : 255;
        }
    }
    return PBS_OK;
}

/// The first tile the codestream gives no tile-part for, found by walking its markers: the main
/// header's segments up to the first SOT, then SOT to SOT by their lengths (Psot). -1 when every
/// tile has one, or when the walk cannot tell (a length past the end, a tile-part running to EOC,
/// anything unexpected): OpenJPEG then judges the file as before. A decode of the whole image
/// fills a missing tile with zeros, a decode of an area that needs it fails, so the file is refused
/// either way (T.800 A.4.2: every tile has at least one tile-part).
static long missing_tile(read_at_fn read_at, const void *input, size_t size, int codestream, uint32_t tiles) {
    size_t at = 0;
    if (!codestream && !jp2c_offset(read_at, input, size, &at)) return -1;
    if (tiles == 0 || tiles > (1u << 20)) return -1;
    uint8_t *seen = calloc(tiles, 1);
    if (!seen) return -1;
    uint8_t b[12];
    at += 2;  // SOC
    long result = -1;
    int judged = 0;
    for (;;) {
        if (read_at(input, b, 2, at) < 2 || b[0] != 0xFF) break;
        if (b[1] == 0xD9) { judged = 1; break; }  // EOC
        if (read_at(input, b, 4, at) < 4) break;
        if (b[1] == 0x90) {  // SOT: Lsot, Isot, Psot, TPsot, TNsot
            if (read_at(input, b, 12, at) < 12) break;
            uint32_t tile = be16(b + 4), length = be32(b + 6);
            if (tile >= tiles || length < 14 || length > size - at) break;
            seen[tile] = 1;
            at += length;
            if (at == size) { judged = 1; break; }  // no EOC: the last tile-part ends the file
            continue;
        }
        if (b[1] == 0x93) break;  // SOD outside a tile-part: not walkable
        uint16_t length = be16(b + 2);
        if (length < 2) break;
        at += 2 + length;
    }
    if (judged) {
        for (uint32_t t = 0; t < tiles; t++) if (!seen[t]) { result = t; break; }
    }
    free(seen);
    return result;
}

static uint64_t gcd64(uint64_t a, uint64_t b) { while (b) { uint64_t t = a % b; a = b; b = t; } return a; }

/// OpenJPEG decodes every component of the area it is given as 32-bit integers, and keeps its
/// working buffers at that size too: a 4000 × 3000 RGB image costs 137 MiB decoded whole, three
/// times the RGBA it becomes. So an image larger than this is decoded a band of rows at a time,
/// each converted into the caller's buffer before the next is decoded.
#define WHOLE_DECODE_BYTES ((uint64_t)32 << 20)
/// A band's 32-bit samples, all components (about a sixth of what OpenJPEG's buffers for it take).
#define BAND_BYTES ((uint64_t)4 << 20)
/// A band of a single-tile image still costs far more than its samples: OpenJPEG keeps the decoded
/// coefficients of every code-block the band touches at every resolution (a code-block of the
/// finest one spans 128 rows, of the coarser ones 256, 512, … rows), across the whole width, plus
/// a second copy of them while it runs the inverse wavelet, and, decoding band after band through
/// one codec, the code-blocks' segment lists grow with each band (measured on a 4000 × 3000 RGB
/// file, 9/7, 87-row bands: 45 MiB above the RGBA image through one codec, 32 MiB with a codec per
/// band, 17 MiB with a codec per 512-column area of those bands). So a single-tile image whose
/// codestream is small enough to read again for every area is decoded in areas of at most
/// AREA_COLUMNS columns, each through a codec of its own; one whose codestream is larger (which
/// OpenJPEG holds whole while it decodes, so it dominates anyway) keeps one codec and full-width
/// bands, which decode each code-block about once instead of once per area it touches.
#define AREA_REREAD_MAX_BYTES ((uint64_t)16 << 20)
#define AREA_COLUMNS 512
/// An area's 32-bit samples, all components.
#define AREA_BYTES ((uint64_t)512 << 10)

/// Least common multiple of `a` and `b`, or `cap` + 1 once it exceeds `cap`.
static uint64_t lcm_capped(uint64_t a, uint64_t b, uint64_t cap) {
    uint64_t m = a / gcd64(a, b) * b;
    return m > cap ? cap + 1 : m;
}

static int decode_areas(pbs_jp2 *j, uint8_t *pixels, size_t stride, uint32_t band_rows) {
    if (!j->image || !j->codec) { pbs_text_set(&j->message, "the image was already decoded"); return PBS_ERROR; }
    opj_image_t *im = j->image;
    uint32_t Y0 = im->y0, Y1 = im->y1, X0 = im->x0, X1 = im->x1;
    j->x0 = X0;
    j->y0 = Y0;
    // Band edges fall on rows every component stores (multiples of every vertical subsampling
    // factor), so each band's first row reads the sample it would read in a whole decode; area
    // edges likewise on columns every component stores.
    uint64_t align = 1, xalign = 1, samples_per_row = 0;
    for (OPJ_UINT32 c = 0; c < im->numcomps; c++) {
        align = lcm_capped(align, im->comps[c].dy, j->height);
        xalign = lcm_capped(xalign, im->comps[c].dx, AREA_COLUMNS);
        samples_per_row += (uint64_t)j->width / im->comps[c].dx + 1;
    }
    uint64_t rows = band_rows;
    int tiled = 0;
    uint32_t tile_top = 0, tile_height = 0, tile_count = 1;
    opj_codestream_info_v2_t *info = opj_get_cstr_info(j->codec);
    if (info) {
        tiled = info->tw * info->th > 1;
        tile_count = info->tw * info->th;
        tile_top = info->ty0;
        tile_height = info->tdy;
        opj_destroy_cstr_info(&info);
    }
    int whole = samples_per_row * 4 * j->height <= WHOLE_DECODE_BYTES;
    // Areas narrower than the image: only when the shim chooses (a test forcing `band_rows` gets
    // full-width bands), for a single tile (a tiled image's bands are tile rows, each tile's
    // code-blocks its own), and when every component stores a column at least that often.
    int narrow = rows == 0 && !whole && !tiled && (uint64_t)j->size <= AREA_REREAD_MAX_BYTES && xalign <= AREA_COLUMNS &&
                 j->width > AREA_COLUMNS;
    uint64_t columns = narrow ? AREA_COLUMNS - AREA_COLUMNS % xalign : j->width;
    if (rows == 0) {
        if (whole) rows = j->height;
        else if (narrow) {
            uint64_t per_row = 0;
            for (OPJ_UINT32 c = 0; c < im->numcomps; c++) per_row += columns / im->comps[c].dx + 1;
            rows = AREA_BYTES / (per_row * 4);
        }
        else if (tiled && tile_height > 0 && tile_height % align == 0 && tile_top % align == 0 &&
                 (uint64_t)tile_height * samples_per_row * 4 <= 8 * BAND_BYTES) rows = tile_height;
        else rows = BAND_BYTES / (samples_per_row * 4);
    }
    if (align > j->height) rows = j->height;  // no row but the first is stored by every component
    if (rows < align) rows = align;
    rows -= rows % align;
    if (rows >= j->height) rows = j->height;
    // One codec decodes band after band when the image is one tile read in full-width bands
    // (OpenJPEG keeps the tile's codestream and reuses it); narrow areas, tiled images, and JP2
    // files whose palette or channel boxes OpenJPEG applies only once, are read afresh for each
    // area (only the tiles an area touches are decoded).
    int reuse = !tiled && !narrow && !j->has_channel_boxes;
    if (tiled) {
        long missing;
        if (j->fd >= 0) missing = missing_tile(file_read_at, &j->fd, j->size, j->codestream, tile_count);
        else {
            memory_input m = {j->data, j->size};
            missing = missing_tile(memory_read_at, &m, j->size, j->codestream, tile_count);
        }
        if (missing >= 0) {
            char text[96];
            snprintf(text, sizeof text, "no data for tile %ld of %u", missing + 1, tile_count);
            pbs_text_set(&j->message, text);
            return PBS_TRUNCATED;
        }
    }
    int status = PBS_OK, first = 1;
    for (uint64_t y = Y0; y < Y1;) {
        uint64_t base = tiled && rows == tile_height && band_rows == 0 ? tile_top : 0;
        uint64_t next = rows == j->height ? Y1 : base + ((y - base) / rows + 1) * rows;
        // The first band must hold a row every component stores: an image whose top is not on
        // one (y0 odd, chroma every other row) starts with rows that have none of their own.
        if (y == Y0 && next <= (Y0 + align - 1) / align * align) next += rows;
        if (next > Y1) next = Y1;
        for (uint64_t x = X0; x < X1;) {
            uint64_t next_x = X1;
            if (narrow) {  // the same for columns
                next_x = (x / columns + 1) * columns;
                if (x == X0 && next_x <= (X0 + xalign - 1) / xalign * xalign) next_x += columns;
                if (next_x > X1) next_x = X1;
            }
            if (!first && !reuse) {
                status = open_codec(j);
                if (status != PBS_OK) return status;
                im = j->image;
                if (im->x0 != X0 || im->x1 != X1 || im->y0 != Y0 || im->y1 != Y1) {
                    pbs_text_set(&j->message, "the file changed while it was read");
                    return PBS_ERROR;
                }
            }
            first = 0;
            j->failed = 0;
            if (y > Y0 || next < Y1 || x > X0 || next_x < X1) {
                if (!opj_set_decode_area(j->codec, j->image, (OPJ_INT32)x, (OPJ_INT32)y, (OPJ_INT32)next_x, (OPJ_INT32)next)) {
                    if (!j->failed) pbs_text_set(&j->message, "cannot decode a band of the image");
                    return PBS_ERROR;
                }
            }
            int last = next == Y1 && next_x == X1;
            if (!opj_decode(j->codec, j->stream, j->image) || ((last || !reuse) && !opj_end_decompress(j->codec, j->stream)) || j->failed) {
                if (!j->failed) pbs_text_set(&j->message, "cannot decode the image");
                return j->position >= j->size ? PBS_TRUNCATED : PBS_ERROR;
            }
            status = convert_area(j, (uint32_t)x, (uint32_t)next_x, (uint32_t)y, (uint32_t)next, pixels, stride);
            if (status != PBS_OK) return status;
            x = next_x;
        }
        y = next;
    }
    return PBS_OK;
}

int pbs_jp2_decode_rgba(pbs_jp2 *j, uint8_t *pixels, size_t stride, uint32_t band_rows) {
    int status = decode_areas(j, pixels, stride, band_rows);
    // One decode per handle: OpenJPEG's state goes now rather than when the caller frees the
    // handle, and glibc is asked to give back what it held. OpenJPEG allocates and frees tens of
    // thousands of small blocks (code-blocks, segment lists, the wavelet's sparse arrays) that glibc
    // keeps in its heap after they are freed, so without this whatever comes after the decode
    // (`convert`'s PNG encoder) stacks its own memory on top of them: 15 MiB more at the peak of
    // converting the 4000 × 3000 lossy bench file.
    if (j->image) { opj_image_destroy(j->image); j->image = NULL; }
    if (j->stream) { opj_stream_destroy(j->stream); j->stream = NULL; }
    if (j->codec) { opj_destroy_codec(j->codec); j->codec = NULL; }
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
    return status;
}
