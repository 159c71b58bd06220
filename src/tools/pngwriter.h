/* A PNG encoder for 8-bit RGB rasters with no library: the image data is a
 * zlib stream of "stored" (uncompressed) deflate blocks, so the file is
 * about 3 bytes per pixel. The checksums (CRC-32 of every chunk, Adler-32
 * of the zlib stream) are computed here. PNG: ISO/IEC 15948; zlib: RFC
 * 1950; deflate's stored blocks: RFC 1951 section 3.2.4. */
#ifndef OSTIO_TOOLS_PNGWRITER_H
#define OSTIO_TOOLS_PNGWRITER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CRC-32 as PNG and zlib use it (polynomial 0xEDB88320, reflected): crc is
 * 0 for the first piece, the previous result for the next. */
uint32_t png_crc32(uint32_t crc, const void *data, size_t n);
/* Adler-32 (RFC 1950): a is 1 for the first piece. */
uint32_t png_adler32(uint32_t a, const void *data, size_t n);

/* Writes rgb (w x h x 3 bytes, rows top to bottom) as a PNG (colour type 2,
 * 8 bits): 0, or -1 when w or h is outside 1 - 16384, memory runs out or
 * f cannot be written. */
int png_write_rgb(FILE *f, const uint8_t *rgb, int w, int h);

#endif
