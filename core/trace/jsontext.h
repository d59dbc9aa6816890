#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The lexical pieces of JSON that JsonScanner needs, kept apart from its buffer management:
// number grammar and fast conversion, string escapes.
namespace reach::jsontext {

// Parses a plain decimal ("123", "-12.345") at p when one division gives the correctly rounded
// double (Clinger's fast path: at most 19 digits, mantissa <= 2^53, no exponent), and the byte
// after it is inside [p, end) and ends the number. Returns the end of the number, or nullptr
// when the general path (grammar check + std::from_chars) must decide.
const char* parseSimpleNumber(const char* p, const char* end, double& value);

// JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?  (std::from_chars is
// laxer: it takes "1." and "01").
bool isValidNumber(std::string_view token);

// The end of the JSON number at p when it is valid and the byte after it lies inside [p, end)
// and ends it; nullptr otherwise (a malformed number, or one the window may not hold whole: the
// general path decides and names the error). One pass: skipping a number costs no second scan.
const char* validNumberEnd(const char* p, const char* end);

struct EscapeError {
    const char* at = nullptr;
    const char* what = "";
};

// Decodes the escapes of a string body [begin, end) in place (the result is never longer).
// Returns the new end, or nullptr with `error` set for an invalid escape.
char* decodeEscapes(char* begin, char* end, EscapeError& error);

// First '"' or '\\' in [p, end), looking about 64 bytes ahead (16 at a time with SSE2, part of
// every x86-64, else 8 at a time in a word); returns where it stopped: a hit, or the first byte it
// did not look at.
inline const char* findQuoteOrEscape(const char* p, const char* end) {
    const char* limit = p + 64;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
    while (p + 16 <= end && p < limit) {
        const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const int hit =
            _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(w, quote), _mm_cmpeq_epi8(w, slash)));
        if (hit)
            return p + __builtin_ctz(unsigned(hit));
        p += 16;
    }
#endif
    constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    while (p + 8 <= end && p < limit) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        uint64_t q = w ^ (kOnes * '"');
        uint64_t s = w ^ (kOnes * '\\');
        uint64_t hit = ((q - kOnes) & ~q & kHigh) | ((s - kOnes) & ~s & kHigh);
        if (hit)
            return p + __builtin_ctzll(hit) / 8;
        p += 8;
    }
    return p;
}

}  // namespace reach::jsontext
