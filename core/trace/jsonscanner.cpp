#include "core/trace/jsonscanner.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "core/base/inputerror.h"
#include "core/trace/bytesource.h"
#include "core/trace/jsontext.h"

namespace reach {

namespace {

struct Tables {
    bool ws[256] = {};
    bool numberChar[256] = {};
    bool structural[256] = {};  // what a container skip must look at
    Tables() {
        for (unsigned char c : std::string_view(" \t\n\r"))
            ws[c] = true;
        for (unsigned char c : std::string_view("0123456789+-.eE"))
            numberChar[c] = true;
        for (unsigned char c : std::string_view("\"{}[]"))
            structural[c] = true;
    }
};
const Tables kT;

}  // namespace

JsonScanner::JsonScanner(ByteSource& source) : m_source(source), m_file(source.path()) {
    m_cap = ByteSource::kChunkSize * 2;
    m_buf = std::make_unique<char[]>(m_cap);
    m_first.reserve(16);
}

JsonScanner::~JsonScanner() = default;

const char* JsonScanner::kindName(Kind k) {
    switch (k) {
        case Kind::Object:
            return "an object";
        case Kind::Array:
            return "a list";
        case Kind::String:
            return "a string";
        case Kind::Number:
            return "a number";
        case Kind::True:
        case Kind::False:
            return "a boolean";
        case Kind::Null:
            return "null";
    }
    return "a value";
}

void JsonScanner::fail(const std::string& expected) const {
    failAt(offset(), {}, expected);
}

void JsonScanner::failAt(uint64_t off, std::string_view key, const std::string& expected) const {
    std::string place = "byte " + std::to_string(off);
    if (!key.empty())
        place += ", key \"" + std::string(key.substr(0, 80)) + "\"";
    throw InputError(m_file, place, expected);
}

bool JsonScanner::refill() {
    if (m_eof)
        return false;
    size_t keep = std::min({m_pos, m_pin, m_keep});
    if (keep > 0) {
        std::memmove(m_buf.get(), m_buf.get() + keep, m_end - keep);
        m_end -= keep;
        m_pos -= keep;
        if (m_pin != SIZE_MAX)
            m_pin -= keep;
        if (m_keep != SIZE_MAX)
            m_keep -= keep;
        m_base += keep;
    }
    std::string_view chunk = m_source.next();
    if (chunk.empty()) {
        m_eof = true;
        return false;
    }
    if (m_end + chunk.size() > m_cap) {
        // Only a pinned event or a token larger than a chunk gets here.
        size_t cap = std::max(m_cap * 2, m_end + chunk.size());
        auto buf = std::make_unique<char[]>(cap);
        std::memcpy(buf.get(), m_buf.get(), m_end);
        m_buf = std::move(buf);
        m_cap = cap;
    }
    std::memcpy(m_buf.get() + m_end, chunk.data(), chunk.size());
    m_end += chunk.size();
    return true;
}

void JsonScanner::skipWhitespace() {
    for (;;) {
        const char* b = m_buf.get();
        while (m_pos < m_end && kT.ws[static_cast<unsigned char>(b[m_pos])])
            ++m_pos;
        if (m_pos < m_end || !refill())
            return;
    }
}

char JsonScanner::currentSlow() {
    skipWhitespace();
    if (m_pos >= m_end)
        fail("expected a JSON value, but the input ends here (truncated?)");
    return m_buf[m_pos];
}

void JsonScanner::expectChar(char c, const char* what) {
    if (current() != c)
        fail(std::string("expected ") + what);
    ++m_pos;
}

void JsonScanner::failValue(char c) const {
    bool printable = static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
    fail(std::string("expected a JSON value, found ") +
         (printable ? "'" + std::string(1, c) + "'"
                    : "byte 0x" + std::to_string(static_cast<unsigned char>(c))));
}

void JsonScanner::beginObject() {
    expectChar('{', "'{' (an object)");
    m_first.push_back(1);
}

void JsonScanner::beginArray() {
    expectChar('[', "'[' (a list)");
    m_first.push_back(1);
}

bool JsonScanner::nextKey(std::string_view& key) {
    // Fast path: `, "key": ` lies wholly inside the window and the key has no escape. Nothing is
    // changed unless it succeeds; every other case takes the general path below.
    if (m_end - m_pos >= 128) {
        const char* b = m_buf.get();
        const char* end = b + m_end;
        const char* p = b + m_pos;
        while (p < end && kT.ws[static_cast<unsigned char>(*p)])
            ++p;
        bool ok = p < end && *p != '}';
        if (ok && !m_first.back()) {
            ok = *p == ',';
            ++p;
            while (p < end && kT.ws[static_cast<unsigned char>(*p)])
                ++p;
        }
        if (ok && p < end && *p == '"') {
            const char* k = ++p;
            p = jsontext::findQuoteOrEscape(p, end);
            if (p < end && *p == '"') {
                const char* q = p + 1;
                while (q < end && kT.ws[static_cast<unsigned char>(*q)])
                    ++q;
                if (q < end && *q == ':') {
                    key = std::string_view(k, size_t(p - k));
                    m_pos = size_t(q + 1 - b);
                    m_first.back() = 0;
                    return true;
                }
            }
        }
    }
    char c = current();
    if (c == '}') {
        ++m_pos;
        m_first.pop_back();
        return false;
    }
    if (!m_first.back()) {
        if (c != ',')
            fail("expected ',' or '}' after an object member");
        ++m_pos;
        c = current();
    }
    m_first.back() = 0;
    if (c != '"')
        fail("expected a member name (a string) in an object");
    size_t close = scanString();
    size_t len = decodeInPlace(m_keep, close).size();
    m_pos = close + 1;
    // m_keep still holds the key: finding the ':' may refill and move the window.
    expectChar(':', "':' after a member name");
    key = std::string_view(m_buf.get() + m_keep, len);
    m_keep = SIZE_MAX;
    return true;
}

bool JsonScanner::nextElement() {
    char c = current();
    if (c == ']') {
        ++m_pos;
        m_first.pop_back();
        return false;
    }
    if (!m_first.back()) {
        if (c != ',')
            fail("expected ',' or ']' after a list element");
        ++m_pos;
    }
    m_first.back() = 0;
    return true;
}

// Leaves m_keep at the index of the first character inside the quotes (the caller clears it).
size_t JsonScanner::scanString() {
    ++m_pos;  // opening quote
    m_keep = m_pos;
    // Fast path: most strings are short keys and values without escapes; look for '"' or '\\'
    // eight bytes at a time.
    {
        const char* b = m_buf.get();
        size_t i = m_pos;
        constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
        while (i + 8 <= m_end && i - m_pos < 64) {
            uint64_t w;
            std::memcpy(&w, b + i, 8);
            uint64_t q = w ^ (kOnes * '"');
            uint64_t s = w ^ (kOnes * '\\');
            uint64_t hit = ((q - kOnes) & ~q & kHigh) | ((s - kOnes) & ~s & kHigh);
            if (hit) {
                size_t at = i + size_t(__builtin_ctzll(hit) / 8);
                if (b[at] == '"')
                    return at;
                break;  // an escape: the general path below handles it
            }
            i += 8;
        }
    }
    size_t from = m_pos;
    for (;;) {
        const char* b = m_buf.get();
        const void* q = from < m_end ? std::memchr(b + from, '"', m_end - from) : nullptr;
        if (q) {
            size_t i = static_cast<const char*>(q) - b;
            size_t slashes = 0;
            while (i - slashes > m_keep && b[i - slashes - 1] == '\\')
                ++slashes;
            if (slashes % 2 == 0)
                return i;
            from = i + 1;
            continue;
        }
        size_t scanned = m_end - m_keep;
        if (!refill()) {
            m_pos = m_end;
            fail("a string is not terminated: the input ends (truncated?)");
        }
        from = m_keep + scanned;
    }
}

std::string_view JsonScanner::decodeInPlace(size_t begin, size_t end) {
    char* b = m_buf.get();
    jsontext::EscapeError error;
    char* out = jsontext::decodeEscapes(b + begin, b + end, error);
    if (!out)
        failAt(m_base + uint64_t(error.at - b), {}, error.what);
    return {b + begin, size_t(out - (b + begin))};
}

std::string_view JsonScanner::string() {
    if (m_end - m_pos >= 128) {
        const char* b = m_buf.get();
        const char* end = b + m_end;
        const char* p = b + m_pos;
        while (p < end && kT.ws[static_cast<unsigned char>(*p)])
            ++p;
        if (p < end && *p == '"') {
            const char* v = ++p;
            p = jsontext::findQuoteOrEscape(p, end);
            if (p < end && *p == '"') {
                m_pos = size_t(p + 1 - b);
                return std::string_view(v, size_t(p - v));
            }
        }
    }
    if (current() != '"')
        fail(std::string("expected a string, found ") + kindName(peek()));
    size_t close = scanString();
    size_t begin = m_keep;
    m_keep = SIZE_MAX;
    m_pos = close + 1;
    return decodeInPlace(begin, close);
}

std::string_view JsonScanner::scanNumber() {
    m_keep = m_pos;
    size_t i = m_pos;
    for (;;) {
        const char* b = m_buf.get();
        while (i < m_end && kT.numberChar[static_cast<unsigned char>(b[i])])
            ++i;
        if (i < m_end)
            break;
        size_t scanned = i - m_keep;
        if (!refill()) {
            i = m_end;
            break;
        }
        i = m_keep + scanned;
    }
    size_t begin = m_keep;
    m_keep = SIZE_MAX;
    m_pos = i;
    return {m_buf.get() + begin, i - begin};
}

double JsonScanner::number() {
    Kind k = peek();
    if (k != Kind::Number)
        fail(std::string("expected a number, found ") + kindName(k));
    // Fused scan + convert for the common forms when the window surely holds the whole token.
    if (m_end - m_pos > 40) {
        double v;
        const char* b = m_buf.get();
        if (const char* e = jsontext::parseSimpleNumber(b + m_pos, b + m_end, v)) {
            m_pos = size_t(e - b);
            return v;
        }
    }
    uint64_t at = offset();
    std::string_view t = scanNumber();
    double v = 0;
    if (!jsontext::isValidNumber(t))
        failAt(at, {}, "malformed number '" + std::string(t.substr(0, 40)) + "'");
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range)
        return v;
    if (ec != std::errc() || ptr != t.data() + t.size()) {
        failAt(at, {}, "malformed number '" + std::string(t.substr(0, 40)) + "'");
    }
    return v;
}

