#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

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

struct EscapeError {
    const char* at = nullptr;
    const char* what = "";
};

// Decodes the escapes of a string body [begin, end) in place (the result is never longer).
// Returns the new end, or nullptr with `error` set for an invalid escape.
char* decodeEscapes(char* begin, char* end, EscapeError& error);

// First '"' or '\\' in [p, end), looking about 64 bytes ahead eight at a time; returns where it
// stopped: a hit, or the first byte it did not look at.
inline const char* findQuoteOrEscape(const char* p, const char* end) {
    constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    const char* limit = p + 64;
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
