#include "core/trace/jsonscanner.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/trace/arraysplit.h"
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

// The first '"' or '\\' in [p, end), or end.
const char* findQuoteOrBackslash(const char* p, const char* end) {
    for (;;) {
        const char* q = jsontext::findQuoteOrEscape(p, end);
        if (q >= end)
            return end;
        if (*q == '"' || *q == '\\')
            return q;
        if (q == p) {  // fewer than eight bytes left
            while (p < end && *p != '"' && *p != '\\')
                ++p;
            return p;
        }
        p = q;
    }
}

bool isHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string mib(size_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

JsonScanner::JsonScanner(ByteSource& source) : m_source(&source), m_file(source.path()) {
    m_cap = ByteSource::kChunkSize * 2;
    m_buf = std::make_unique<char[]>(m_cap);
    m_open.reserve(16);
    m_skipOpen.reserve(16);
}

JsonScanner::JsonScanner(std::string file, Piece piece) : m_file(std::move(file)) {
    m_buf = std::move(piece.text);
    m_cap = m_end = piece.size;
    m_base = piece.offset;
    m_eof = true;
    m_cutEnd = piece.cut;
    // The containers around the list are never closed here: only their count matters (the
    // depth limit). The list itself is the last.
    m_open.assign(piece.depth, kObject);
    m_open.push_back(piece.first ? kFirst : 0);
    m_skipOpen.reserve(16);
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
    std::string_view chunk = m_source ? m_source->next() : std::string_view();
    if (chunk.empty()) {
        m_eof = true;
        return false;
    }
    if (m_end + chunk.size() > m_cap) {
        // Only a pinned event or a token larger than a chunk gets here.
        size_t cap = std::max(m_cap * 2, m_end + chunk.size());
        auto buf = std::make_unique_for_overwrite<char[]>(cap);
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
    const auto u = static_cast<unsigned char>(c);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", u);
    fail(std::string("expected a JSON value, found ") +
         (u >= 0x20 && u < 0x7f ? "'" + std::string(1, c) + "'" : std::string("byte ") + hex));
}

void JsonScanner::failDepth() const {
    fail("nesting deeper than " + std::to_string(JsonLimits::kMaxDepth) +
         " levels (the limit); expected a shallower document");
}

void JsonScanner::beginObject() {
    if (m_open.size() >= JsonLimits::kMaxDepth && current() == '{')
        failDepth();
    expectChar('{', "'{' (an object)");
    m_open.push_back(kFirst | kObject);
}

void JsonScanner::beginArray() {
    if (m_open.size() >= JsonLimits::kMaxDepth && current() == '[')
        failDepth();
    expectChar('[', "'[' (a list)");
    m_open.push_back(kFirst);
}

// The general path of nextKey (its inline fast path is in the header).
bool JsonScanner::nextKeySlow(std::string_view& key) {
    char c = current();
    if (c == '}') {
        ++m_pos;
        m_open.pop_back();
        return false;
    }
    if (!(m_open.back() & kFirst)) {
        if (c != ',')
            fail("expected ',' or '}' after an object member");
        ++m_pos;
        c = current();
    }
    m_open.back() &= uint8_t(~kFirst);
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
        m_open.pop_back();
        return false;
    }
    if (!(m_open.back() & kFirst)) {
        if (c != ',')
            fail("expected ',' or ']' after a list element");
        ++m_pos;
    }
    m_open.back() &= uint8_t(~kFirst);
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
            if (slashes % 2 == 0) {
                if (i - m_keep > JsonLimits::kMaxStringBytes) {
                    failAt(m_base + m_keep - 1, {},
                           "a string longer than " + mib(JsonLimits::kMaxStringBytes) +
                               " (the limit for a name or value Reach keeps)");
                }
                return i;
            }
            from = i + 1;
            continue;
        }
        size_t scanned = m_end - m_keep;
        // A string the reader keeps is held whole in the window: bound it before it grows.
        if (scanned > JsonLimits::kMaxStringBytes) {
            failAt(m_base + m_keep - 1, {},
                   "a string longer than " + mib(JsonLimits::kMaxStringBytes) +
                       " (the limit for a name or value Reach keeps)");
        }
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
        if (scanned > JsonLimits::kMaxNumberChars) {
            failAt(m_base + m_keep, {},
                   "a number of more than " + std::to_string(JsonLimits::kMaxNumberChars) +
                       " characters (the limit)");
        }
        if (!refill()) {
            i = m_end;
            break;
        }
        i = m_keep + scanned;
    }
    size_t begin = m_keep;
    m_keep = SIZE_MAX;
    m_pos = i;
    if (i - begin > JsonLimits::kMaxNumberChars) {
        failAt(m_base + begin, {},
               "a number of more than " + std::to_string(JsonLimits::kMaxNumberChars) +
                   " characters (the limit)");
    }
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
        // A valid number the fast path cannot convert exactly (17 digits, an exponent): convert
        // it without scanning it again.
        const char* e = jsontext::validNumberEnd(b + m_pos, b + m_end);
        if (e && size_t(e - (b + m_pos)) <= JsonLimits::kMaxNumberChars) {
            auto [ptr, ec] = std::from_chars(b + m_pos, e, v);
            if (ec == std::errc() && ptr == e) {
                m_pos = size_t(e - b);
                return v;
            }
        }
    }
    uint64_t at = offset();
    std::string_view t = scanNumber();
    double v = 0;
    if (!jsontext::isValidNumber(t))
        failAt(at, {}, "malformed number '" + std::string(t.substr(0, 40)) + "'");
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec == std::errc::result_out_of_range) {
        // from_chars says this for underflow (1e-400: 0 is right) and overflow alike.
        const double r = std::strtod(std::string(t).c_str(), nullptr);
        if (std::isinf(r)) {
            failAt(at, {},
                   "number " + std::string(t.substr(0, 40)) +
                       " is out of range (a double holds at most 1.8e308)");
        }
        return r;
    }
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
    const char c = current();
    if (c == '{' || c == '[') {
        skipNested(false);
    } else {
        skipScalar(c);
    }
}

