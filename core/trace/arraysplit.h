#pragma once

#include <cstdint>

namespace reach {

// Finds where the elements of a JSON list end, from its raw text, so that the elements can be
// parsed on several threads (the events of a trace's "traceEvents" are independent until they
// are merged). It follows only strings (with their escapes) and bracket depth, 64 bytes at a
// time; it does not check JSON's grammar: the scanner that parses each piece does, so a malformed
// file fails with the same error at the same byte as a reading on one thread.
//
// Feed it the text after the list's '[' in consecutive calls; state carries across them.
class ElementBoundaries {
public:
    struct Result {
        // Just past the last closing bracket in this call that ended an element of the list
        // (nullptr when none did).
        const char* lastElementEnd = nullptr;
        // The list's own closing ']' (nullptr when not reached); scanning stops there.
        const char* close = nullptr;
    };

    // Scans [p, end), continuing from the previous call.
    Result scan(const char* p, const char* end);

    // The exact byte-at-a-time rule the block code must agree with (also used for blocks that
    // hold a backslash, and by the tests as the reference).
    Result scanBytes(const char* p, const char* end);

private:
    struct Masks;  // of one 64-byte block: bit i is byte i
    static Masks masksOf(const char* p);
    // One 64-byte block with no backslash, no pending escape (the common case).
    void scanBlock(const char* p, const Masks& m, Result& r);

    int64_t m_depth = 0;  // brackets open inside the list
    bool m_inString = false;
    bool m_escaped = false;  // the previous byte was a backslash inside a string
};

}  // namespace reach
