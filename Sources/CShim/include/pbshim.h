// The C that Swift cannot do safely. See shim.c.
//
// libjpeg and libpng report fatal errors by longjmp-ing out of the library. A longjmp across
// Swift frames is undefined behaviour, so every library call that can fail happens inside one of
// the functions below, each of which holds its own setjmp. They return a PB_* status and leave the
// library's message in the context's `trap.message`; all decisions are made in Swift (Codecs).
// The contexts are plain structs so Swift can read header fields without more wrappers.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <png.h>

/// Results of the wrappers. Anything but PB_OK leaves a message in `trap.message`.
enum {
    PB_OK = 0,
    PB_ERROR = 1,      ///< the library gave up: corrupt data, unsupported feature, out of memory
    PB_TRUNCATED = 2,  ///< the input ended before the image did
    PB_TOO_BIG = 3,    ///< decoding would need more memory than the caller allowed
    PB_UNSUPPORTED = 4,///< valid data the library cannot decode (12-bit or lossless JPEG, ...)
};

/// Where a library error lands: the jump target and the message. Shared by all contexts.
typedef struct pb_trap {
    jmp_buf jump;
    int status;
    /// Non-zero: warnings (data the library would conceal) are fatal too.
    int strict;
    /// Warnings seen and tolerated (only when not strict).
    int warnings;
    char message[JMSG_LENGTH_MAX];
} pb_trap;

/// A growable output buffer filled by the encoders; release `data` with pb_free.
typedef struct pb_buffer {
    uint8_t *data;
    size_t size;
    size_t capacity;
} pb_buffer;

void pb_free(void *pointer);

// MARK: - JPEG decoding

/// libjpeg's source over a file descriptor, a 64 KiB buffer at a time (see shim.c).
typedef struct pb_jpeg_fd_source {
    struct jpeg_source_mgr pub;
    int fd;
    JOCTET *buffer;
} pb_jpeg_fd_source;

typedef struct pb_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    pb_jpeg_fd_source source;
    int created;
    pb_trap trap;
} pb_jpeg_decoder;

/// A new decoder, or NULL when out of memory. Heap-allocated because libjpeg keeps pointers into
/// it between calls. Release with pb_jpeg_decoder_free.
pb_jpeg_decoder *pb_jpeg_decoder_new(int strict);
void pb_jpeg_decoder_free(pb_jpeg_decoder *d);

/// Reads markers up to the first scan, keeping APP1 (Exif) segments in cinfo.marker_list.
/// `data` must stay alive until the decoder is destroyed.
int pb_jpeg_read_header(pb_jpeg_decoder *d, const uint8_t *data, size_t size);
/// pb_jpeg_read_header reading the open file `fd` from its start, 64 KiB at a time, so the
/// encoded file is never held whole. `fd` must stay open until the decoder is destroyed; at the
/// end of the file it behaves exactly as the memory source (a warning, then a fake EOI).
int pb_jpeg_read_header_fd(pb_jpeg_decoder *d, int fd);

/// Chooses the output colour space, the 1/`scale_denom` DCT scaling and the speed/quality trade,
/// then computes cinfo.output_width/height/components so the caller can check them and allocate.
/// `max_memory` caps libjpeg's own working memory (coefficient buffers of progressive files).
int pb_jpeg_prepare(pb_jpeg_decoder *d, J_COLOR_SPACE out_space, unsigned scale_denom, int fast,
                    size_t max_memory);

/// Decodes every scanline into `pixels` (rows `stride` bytes apart, at least
/// output_width * output_components bytes each), a batch of rows per library call.
int pb_jpeg_read_image(pb_jpeg_decoder *d, uint8_t *pixels, size_t stride);

// MARK: - JPEG encoding

typedef struct pb_jpeg_encode_params {
    uint32_t width, height;
    size_t stride;               ///< bytes between input rows
    J_COLOR_SPACE input_space;   ///< JCS_GRAYSCALE, JCS_EXT_RGBX or JCS_CMYK
    int input_components;
    J_COLOR_SPACE jpeg_space;    ///< JCS_YCbCr, JCS_GRAYSCALE, JCS_CMYK or JCS_YCCK
    int quality;                 ///< 1...100
    int progressive;
    int subsample;               ///< chroma factor of luma: 2 = 4:2:0, 1 = 4:4:4
    int optimize;                ///< optimal Huffman tables (a second pass)
} pb_jpeg_encode_params;