void JsonScanner::skipRest() {
    skipNested(true);
}

// Nothing of a skipped string is kept: the window moves on as the string streams past, so a
// string of gigabytes costs no memory. Escapes are checked as they come.
void JsonScanner::skipString() {
    const uint64_t start = offset();
    ++m_pos;  // opening quote
    bool escaped = false;
    int hexLeft = 0;
    for (;;) {
        const char* b = m_buf.get();
        size_t i = m_pos;
        while (i < m_end) {
            if (hexLeft > 0) {
                if (!isHex(b[i]))
                    failAt(m_base + i, {}, "expected 4 hex digits after \\u");
                --hexLeft;
                ++i;
                continue;
            }
            if (escaped) {
                switch (b[i]) {
                    case 'u':
                        hexLeft = 4;
                        break;
                    case '"':
                    case '\\':
                    case '/':
                    case 'b':
                    case 'f':
                    case 'n':
                    case 'r':
                    case 't':
                        break;
                    default:
                        failAt(m_base + i - 1, {}, "invalid escape in a string");
                }
                escaped = false;
                ++i;
                continue;
            }
            i = size_t(findQuoteOrBackslash(b + i, b + m_end) - b);
            if (i >= m_end)
                break;
            if (b[i] == '"') {
                m_pos = i + 1;
                return;
            }
            escaped = true;
            ++i;
        }
        m_pos = m_end;
        if (!refill())
            failAt(start, {}, "a string is not terminated: the input ends (truncated?)");
    }
}

void JsonScanner::skipScalar(char c) {
    switch (c) {
        case '"':
            skipString();
            return;
        case 't':
            expectLiteral("true");
            return;
        case 'f':
            expectLiteral("false");
            return;
        case 'n':
            expectLiteral("null");
            return;
        default:
            break;
    }
    if (c != '-' && !(c >= '0' && c <= '9'))
        failValue(c);
    {
        const char* b = m_buf.get();
        const char* e = jsontext::validNumberEnd(b + m_pos, b + m_end);
        if (e && size_t(e - (b + m_pos)) <= JsonLimits::kMaxNumberChars) {
            m_pos = size_t(e - b);
            return;
        }
    }
    const uint64_t at = offset();
    const std::string_view t = scanNumber();
    if (!jsontext::isValidNumber(t))
        failAt(at, {}, "malformed number '" + std::string(t.substr(0, 40)) + "'");
}

char JsonScanner::currentInSkip(uint64_t start) {
    if (m_pos<m_end&& static_cast<unsigned char>(m_buf[m_pos])> ' ')
        return m_buf[m_pos];
    skipWhitespace();
    if (m_pos >= m_end)
        failAt(start, {}, "an object or list is not closed: the input ends (truncated?)");
    return m_buf[m_pos];
}

// Skips a whole object or list (or, with rest, what is left of the innermost one the reader
// opened, its closing bracket included) checking JSON's grammar token by token: a value the
// reader does not need still has to be JSON, and its nesting counts against the depth limit.
void JsonScanner::skipNested(bool rest) {
    enum class Want { Value, ValueOrClose, Key, KeyOrClose, Colon, CommaOrClose };
    std::vector<uint8_t>& open = m_skipOpen;
    open.clear();
    const uint64_t start = offset();
    Want want = Want::Value;
    if (rest) {
        const uint8_t top = m_open.back();
        m_open.pop_back();
        open.push_back(top & kObject ? 1 : 0);
        want = !(top & kFirst)   ? Want::CommaOrClose
               : (top & kObject) ? Want::KeyOrClose
                                 : Want::ValueOrClose;
    }
    auto close = [&] {
        ++m_pos;
        open.pop_back();
        want = Want::CommaOrClose;
        return open.empty();
    };
    for (;;) {
        const char c = currentInSkip(start);
        switch (want) {
            case Want::ValueOrClose:
                if (c == ']') {
                    if (close())
                        return;
                    continue;
                }
                [[fallthrough]];
            case Want::Value:
                if (c == '{' || c == '[') {
                    if (open.size() + m_open.size() >= JsonLimits::kMaxDepth)
                        failDepth();
                    open.push_back(c == '{' ? 1 : 0);
                    ++m_pos;
                    want = c == '{' ? Want::KeyOrClose : Want::ValueOrClose;
                    continue;
                }
                skipScalar(c);
                if (open.empty())
                    return;
                want = Want::CommaOrClose;
                continue;
            case Want::KeyOrClose:
                if (c == '}') {
                    if (close())
                        return;
                    continue;
                }
                [[fallthrough]];
            case Want::Key:
                if (c != '"')
                    fail("expected a member name (a string) in an object");
                skipString();
                want = Want::Colon;
                continue;
            case Want::Colon:
                if (c != ':')
                    fail("expected ':' after a member name");
                ++m_pos;
                want = Want::Value;
                continue;
            case Want::CommaOrClose: {
                const bool object = open.back();
                if (c == ',') {
                    ++m_pos;
                    want = object ? Want::Key : Want::Value;
                    continue;
                }
                if (c == (object ? '}' : ']')) {
                    if (close())
                        return;
                    continue;
                }
                fail(object ? "expected ',' or '}' after an object member"
                            : "expected ',' or ']' after a list element");
            }
        }
    }
}

