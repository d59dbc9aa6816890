#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/trace/jsontext.h"

namespace reach {

class ByteSource;

// A pull scanner over a streamed JSON text: the caller walks the structure it cares about and
// skips the rest without materializing it, so memory stays a window of the input, never a DOM.
// Strings come back as views into that window (escapes decoded in place); they stay valid until
// the next call, or until unpin() for those read while the window is pinned. Every syntax error
// throws InputError naming the file and the byte offset (of the uncompressed text).
// Values that are skipped are checked against JSON's grammar as they stream past and are never
// held: a skipped string of any size costs no memory. The limits of docs/limits.md hold
// (JsonLimits): nesting depth, the size of a string the reader keeps and of a number token, and
// numbers a double cannot hold; each is an InputError at the byte offset.
class JsonScanner {
public:
    enum class Kind { Object, Array, String, Number, True, False, Null };

    // A stretch of a list's text, cut by splitList for another scanner to parse.
    struct Piece {
        std::unique_ptr<char[]> text;
        size_t size = 0;
        uint64_t offset = 0;  // of text[0] in the input
        size_t depth = 0;     // containers open around the list's elements
        bool first = false;   // begins at the list's first element, else before a ','
        bool cut = false;     // ends with the ',' that the next piece begins with, else at the
                              // list's ']' or at the end of the input
    };

    explicit JsonScanner(ByteSource& source);
    // Over one piece in memory, as if this scanner were the one that read the input up to the
    // piece: the same grammar, limits and byte offsets, so its errors are the same errors.
    JsonScanner(std::string file, Piece piece);
    ~JsonScanner();

    // Kind of the next value (skips whitespace).
    Kind peek() {
        char c = current();
        switch (c) {
            case '{':
                return Kind::Object;
            case '[':
                return Kind::Array;
            case '"':
                return Kind::String;
            case 't':
                return Kind::True;
            case 'f':
                return Kind::False;
            case 'n':
                return Kind::Null;
            default:
                if (c == '-' || (c >= '0' && c <= '9'))
                    return Kind::Number;
                failValue(c);
        }
    }
    void beginObject();
    // Next member of the current object: its key (the ':' consumed); false at the closing '}'.
    // Inline fast path: `, "key":` lies wholly inside the window and the key has no escape (a
    // trace has a few of these per event; the call and its register saves were a fifth of the
    // cost). Nothing is changed unless it succeeds; every other case takes nextKeySlow.
    [[gnu::always_inline]] bool nextKey(std::string_view& key) {
        if (m_end - m_pos >= 128) {
            const char* b = m_buf.get();
            const char* end = b + m_end;
            const char* p = b + m_pos;
            uint8_t& top = m_open.back();
            if (!(top & kFirst)) {
                while (p < end && isSpace(*p))
                    ++p;
                if (p >= end || *p != ',')
                    return nextKeySlow(key);
                ++p;
            }
            while (p < end && isSpace(*p))
                ++p;
            if (p < end && *p == '"') {
                const char* k = p + 1;
                const char* q = jsontext::findQuoteOrEscape(k, end);
                if (q < end && *q == '"') {
                    const char* c = q + 1;
                    while (c < end && isSpace(*c))
                        ++c;
                    if (c < end && *c == ':') {
                        key = std::string_view(k, size_t(q - k));
                        m_pos = size_t(c + 1 - b);
                        top &= uint8_t(~kFirst);
                        return true;
                    }
                }
            }
        }
        return nextKeySlow(key);
    }
    void beginArray();
    // True when another element follows (the ',' consumed); false at the closing ']'.
    bool nextElement();
    // Over a piece: true once nextElement has consumed the ',' that ends a cut piece (the
    // element after it belongs to the next piece).
    bool atCut() const { return m_cutEnd && m_pos == m_end; }

