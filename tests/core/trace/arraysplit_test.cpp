#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/trace/arraysplit.h"

namespace reach_test_arraysplit_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

// Every element end and the close, as offsets, for text fed in calls cut at `cuts`, through the
// block code (scan) or the byte rule (scanBytes).
struct Found {
    std::vector<size_t> ends;  // last element end per call that had one
    long close = -1;
    bool operator==(const Found&) const = default;
};

Found run(const std::string& text, const std::vector<size_t>& cuts, bool bytes) {
    ElementBoundaries b;
    Found f;
    size_t from = 0;
    std::vector<size_t> all = cuts;
    all.push_back(text.size());
    for (size_t to : all) {
        const char* p = text.data();
        auto r = bytes ? b.scanBytes(p + from, p + to) : b.scan(p + from, p + to);
        if (r.lastElementEnd)
            f.ends.push_back(size_t(r.lastElementEnd - p));
        if (r.close) {
            f.close = long(r.close - p);
            break;
        }
        from = to;
    }
    return f;
}

// Elements of a list as a trace writes them, with strings that hold brackets, quotes and
// backslash runs, some of them across 64-byte blocks.
std::string randomList(std::mt19937& rng, int elements) {
    static const char* pieces[] = {"\"ph\": \"X\"",
                                   "\"name\": \"void at::native::elementwise<[]{}>\"",
                                   "\"args\": {\"grid\": [1, 2, 3], \"block\": [128, 1, 1]}",
                                   "\"s\": \"a\\\\\"",
                                   "\"q\": \"say \\\"{hi}\\\" ]\"",
                                   "\"t\": \"\\\\\\\\\\\"]\"",
                                   "\"n\": 12345.678",
                                   "\"l\": [[], [{}], \"]\"]",
                                   "\"e\": \"\\u005d\"",
                                   "\"k\": \"}}}}]]]]\""};
    std::string s;
    for (int i = 0; i < elements; ++i) {
        if (i)
            s += rng() % 3 ? ", " : ",\n  ";
        s += '{';
        const int n = int(rng() % 6);
        for (int j = 0; j < n; ++j) {
            if (j)
                s += ", ";
            s += pieces[rng() % (sizeof pieces / sizeof *pieces)];
        }
        s += '}';
    }
    return s + "]";
}

}  // namespace

TEST(ElementBoundaries, BlocksAgreeWithTheByteRuleWhereverTheCallsAreCut) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 400; ++trial) {
        const std::string text = randomList(rng, 1 + int(rng() % 40)) + " , {\"after\": 1}";
        std::vector<size_t> cuts;
        for (size_t at = rng() % 97; at < text.size(); at += 1 + rng() % 130)
            cuts.push_back(at);
        const Found blocks = run(text, cuts, false), bytes = run(text, cuts, true);
        ASSERT_EQ(blocks, bytes) << text;
        // The close is the list's own ']', never one inside a string or an element.
        ASSERT_EQ(bytes.close, long(text.find(" , {\"after\"") - 1)) << text;
    }
}

TEST(ElementBoundaries, ElementEndsAreJustPastEachTopLevelElement) {
    const std::string text = "{\"a\": \"}\"}, [1, [2]], {\"b\": {\"c\": \"\\\"}\"}}]";
    ElementBoundaries b;
    std::vector<size_t> ends;
    long close = -1;
    for (size_t i = 0; i < text.size() && close < 0; ++i) {
        auto r = b.scan(text.data() + i, text.data() + i + 1);
        if (r.lastElementEnd)
            ends.push_back(size_t(r.lastElementEnd - text.data()));
        if (r.close)
            close = long(r.close - text.data());
    }
    EXPECT_EQ(ends, (std::vector<size_t>{10, 20, 41}));
    EXPECT_EQ(close, 41);
}

TEST(ElementBoundaries, AnEscapePendingAtABlockEndCarriesOver) {
    // A string whose backslash is the 64th byte of a block: the quote after it is escaped.
    std::string text = "{\"x\": \"";
    text.append(63 - text.size(), 'a');
    text += "\\\"]\"}]";
    ASSERT_EQ(text[63], '\\');
    for (bool bytes : {false, true}) {
        const Found f = run(text, {64}, bytes);
        EXPECT_EQ(f.close, long(text.size() - 1));
        EXPECT_EQ(f.ends, (std::vector<size_t>{text.size() - 1}));
    }
}

}  // namespace reach_test_arraysplit_test