void JsonScanner::expectEnd() {
    skipWhitespace();
    if (m_pos < m_end)
        fail("expected the end of the input after the top-level value");
}

JsonScanner::Split JsonScanner::splitList(size_t pieceBytes, size_t maxPieceBytes,
                                          const std::function<void(Piece&&)>& sink) {
    // Offsets are of the input, not the window: refill moves the window's bytes.
    constexpr uint64_t kNone = UINT64_MAX;
    ElementBoundaries bounds;
    bool first = (m_open.back() & kFirst) != 0;
    uint64_t start = offset();  // of the piece being gathered
    uint64_t scanned = start;
    uint64_t lastEnd = kNone;  // just past the last element end seen in the piece
    const size_t depth = m_open.size() - 1;
    auto emit = [&](uint64_t end, bool cut) {
        Piece p;
        p.size = size_t(end - start);
        // for_overwrite: zeroing 2 MiB per piece was a fifth of the reading thread's work.
        p.text = std::make_unique_for_overwrite<char[]>(std::max<size_t>(p.size, 1));
        std::memcpy(p.text.get(), m_buf.get() + (start - m_base), p.size);
        p.offset = start;
        p.depth = depth;
        p.first = first;
        p.cut = cut;
        sink(std::move(p));
    };
    // Cuts at the ',' after the last element end; whatever else follows it (a ']' or a syntax
    // error) stays in this piece, whose scanner deals with it. Undecided while only whitespace
    // follows in the window (a refill or a later element decides).
    auto cutAfterLastEnd = [&] {
        const char* b = m_buf.get();
        size_t i = size_t(lastEnd - m_base);
        while (i < m_end && isSpace(b[i]))
            ++i;
        if (i == m_end)
            return;
        lastEnd = kNone;
        if (b[i] != ',')
            return;
        emit(m_base + i + 1, true);
        first = false;
        m_open.back() &= uint8_t(~kFirst);
        start = m_base + i;
    };
    for (;;) {
        const char* b = m_buf.get();
        const uint64_t windowEnd = m_base + m_end;
        while (scanned < windowEnd) {
            // At most a piece's worth per scan, so that pieces are cut near pieceBytes.
            const uint64_t to = std::min(windowEnd, scanned + pieceBytes);
            const ElementBoundaries::Result r =
                bounds.scan(b + (scanned - m_base), b + (to - m_base));
            if (r.close) {
                const uint64_t close = m_base + uint64_t(r.close - b);
                emit(close + 1, false);
                m_pos = size_t(close + 1 - m_base);
                m_pin = SIZE_MAX;
                m_open.pop_back();
                return Split::Closed;
            }
            scanned = to;
            if (r.lastElementEnd)
                lastEnd = m_base + uint64_t(r.lastElementEnd - b);
            if (lastEnd != kNone && lastEnd - start >= pieceBytes)
                cutAfterLastEnd();
        }
        // Before a refill, a piece half full is cut at its last element: the refill then keeps
        // only the unfinished element (moving a whole piece to the window's front per refill
        // was a copy of every byte).
        if (lastEnd != kNone && lastEnd - start >= pieceBytes / 2)
            cutAfterLastEnd();
        if (windowEnd - start > maxPieceBytes) {
            // The elements before the huge one still go out as a piece: only it is read here.
            if (lastEnd != kNone)
                cutAfterLastEnd();
            m_pos = size_t(start - m_base);
            m_pin = SIZE_MAX;
            return Split::Oversize;
        }
        // Keep the piece's bytes in the window while it grows.
        m_pos = m_end;
        m_pin = size_t(start - m_base);
        if (!refill()) {
            emit(m_base + m_end, false);
            m_pin = SIZE_MAX;
            return Split::Ended;
        }
    }
}

void JsonScanner::pin() {
    m_pin = m_pos;
}

void JsonScanner::unpin() {
    m_pin = SIZE_MAX;
}

}  // namespace reach
