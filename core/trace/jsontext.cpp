#include "core/trace/jsontext.h"

namespace reach::jsontext {

namespace {

constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

constexpr uint64_t kPow10Int[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

// The value of the eight digits in w (byte 0 the most significant, each already minus '0'): the
// SWAR combine of fast_float / simdjson.
inline uint64_t combineEight(uint64_t w) {
    w = (w * 10) + (w >> 8);
    return (((w & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
            (((w >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
           32;
}

// Appends the digits at p to m (wrapping on overflow: callers bound the digit count). Up to eight
// digits per step: the run's length comes from one word (the first byte that is not a digit),
// and the digits before it are shifted to the word's end so that leading zeros fill the rest.
// Timestamps (13 + 3 digits) take three steps instead of sixteen.
inline const char* readDigits(const char* p, const char* end, uint64_t& m) {
    while (p + 8 <= end) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        // High bit of each byte that is not '0'..'9' (exact up to the first such byte, all that
        // is used: the digits below it neither carry nor borrow).
        const uint64_t bad =
            ((w + 0x4646464646464646ULL) | (w - 0x3030303030303030ULL)) & 0x8080808080808080ULL;
        const int n = bad ? __builtin_ctzll(bad) / 8 : 8;
        if (n == 0)
            return p;
        const uint64_t d = (w - 0x3030303030303030ULL) << (8 * (8 - n));
        m = m * kPow10Int[n] + combineEight(d);
        p += n;
        if (n < 8)
            return p;
    }
    while (p < end && unsigned(*p - '0') < 10)
        m = m * 10 + unsigned(*p++ - '0');
    return p;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char* putUtf8(char* out, uint32_t cp) {
    if (cp < 0x80) {
        *out++ = char(cp);
    } else if (cp < 0x800) {
        *out++ = char(0xC0 | (cp >> 6));
        *out++ = char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *out++ = char(0xE0 | (cp >> 12));
        *out++ = char(0x80 | ((cp >> 6) & 0x3F));
        *out++ = char(0x80 | (cp & 0x3F));
    } else {
        *out++ = char(0xF0 | (cp >> 18));
        *out++ = char(0x80 | ((cp >> 12) & 0x3F));
        *out++ = char(0x80 | ((cp >> 6) & 0x3F));
        *out++ = char(0x80 | (cp & 0x3F));
    }
    return out;
}

}  // namespace

const char* parseSimpleNumber(const char* p, const char* end, double& value) {
    bool neg = p < end && *p == '-';
    p += neg;
    uint64_t m = 0;
    const char* d0 = p;
    p = readDigits(p, end, m);
    int digits = int(p - d0);
    int frac = 0;
    bool leadingZero = digits > 1 && *d0 == '0';
    if (p < end && *p == '.') {
        const char* f0 = ++p;
        p = readDigits(p, end, m);
        frac = int(p - f0);
        if (frac == 0)
            return nullptr;  // "1." is malformed: the general path reports it
    }
    if (p >= end || digits == 0 || leadingZero || digits + frac > 19 || m > (uint64_t(1) << 53))
        return nullptr;
    if (*p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-')
        return nullptr;
    double v = double(m) / kPow10[frac];
    value = neg ? -v : v;
    return p;
}

bool isValidNumber(std::string_view t) {
    size_t i = 0, n = t.size();
    auto digits = [&] {
        size_t s = i;
        while (i < n && unsigned(t[i] - '0') < 10)
            ++i;
        return i - s;
    };
    if (i < n && t[i] == '-')
        ++i;
    if (i < n && t[i] == '0') {
        ++i;
    } else if (digits() == 0) {
        return false;
    }
    if (i < n && t[i] == '.') {
        ++i;
        if (digits() == 0)
            return false;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        ++i;
        if (i < n && (t[i] == '+' || t[i] == '-'))
            ++i;
        if (digits() == 0)
            return false;
    }
    return i == n;
}

const char* validNumberEnd(const char* p, const char* end) {
    auto digits = [&] {
        const char* s = p;
        while (p < end && unsigned(*p - '0') < 10)
            ++p;
        return p - s;
    };
    if (p < end && *p == '-')
        ++p;
    if (p < end && *p == '0') {
        ++p;
    } else if (digits() == 0) {
        return nullptr;
    }
    if (p < end && *p == '.') {
        ++p;
        if (digits() == 0)
            return nullptr;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p < end && (*p == '+' || *p == '-'))
            ++p;
        if (digits() == 0)
            return nullptr;
    }
    // The scanner's token is the longest run of number characters: one more means malformed.
    if (p >= end || unsigned(*p - '0') < 10 || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' ||
        *p == '-')
        return nullptr;
    return p;
}

char* decodeEscapes(char* begin, char* end, EscapeError& error) {
    void* bs = std::memchr(begin, '\\', size_t(end - begin));
    if (!bs)
        return end;
    char* out = static_cast<char*>(bs);
    const char* in = out;
    const char* stop = end;
    auto hex4 = [&](const char* p) -> int {
        if (stop - p < 4)
            return -1;
        int v = 0;
        for (int k = 0; k < 4; ++k) {
            int h = hexValue(p[k]);
            if (h < 0)
                return -1;
            v = v * 16 + h;
        }
        return v;
    };
    while (in < stop) {
        if (*in != '\\') {
            *out++ = *in++;
            continue;
        }
        char e = in + 1 < stop ? in[1] : 0;
        in += 2;
        switch (e) {
            case '"':
                *out++ = '"';
                break;
            case '\\':
                *out++ = '\\';
                break;
            case '/':
                *out++ = '/';
                break;
            case 'b':
                *out++ = '\b';
                break;
            case 'f':
                *out++ = '\f';
                break;
            case 'n':
                *out++ = '\n';
                break;
            case 'r':
                *out++ = '\r';
                break;
            case 't':
                *out++ = '\t';
                break;
            case 'u': {
                int cp = hex4(in);
                if (cp < 0) {
                    error = {in, "expected 4 hex digits after \\u"};
                    return nullptr;
                }
                in += 4;
                uint32_t code = uint32_t(cp);
                if (code >= 0xD800 && code < 0xDC00 && stop - in >= 6 && in[0] == '\\' &&
                    in[1] == 'u') {
                    int lo = hex4(in + 2);
                    if (lo >= 0xDC00 && lo < 0xE000) {
                        code = 0x10000 + ((code - 0xD800) << 10) + (uint32_t(lo) - 0xDC00);
                        in += 6;
                    }
                }
                if (code >= 0xD800 && code < 0xE000)
                    code = 0xFFFD;  // a lone surrogate
                out = putUtf8(out, code);
                break;
            }
            default:
                error = {in - 2, "invalid escape in a string"};
                return nullptr;
        }
    }
    return out;
}

}  // namespace reach::jsontext