void JsonScanner::expectLiteral(std::string_view lit) {
    while (m_end - m_pos < lit.size()) {
        m_keep = m_pos;
        bool more = refill();
        m_keep = SIZE_MAX;
        if (!more)
            break;
    }
    if (m_end - m_pos < lit.size() || std::memcmp(m_buf.get() + m_pos, lit.data(), lit.size())) {
        fail("expected '" + std::string(lit) + "'");
    }
    m_pos += lit.size();
}

bool JsonScanner::boolean() {
    Kind k = peek();
    if (k == Kind::True) {
        expectLiteral("true");
        return true;
    }
    if (k == Kind::False) {
        expectLiteral("false");
        return false;
    }
    fail(std::string("expected a boolean, found ") + kindName(k));
}

void JsonScanner::skipValue() {
    switch (peek()) {
        case Kind::Object:
        case Kind::Array:
            skipContainer();
            return;
        case Kind::String: {
            size_t close = scanString();
            m_keep = SIZE_MAX;
            m_pos = close + 1;
            return;
        }
        case Kind::Number:
            scanNumber();
            return;
        case Kind::True:
            expectLiteral("true");
            return;
        case Kind::False:
            expectLiteral("false");
            return;
        case Kind::Null:
            expectLiteral("null");
            return;
    }
}