int pb_jpeg_encode(const pb_jpeg_encode_params *params, const uint8_t *pixels, pb_buffer *out,
                   pb_trap *trap);

/// A baseline JPEG of `band_height` rows whose quantized DCT coefficients are given, with every
/// other parameter (width, components, sampling, quantization tables, colour space) copied from
/// the header `src` has read: how a progressive JPEG too large to hold is decoded a band of rows
/// at a time (Codecs/ProgressiveBands.swift). `coefficients[c]` holds component c's blocks for
/// the band, rows of ceil(component width / 8) blocks of 64 values in natural order.
int pb_jpeg_band_encode(pb_jpeg_decoder *src, uint32_t band_height, const int16_t *const *coefficients,
                        pb_buffer *out, pb_trap *trap);

// MARK: - PNG decoding

typedef struct pb_png_decoder {
    png_structp png;
    png_infop info;
    /// The file in memory, or NULL when reading `fd` through `buffer`.
    const uint8_t *data;
    /// How much of the input libpng may read (see the chunk-length guard) and how much it has.
    size_t size, position;
    int fd;
    uint8_t *buffer;
    /// The file offset of buffer[0] and how many bytes from there the buffer holds.
    size_t buffer_offset, buffered;
    int passes;
    pb_trap trap;
} pb_png_decoder;

/// The IHDR fields plus what Swift needs to choose a decode path.
typedef struct pb_png_header {
    uint32_t width, height;
    int bit_depth, color_type, interlaced;
    int has_trns;
    int num_palette;
    uint8_t palette[256 * 3];
    /// eXIf chunk before IDAT, if any (points into libpng's copy; valid until destroy).
    const uint8_t *exif;
    uint32_t exif_length;
} pb_png_header;

/// What pb_png_start should make libpng produce.
enum {
    PB_PNG_RGBA = 0,   ///< 4 bytes per pixel, straight alpha (opaque when the file has none)
    PB_PNG_GRAY = 1,   ///< 1 byte per pixel, for gray files without transparency
    PB_PNG_INDEX = 2,  ///< 1 palette index per pixel, for palette files
};

/// A new decoder, or NULL when out of memory. Release with pb_png_decoder_free.
pb_png_decoder *pb_png_decoder_new(int strict);
void pb_png_decoder_free(pb_png_decoder *d);
/// Reads the chunks before the image data. `data` must outlive the decoder.
int pb_png_read_header(pb_png_decoder *d, const uint8_t *data, size_t size, pb_png_header *out);
/// pb_png_read_header reading the open regular file `fd` of `size` bytes (from fstat) through a
/// 64 KiB buffer. `fd` must stay open until the decoder is destroyed.
int pb_png_read_header_fd(pb_png_decoder *d, int fd, size_t size, pb_png_header *out);
/// Sets the transformations for `mode`; fails unless a row then has exactly
/// width * `expected_channels` bytes.
int pb_png_start(pb_png_decoder *d, int mode, int expected_channels);
/// Reads `count` consecutive rows of a non-interlaced image.
int pb_png_read_rows(pb_png_decoder *d, uint8_t *rows, size_t stride, uint32_t count);
/// Reads the whole image, all interlace passes, into `pixels`.
int pb_png_read_image(pb_png_decoder *d, uint8_t *pixels, size_t stride);
/// Reads the chunks after the image data, through IEND (so damage there is noticed too).
int pb_png_finish(pb_png_decoder *d);

// MARK: - PNG encoding

typedef struct pb_png_encode_params {
    uint32_t width, height;
    size_t stride;           ///< bytes between input rows
    int color_type;          ///< PNG_COLOR_TYPE_*
    int bit_depth;           ///< samples are packed (<8) or big-endian (16), as stored in PNG
    int strip_filler;        ///< input has a 4th byte per pixel to drop (RGBA in, RGB out)
    int interlaced;          ///< write Adam7
    int level;               ///< zlib level 0...9
    int filters;             ///< PNG_FILTER_* mask
    const uint8_t *palette;  ///< num_palette RGB triples
    int num_palette;
    const uint8_t *trans;    ///< palette alpha values, num_trans of them
    int num_trans;
    int has_trans_color;     ///< gray or RGB single transparent colour
    uint16_t trans_gray, trans_red, trans_green, trans_blue;
    const uint8_t *exif;     ///< eXIf payload, or NULL
    uint32_t exif_length;
} pb_png_encode_params;

int pb_png_encode(const pb_png_encode_params *params, const uint8_t *pixels, pb_buffer *out,
                  pb_trap *trap);
