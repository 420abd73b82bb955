// The C side of the scan formats Codecs reads beyond PNG and JPEG: TIFF (libtiff), JPEG 2000
// (OpenJPEG) and PDF (Poppler's GLib API, cairo for rendering). See tiff.c, jp2.c, pdf.c.
//
// Unlike libpng and libjpeg these libraries report errors by return value, not longjmp, so no
// setjmp is needed; what the shim adds is (1) error and warning handlers that record the
// library's message in the handle instead of printing it, and (2) the pixel conversions to 8-bit
// straight RGBA, done in C because they run over every sample of a scan. Only standard C types
// appear here: Swift never sees a libtiff, OpenJPEG, GLib or cairo type.
#pragma once

#include <stddef.h>
#include <stdint.h>

/// Results. Anything but PBS_OK leaves a message in the handle (pbs_*_message).
enum {
    PBS_OK = 0,
    PBS_ERROR = 1,        ///< the library rejected the data
    PBS_TRUNCATED = 2,    ///< the data ended early
    PBS_TOO_BIG = 3,      ///< a library allocation was over the cap it was given
    PBS_UNSUPPORTED = 4,  ///< valid data this reader does not handle (a colour model, a layout)
};

// MARK: - TIFF

typedef struct pbs_tiff pbs_tiff;

/// The facts of one page (image file directory).
typedef struct pbs_tiff_page {
    uint32_t width, height;
    int bits_per_sample, samples_per_pixel;
    int photometric, compression, planar;
    int has_alpha;   ///< an extra sample is alpha
    int is_gray;     ///< min-is-black/white without alpha
    int orientation; ///< the Orientation tag, 1...8 (same numbering as EXIF)
} pbs_tiff_page;

/// A handle with nothing open, or NULL when out of memory. `max_alloc` caps every single libtiff
/// allocation (strip and tile buffers).
pbs_tiff *pbs_tiff_new(size_t max_alloc);
void pbs_tiff_free(pbs_tiff *t);
const char *pbs_tiff_message(const pbs_tiff *t);
/// Opens a TIFF held in memory; `data` must outlive the handle.
int pbs_tiff_open_memory(pbs_tiff *t, const uint8_t *data, size_t size);
/// Opens a TIFF file, read through the file (not mapped), so a multi-gigabyte multi-page file
/// costs only the page being decoded.
int pbs_tiff_open_file(pbs_tiff *t, const char *path);
/// Number of pages, at most `max_pages` (more is an error; IFD loops are errors too).
int pbs_tiff_page_count(pbs_tiff *t, int max_pages, int *count);
/// Makes page `index` (0-based) current and describes it.
int pbs_tiff_select(pbs_tiff *t, int index, pbs_tiff_page *out);
/// Decodes the current page as straight-alpha RGBA, top row first, as stored (the Orientation tag
/// is not applied). `pixels` holds width × height × 4 bytes, rows packed.
int pbs_tiff_read_rgba(pbs_tiff *t, uint8_t *pixels);

// MARK: - JPEG 2000

typedef struct pbs_jp2 pbs_jp2;

typedef struct pbs_jp2_info {
    uint32_t width, height;
    int components;
    int precision;  ///< bits of the first component
    int is_gray;    ///< one colour component
    int has_alpha;
    int is_codestream; ///< a raw J2K codestream rather than a JP2 file
} pbs_jp2_info;

/// What a codestream's SIZ marker declares, read from the bytes before OpenJPEG sees them: the
/// main header alone makes OpenJPEG allocate about 10 KB per tile and 1 KB per tile-component,
/// and decoding allocates every component, so both are judged here first.
typedef struct pbs_jp2_declared {
    uint32_t width, height;
    uint32_t tiles;        ///< tiles across × tiles down
    uint32_t components;
    uint64_t samples;      ///< stored samples over all components (after subsampling)
} pbs_jp2_declared;

/// Finds the codestream (a raw J2K, or the `jp2c` box of a JP2 file) and reads its SIZ marker.
/// Returns PBS_OK with `out` filled, or PBS_ERROR when no SIZ can be read (OpenJPEG then names
/// the problem).
int pbs_jp2_declared_size(const uint8_t *data, size_t size, pbs_jp2_declared *out);
/// The same, from the file open at `fd` (`size` bytes), read with pread: the box headers up to
/// the codestream, then its SIZ marker.
int pbs_jp2_declared_size_fd(int fd, size_t size, pbs_jp2_declared *out);

