#include "core/base/sha256.h"

#include <fstream>
#include <vector>

#include "core/base/inputerror.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define REACH_SHA_X86 1
#endif

namespace reach {

namespace {

constexpr uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, int n) {
    return (x >> n) | (x << (32 - n));
}

void compressPortable(uint32_t* s, const uint8_t* p, size_t count) {
    for (; count > 0; --count, p += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; ++i) {
            w[i] = (uint32_t(p[4 * i]) << 24) | (uint32_t(p[4 * i + 1]) << 16) |
                   (uint32_t(p[4 * i + 2]) << 8) | uint32_t(p[4 * i + 3]);
        }
        for (int i = 16; i < 64; ++i) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
        for (int i = 0; i < 64; ++i) {
            uint32_t t1 =
                h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        s[0] += a;
        s[1] += b;
        s[2] += c;
        s[3] += d;
        s[4] += e;
        s[5] += f;
        s[6] += g;
        s[7] += h;
    }
}

#ifdef REACH_SHA_X86
bool cpuHasShaNi() {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return false;
    bool sha = (b >> 29) & 1;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return false;
    bool sse41 = (c >> 19) & 1;
    bool ssse3 = (c >> 9) & 1;
    return sha && sse41 && ssse3;
}

// The standard SHA-NI schedule (Intel's white paper "New Instructions Supporting the Secure Hash
// Algorithm on Intel Architecture Processors"): 4 rounds per sha256rnds2 pair.
__attribute__((target("sha,sse4.1,ssse3"))) void compressShaNi(uint32_t* s, const uint8_t* p,
                                                               size_t count) {
    const __m128i shufMask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i tmp = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&s[0]));
    __m128i state1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&s[4]));
    tmp = _mm_shuffle_epi32(tmp, 0xB1);                // CDAB
    state1 = _mm_shuffle_epi32(state1, 0x1B);          // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);  // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0);       // CDGH

    for (; count > 0; --count, p += 64) {
        __m128i abefSave = state0;
        __m128i cdghSave = state1;
        __m128i msg[4];
        for (int i = 0; i < 4; ++i) {
            msg[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)),
                                      shufMask);
        }
        for (int r = 0; r < 16; ++r) {
            __m128i& m = msg[r & 3];
            if (r >= 4) {
                // msg[r] = sha256msg2(sha256msg1(m[r-4], m[r-3]) + alignr(m[r-1], m[r-2]), m[r-1])
                __m128i t = _mm_alignr_epi8(msg[(r - 1) & 3], msg[(r - 2) & 3], 4);
                __m128i m1 = _mm_sha256msg1_epu32(m, msg[(r - 3) & 3]);
                m = _mm_sha256msg2_epu32(_mm_add_epi32(m1, t), msg[(r - 1) & 3]);
            }
            __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&kK[4 * r]));
            __m128i wk = _mm_add_epi32(m, k);
            state1 = _mm_sha256rnds2_epu32(state1, state0, wk);
            wk = _mm_shuffle_epi32(wk, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, wk);
        }
        state0 = _mm_add_epi32(state0, abefSave);
        state1 = _mm_add_epi32(state1, cdghSave);
    }

    tmp = _mm_shuffle_epi32(state0, 0x1B);        // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1);     // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0);  // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8);     // HGFE
    _mm_storeu_si128(reinterpret_cast<__m128i*>(&s[0]), state0);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(&s[4]), state1);
}
#endif

using CompressFn = void (*)(uint32_t*, const uint8_t*, size_t);

CompressFn pickCompress() {
#ifdef REACH_SHA_X86
    if (cpuHasShaNi())
        return compressShaNi;
#endif
    return compressPortable;
}

const CompressFn kCompress = pickCompress();
thread_local bool tForcePortable = false;

}  // namespace

Sha256::Sha256()
    : m_state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::compress(const uint8_t* blocks, size_t count) {
    (tForcePortable ? compressPortable : kCompress)(m_state.data(), blocks, count);
}

void Sha256::update(const void* data, size_t size) {
    const uint8_t* p = static_cast<const uint8_t*>(data);
    m_totalLen += size;
    if (m_blockLen > 0) {
        size_t take = std::min(size, 64 - m_blockLen);
        std::memcpy(m_block.data() + m_blockLen, p, take);
        m_blockLen += take;
        p += take;
        size -= take;
        if (m_blockLen < 64)
            return;
        compress(m_block.data(), 1);
        m_blockLen = 0;
    }
    if (size >= 64) {
        compress(p, size / 64);
        p += size / 64 * 64;
        size %= 64;
    }
    if (size > 0) {
        std::memcpy(m_block.data(), p, size);
        m_blockLen = size;
    }
}

std::array<uint8_t, 32> Sha256::digest() {
    uint64_t bits = m_totalLen * 8;
    uint8_t pad[72] = {0x80};
    size_t padLen = (m_blockLen < 56 ? 56 - m_blockLen : 120 - m_blockLen);
    for (int i = 0; i < 8; ++i)
        pad[padLen + i] = uint8_t(bits >> (56 - 8 * i));
    update(pad, padLen + 8);
    std::array<uint8_t, 32> out{};
    for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 4; ++j)
            out[4 * i + j] = uint8_t(m_state[i] >> (24 - 8 * j));
    }
    return out;
}

std::string Sha256::hexDigest() {
    static const char* kHex = "0123456789abcdef";
    std::string s;
    for (uint8_t b : digest()) {
        s += kHex[b >> 4];
        s += kHex[b & 15];
    }
    return s;
}

std::string Sha256::hex(std::string_view data) {
    Sha256 h;
    h.update(data);
    return h.hexDigest();
}

std::string Sha256::hexPortable(std::string_view data) {
    tForcePortable = true;
    std::string out = hex(data);
    tForcePortable = false;
    return out;
}

bool Sha256::usesShaExtensions() {
    return kCompress != compressPortable;
}

bool Sha256::isHexDigest(std::string_view s) {
    if (s.size() != 64)
        return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    return true;
}

std::string Sha256::hexOfFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "file", "a readable file");
    Sha256 h;
    std::vector<char> buf(1 << 16);
    while (in) {
        in.read(buf.data(), std::streamsize(buf.size()));
        h.update(buf.data(), size_t(in.gcount()));
    }
    if (in.bad())
        throw InputError(path, "file", "a readable file (read error)");
    return h.hexDigest();
}

}  // namespace reach
