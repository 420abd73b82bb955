#include <zlib.h>

// deflateInit2 is a macro (it passes the header's version and struct size), which Swift cannot
// call; this is the same call as a function. Raw deflate (negative window bits): the PNG encoder
// writes the zlib header and checksum itself around streams deflated in parallel.
static inline int pb_deflate_init_raw(z_streamp stream, int level, int mem_level, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, -15, mem_level, strategy);
}

// inflateInit2 is a macro too. Window bits 15 + 32: accept a zlib or a gzip header (dictzip
// dictionaries are gzip files).
static inline int pb_inflate_init_auto(z_streamp stream) {
    return inflateInit2(stream, 15 + 32);
}