    // Cursor inside a list (after beginArray, or after one of its elements): hands the list's
    // text to `sink` in pieces of at least pieceBytes (half of it when the window must refill),
    // each cut after an element, for other scanners to parse. Returns Closed at the list's ']'
    // (the last piece holds it; the cursor is past it), Ended at the end of the input (the last
    // piece holds the rest), or Oversize when an element would make a piece larger than
    // maxPieceBytes: the elements before it go out as a piece and the cursor is left before it,
    // for the caller to read that element itself (so that a huge element costs no more memory
    // than it does unsplit). Not while pinned.
    enum class Split { Closed, Ended, Oversize };
    Split splitList(size_t pieceBytes, size_t maxPieceBytes,
                    const std::function<void(Piece&&)>& sink);

    std::string_view string();
    double number();
    bool boolean();
    void skipValue();
    // Skips what is left of the innermost open object or list, its closing bracket included
    // (the rest of an event once the reader knows it needs nothing more from it).
    void skipRest();
    void expectEnd();  // only whitespace may follow the top-level value

    // While pinned, the window keeps every byte from the pin on, so the views handed out stay
    // valid (used for one trace event at a time: its keys come in any order).
    void pin();
    void unpin();

    uint64_t offset() const { return m_base + m_pos; }

    // A view read while pinned may move when the window refills (the kept bytes shift to the
    // front): hold it as an input offset and resolve it when needed, before unpin().
    struct Ref {
        uint64_t offset = 0;
        size_t size = 0;
    };
    Ref ref(std::string_view v) const {
        return {m_base + uint64_t(v.data() - m_buf.get()), v.size()};
    }
    std::string_view resolve(Ref r) const {
        return r.size ? std::string_view(m_buf.get() + (r.offset - m_base), r.size)
                      : std::string_view();
    }
    const std::string& file() const { return m_file; }
    static const char* kindName(Kind k);

    [[noreturn]] void fail(const std::string& expected) const;
    [[noreturn]] void failAt(uint64_t offset, std::string_view key,
                             const std::string& expected) const;

private:
    [[noreturn]] void failValue(char c) const;
    [[noreturn]] void failDepth() const;
    static bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    bool nextKeySlow(std::string_view& key);
    bool refill();  // appends the next chunk; false at the end of the input
    void skipWhitespace();
    // The byte at the cursor after whitespace; fails at the end of input. Inline fast path:
    // traces separate tokens by none or one space.
    char current() {
        if (m_pos + 1 < m_end) {
            char c = m_buf[m_pos];
            if (c > ' ')
                return c;
            if (c == ' ' && m_buf[m_pos + 1] > ' ')
                return m_buf[++m_pos];
        }
        return currentSlow();
    }
    char currentSlow();
    void expectChar(char c, const char* what);
    size_t scanString();  // cursor on the opening quote; returns the index of the closing one
    std::string_view decodeInPlace(size_t begin, size_t end);
    std::string_view scanNumber();
    void expectLiteral(std::string_view lit);
    void skipString();                   // cursor on the opening quote; streams, keeps nothing
    void skipScalar(char c);             // a string, number or literal starting with c
    void skipNested(bool rest);          // a whole container, or the rest of the open one
    char currentInSkip(uint64_t start);  // current(), but an end of input means "not closed"

    ByteSource* m_source = nullptr;  // null over a piece
    std::string m_file;
    std::unique_ptr<char[]> m_buf;
    size_t m_cap = 0;
    size_t m_pos = 0;
    size_t m_end = 0;
    uint64_t m_base = 0;  // input offset of m_buf[0]
    size_t m_pin = SIZE_MAX;
    size_t m_keep = SIZE_MAX;  // token start that refill must keep (set around a token scan)
    bool m_eof = false;
    bool m_cutEnd = false;  // over a cut piece
    // Per container the reader opened: kFirst (no element read yet), kObject (else a list).
    static constexpr uint8_t kFirst = 1, kObject = 2;
    std::vector<uint8_t> m_open;
    std::vector<uint8_t> m_skipOpen;  // containers inside a value being skipped: 1 object
};

}  // namespace reach
