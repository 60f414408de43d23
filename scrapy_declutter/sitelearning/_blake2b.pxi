# BLAKE2b (RFC 7693) with an 8-byte digest and no key, in C: ``hashlib.blake2b(data,
# digest_size=8).digest()`` for ``_fingerprint``.
#
# A fingerprint is the blake2b of a block's normalised text; site models in the stores
# hold them, so the hash cannot change. Asked through ``hashlib`` it cost a fingerprint a
# bytes object, a hash object, its ``digest()`` call and the digest's bytes (some 3,400
# instructions of 8,000 a block, about 1 M a crawled page); here it is one compression per
# 128 bytes, on the stack. The compression is the RFC's, written as C (macros with
# constant indices, so the compiler keeps the state in registers: in Cython's loops it
# took 40% more instructions than ``hashlib``'s). ``tests/test_fingerprint_compiled.py``
# compares the digests with ``hashlib``'s on texts of every length around the block
# boundaries.

from libc.stdint cimport uint8_t, uint64_t

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>

    static const uint64_t sd_blake2b_iv[8] = {
        0x6A09E667F3BCC908ULL, 0xBB67AE8584CAA73BULL, 0x3C6EF372FE94F82BULL,
        0xA54FF53A5F1D36F1ULL, 0x510E527FADE682D1ULL, 0x9B05688C2B3E6C1FULL,
        0x1F83D9ABFB41BD6BULL, 0x5BE0CD19137E2179ULL};

    static const uint8_t sd_blake2b_sigma[12][16] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
        {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
        {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
        {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
        {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
        {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
        {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
        {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
        {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
        {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

    #define SD_ROTR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))
    #define SD_G(r, i, a, b, c, d) do { \
        a = a + b + m[sd_blake2b_sigma[r][2 * i]]; d = SD_ROTR64(d ^ a, 32); \
        c = c + d; b = SD_ROTR64(b ^ c, 24); \
        a = a + b + m[sd_blake2b_sigma[r][2 * i + 1]]; d = SD_ROTR64(d ^ a, 16); \
        c = c + d; b = SD_ROTR64(b ^ c, 63); } while (0)
    #define SD_ROUND(r) do { \
        SD_G(r, 0, v[0], v[4], v[8], v[12]); SD_G(r, 1, v[1], v[5], v[9], v[13]); \
        SD_G(r, 2, v[2], v[6], v[10], v[14]); SD_G(r, 3, v[3], v[7], v[11], v[15]); \
        SD_G(r, 4, v[0], v[5], v[10], v[15]); SD_G(r, 5, v[1], v[6], v[11], v[12]); \
        SD_G(r, 6, v[2], v[7], v[8], v[13]); SD_G(r, 7, v[3], v[4], v[9], v[14]); } while (0)

    /* One compression of a 128-byte block into the state h; t: bytes hashed so far
       (texts are far below 2**64 bytes: the counter's high word stays 0). */
    static void sd_blake2b_compress(uint64_t h[8], const uint8_t *block, uint64_t t, int last) {
        uint64_t m[16], v[16];
        int i;
        for (i = 0; i < 16; i++) {  /* little-endian words, whatever the machine's order */
            const uint8_t *b = block + 8 * i;  /* compilers make this one load where they can */
            m[i] = (uint64_t)b[0] | ((uint64_t)b[1] << 8) | ((uint64_t)b[2] << 16)
                | ((uint64_t)b[3] << 24) | ((uint64_t)b[4] << 32) | ((uint64_t)b[5] << 40)
                | ((uint64_t)b[6] << 48) | ((uint64_t)b[7] << 56);
        }
        for (i = 0; i < 8; i++) { v[i] = h[i]; v[i + 8] = sd_blake2b_iv[i]; }
        v[12] ^= t;
        if (last) v[14] = ~v[14];
        SD_ROUND(0); SD_ROUND(1); SD_ROUND(2); SD_ROUND(3); SD_ROUND(4); SD_ROUND(5);
        SD_ROUND(6); SD_ROUND(7); SD_ROUND(8); SD_ROUND(9); SD_ROUND(10); SD_ROUND(11);
        for (i = 0; i < 8; i++) h[i] ^= v[i] ^ v[i + 8];
    }

    /* The 8-byte digest of data (n bytes) as a little-endian integer, as
       int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little"). */
    static uint64_t sd_blake2b_64(const uint8_t *data, Py_ssize_t n) {
        uint64_t h[8];
        uint8_t block[128];
        Py_ssize_t done = 0;
        int i;
        for (i = 0; i < 8; i++) h[i] = sd_blake2b_iv[i];
        h[0] ^= 0x01010008ULL;  /* parameter block: digest length 8, no key, fan-out and depth 1 */
        while (n - done > 128) {  /* every full block but the last as it comes */
            sd_blake2b_compress(h, data + done, (uint64_t)(done + 128), 0);
            done += 128;
        }
        memset(block, 0, 128);
        if (n > done) memcpy(block, data + done, (size_t)(n - done));
        sd_blake2b_compress(h, block, (uint64_t)n, 1);
        return h[0];  /* the digest's first 8 bytes, little-endian: h[0] itself */
    }
    """
    uint64_t blake2b_64 "sd_blake2b_64" (const uint8_t *data, Py_ssize_t n) noexcept nogil
