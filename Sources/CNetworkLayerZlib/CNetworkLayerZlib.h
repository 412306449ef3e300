// zlib for WebSocket compression (permessage-deflate). deflateInit2 and inflateInit2 are macros
// (they pass the header's version and the stream's size), which Swift cannot call: these inline
// functions can.
#ifndef NETWORKLAYER_ZLIB_H
#define NETWORKLAYER_ZLIB_H

#include <zlib.h>

/// Raw DEFLATE (no zlib header), `window_bits` 9…15, memory level 8.
static inline int nl_deflate_init_raw(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, -window_bits, 8, Z_DEFAULT_STRATEGY);
}

/// Raw DEFLATE (no zlib header), `window_bits` 8…15.
static inline int nl_inflate_init_raw(z_stream *stream, int window_bits) {
    return inflateInit2(stream, -window_bits);
}

#endif