// Skips a whole object or list looking only at brackets and strings: the fast path for values
// the reader does not need (operator arguments, large metadata blocks).
void JsonScanner::skipContainer() {
    skipBalanced(0);
}

void JsonScanner::skipRest() {
    skipBalanced(1);
    m_first.pop_back();
}

void JsonScanner::skipBalanced(size_t depth) {
    uint64_t start = offset();
    for (;;) {
        const char* b = m_buf.get();
        size_t i = m_pos;
        while (i < m_end) {
            unsigned char c = static_cast<unsigned char>(b[i]);
            if (!kT.structural[c]) {
                ++i;
                continue;
            }
            if (c == '"') {
                m_pos = i;
                size_t close = scanString();
                m_keep = SIZE_MAX;
                i = close + 1;
                b = m_buf.get();  // scanString may have refilled
                continue;
            }
            if (c == '{' || c == '[') {
                ++depth;
            } else if (--depth == 0) {
                m_pos = i + 1;
                return;
            }
            ++i;
        }
        m_pos = i;
        if (!refill()) {
            failAt(start, {}, "an object or list is not closed: the input ends (truncated?)");
        }
    }
}

void JsonScanner::expectEnd() {
    skipWhitespace();
    if (m_pos < m_end)
        fail("expected the end of the input after the top-level value");
}

void JsonScanner::pin() {
    m_pin = m_pos;
}

void JsonScanner::unpin() {
    m_pin = SIZE_MAX;
}

}  // namespace reach