pbs_jp2 *pbs_jp2_new(void);
void pbs_jp2_free(pbs_jp2 *j);
const char *pbs_jp2_message(const pbs_jp2 *j);
/// Reads the main header of a JP2 file or J2K codestream (told apart by their signatures);
/// `data` must outlive the handle. No sample memory is allocated yet.
int pbs_jp2_read_header(pbs_jp2 *j, const uint8_t *data, size_t size, pbs_jp2_info *out);
/// The same from the file open at `fd`, `size` bytes long, read in pieces with pread as OpenJPEG
/// asks for them; `fd` must stay open as long as the handle.
int pbs_jp2_read_header_fd(pbs_jp2 *j, int fd, size_t size, pbs_jp2_info *out);
/// Decodes every tile and converts to 8-bit straight RGBA (gray replicated, subsampled
/// components upsampled, sYCC converted), rows `stride` bytes apart. A large image is decoded a
/// band of rows at a time, so OpenJPEG's 32-bit buffers never hold all of it: `band_rows` 0
/// chooses the bands (none for a small image, a tile row or a few MiB of samples for a large
/// one); another value forces bands of about that many rows (for tests). Call once per handle.
int pbs_jp2_decode_rgba(pbs_jp2 *j, uint8_t *pixels, size_t stride, uint32_t band_rows);

// MARK: - PDF

typedef struct pbs_pdf pbs_pdf;

/// What a page holds, from pbs_pdf_select.
typedef struct pbs_pdf_page {
    double width_pt, height_pt;  ///< the page's size in points (1/72 inch)
    int single_image;            ///< the page is one image covering it (a scan)
} pbs_pdf_page;

/// The largest image sizes a PDF's bytes declare (see pbs_pdf_declared_sizes).
typedef struct pbs_pdf_sizes {
    uint64_t max_width, max_height;
    uint64_t max_pixels;  ///< the largest /Width × /Height of one dictionary
} pbs_pdf_sizes;

/// Reads the raw bytes (a file a chunk at a time, or memory) for the /Width and /Height entries
/// of image dictionaries, before Poppler sees them. Poppler decodes an image before it says its
/// size, so a few-KB PDF declaring a 60000×60000 image would otherwise cost a minute of CPU; image
/// dictionaries are stream dictionaries, which PDF never compresses, so they can be read here.
/// (Indirect sizes and inline images in compressed content streams are not seen.)
int pbs_pdf_declared_sizes_file(const char *path, pbs_pdf_sizes *out);
void pbs_pdf_declared_sizes_memory(const uint8_t *data, size_t size, pbs_pdf_sizes *out);

pbs_pdf *pbs_pdf_new(void);
void pbs_pdf_free(pbs_pdf *p);
const char *pbs_pdf_message(const pbs_pdf *p);
int pbs_pdf_open_file(pbs_pdf *p, const char *path);
/// `data` must outlive the handle.
int pbs_pdf_open_memory(pbs_pdf *p, const uint8_t *data, size_t size);
int pbs_pdf_page_count(const pbs_pdf *p);
/// Loads page `index` (0-based) and looks at its images, without decoding any.
int pbs_pdf_select(pbs_pdf *p, int index, pbs_pdf_page *out);
/// Decodes the current page's single image at its own resolution and holds it; its size is
/// returned. Poppler allocates the image before this returns (it gives no way to ask the size
/// first); cairo caps it at 32767 pixels a side.
int pbs_pdf_take_image(pbs_pdf *p, uint32_t *width, uint32_t *height);
/// Renders the current page into a held `width`×`height` image over white (the caller chose the
/// size from the page's points and a resolution, and checked it against its limits).
int pbs_pdf_render(pbs_pdf *p, uint32_t width, uint32_t height);
/// Copies the held image out as straight RGBA (rows `stride` bytes apart) and releases it.
int pbs_pdf_copy_rgba(pbs_pdf *p, uint8_t *pixels, size_t stride);
