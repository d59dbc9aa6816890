#include "core/trace/arraysplit.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace reach {

namespace {

void merge(ElementBoundaries::Result& into, const ElementBoundaries::Result& r) {
    if (r.lastElementEnd)
        into.lastElementEnd = r.lastElementEnd;
    into.close = r.close;
}

#if defined(__SSE2__)
// Bit i = xor of bits 0..i: with the quotes as input, the bytes from an opening quote up to (not
// including) its closing one.
uint64_t prefixXor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}
#endif

}  // namespace

#if defined(__SSE2__)
struct ElementBoundaries::Masks {
    uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

// Bit i of each mask is byte i of the block. '{' and '[' differ from each other only in bit 0x20,
// as do '}' and ']', so one compare of (c | 0x20) finds both of a pair.
ElementBoundaries::Masks ElementBoundaries::masksOf(const char* p) {
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
    const __m128i lower = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'),
                  close = _mm_set1_epi8('}');
    Masks m;
    for (int lane = 0; lane < 4; ++lane) {
        const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * lane));
        const __m128i wl = _mm_or_si128(w, lower);
        const int shift = 16 * lane;
        m.quote |= uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(w, quote)))) << shift;
        m.backslash |= uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(w, slash)))) << shift;
        m.open |= uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(wl, open)))) << shift;
        m.close |= uint64_t(unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(wl, close)))) << shift;
    }
    return m;
}
#endif

ElementBoundaries::Result ElementBoundaries::scanBytes(const char* p, const char* end) {
    Result r;
    for (; p < end; ++p) {
        const char c = *p;
        if (m_inString) {
            if (m_escaped)
                m_escaped = false;
            else if (c == '\\')
                m_escaped = true;
            else if (c == '"')
                m_inString = false;
            continue;
        }
        switch (c) {
            case '"':
                m_inString = true;
                break;
            case '{':
            case '[':
                ++m_depth;
                break;
            case '}':
            case ']':
                if (m_depth == 0) {
                    r.close = p;
                    return r;
                }
                if (--m_depth == 0)
                    r.lastElementEnd = p + 1;
                break;
            default:
                break;
        }
    }
    return r;
}

#if defined(__SSE2__)
void ElementBoundaries::scanBlock(const char* p, const Masks& m, Result& r) {
    const uint64_t inString = prefixXor(m.quote) ^ (m_inString ? ~uint64_t(0) : 0);
    m_inString = (inString >> 63) != 0;
    // A bracket is never a quote, so its bit of inString says whether it lies inside a string.
    const uint64_t open = m.open & ~inString, close = m.close & ~inString;
    // Bit by bit (a block holds a few brackets): x86-64's baseline has no popcnt instruction.
    for (uint64_t s = open | close; s; s &= s - 1) {
        const int i = __builtin_ctzll(s);
        if (open & (uint64_t(1) << i)) {
            ++m_depth;
        } else if (m_depth == 0) {
            r.close = p + i;
            return;
        } else if (--m_depth == 0) {
            r.lastElementEnd = p + i + 1;
        }
    }
}
#endif

ElementBoundaries::Result ElementBoundaries::scan(const char* p, const char* end) {
    Result r;
#if defined(__SSE2__)
    while (end - p >= 64) {
        // A backslash (an escape: rare in traces) or an escape pending from the last block takes
        // the byte-at-a-time rule for this block.
        const Masks m = masksOf(p);
        if (m.backslash == 0 && !m_escaped)
            scanBlock(p, m, r);
        else
            merge(r, scanBytes(p, p + 64));
        if (r.close)
            return r;
        p += 64;
    }
#endif
    merge(r, scanBytes(p, end));
    return r;
}

}  // namespace reach
