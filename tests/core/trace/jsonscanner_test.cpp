#include <gtest/gtest.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "core/base/inputerror.h"
#include "core/trace/bytesource.h"
#include "core/trace/jsonscanner.h"

namespace reach_test_jsonscanner_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

// The scanner reads from a file through ByteSource; tests write their text to a temp file.
class TempFile {
public:
    explicit TempFile(const std::string& text, const std::string& name = "scan.json") {
        m_path =
            (fs::temp_directory_path() / ("reach_scan_" + std::to_string(::getpid()) + "_" + name))
                .string();
        std::ofstream(m_path, std::ios::binary) << text;
    }
    ~TempFile() { fs::remove(m_path); }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

}  // namespace

TEST(JsonScanner, WalksObjectsListsAndScalars) {
    TempFile f(R"( {"a": [1, -2.5, 3e2, 0.125, 1E-3, 12345678901234567890], "b": {"c": true,
      "d": false, "e": null, "f": "x"}, "g": []} )");
    ByteSource src(f.path());
    JsonScanner s(src);
    s.beginObject();
    std::string_view key;
    ASSERT_TRUE(s.nextKey(key));
    EXPECT_EQ(key, "a");
    s.beginArray();
    std::vector<double> nums;
    while (s.nextElement())
        nums.push_back(s.number());
    ASSERT_EQ(nums.size(), 6u);
    EXPECT_EQ(nums[0], 1);
    EXPECT_EQ(nums[1], -2.5);
    EXPECT_EQ(nums[2], 300);
    EXPECT_EQ(nums[3], 0.125);
    EXPECT_DOUBLE_EQ(nums[4], 0.001);
    EXPECT_DOUBLE_EQ(nums[5], 12345678901234567890.0);
    ASSERT_TRUE(s.nextKey(key));
    EXPECT_EQ(key, "b");
    s.beginObject();
    ASSERT_TRUE(s.nextKey(key));
    EXPECT_TRUE(s.boolean());
    ASSERT_TRUE(s.nextKey(key));
    EXPECT_FALSE(s.boolean());
    ASSERT_TRUE(s.nextKey(key));
    EXPECT_EQ(s.peek(), JsonScanner::Kind::Null);
    s.skipValue();
    ASSERT_TRUE(s.nextKey(key));
    EXPECT_EQ(s.string(), "x");
    EXPECT_FALSE(s.nextKey(key));
    ASSERT_TRUE(s.nextKey(key));
    EXPECT_EQ(key, "g");
    s.beginArray();
    EXPECT_FALSE(s.nextElement());
    EXPECT_FALSE(s.nextKey(key));
    s.expectEnd();
}

TEST(JsonScanner, DecimalTimestampsParseExactlyAsFromChars) {
    // Kineto's ns-precision microseconds: the fast path must give the correctly rounded double.
    TempFile f("[5086903951839.119, 1694039994139246, 0.001, 7.0, -0.5, 9007199254740993]");
    ByteSource src(f.path());
    JsonScanner s(src);
    s.beginArray();
    std::vector<double> v;
    while (s.nextElement())
        v.push_back(s.number());
    ASSERT_EQ(v.size(), 6u);
    EXPECT_EQ(v[0], 5086903951839.119);
    EXPECT_EQ(v[1], 1694039994139246.0);
    EXPECT_EQ(v[2], 0.001);
    EXPECT_EQ(v[3], 7.0);
    EXPECT_EQ(v[4], -0.5);
    EXPECT_EQ(v[5], 9007199254740992.0);  // 2^53 + 1 rounds to even
}

TEST(JsonScanner, DecodesEscapes) {
    TempFile f(R"(["a\"b\\c\/d\n\t", "\u00e9\u20ac\ud83d\ude00", "plain"])");
    ByteSource src(f.path());
    JsonScanner s(src);
    s.beginArray();
    ASSERT_TRUE(s.nextElement());
    EXPECT_EQ(s.string(), "a\"b\\c/d\n\t");
    ASSERT_TRUE(s.nextElement());
    EXPECT_EQ(s.string(), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    ASSERT_TRUE(s.nextElement());
    EXPECT_EQ(s.string(), "plain");
    EXPECT_FALSE(s.nextElement());
}

TEST(JsonScanner, TokensAcrossChunkBoundariesAndLongerThanAChunk) {
    // Strings and numbers of every length land on the 1 MiB chunk boundaries somewhere; one
    // string is longer than two chunks (kernel names reach kilobytes; this is the worst case).
    std::string text = "[";
    std::vector<std::string> expect;
    size_t n = 0;
    while (text.size() < 3 * ByteSource::kChunkSize) {
        std::string s(n % 97, char('a' + n % 26));
        if (n % 5 == 0)
            s += "\\\"q";  // an escape near some boundaries
        text += "\"" + s + "\", " + std::to_string(n) + ".25, ";
        expect.push_back(n % 5 == 0 ? s.substr(0, s.size() - 3) + "\"q" : s);
        ++n;
    }
    std::string huge(2 * ByteSource::kChunkSize + 17, 'z');
    text += "\"" + huge + "\"]";
    TempFile f(text);
    ByteSource src(f.path());
    JsonScanner s(src);
    s.beginArray();
    for (size_t i = 0; i < expect.size(); ++i) {
        ASSERT_TRUE(s.nextElement());
        ASSERT_EQ(s.string(), expect[i]) << "string " << i;
        ASSERT_TRUE(s.nextElement());
        ASSERT_EQ(s.number(), double(i) + 0.25) << "number " << i;
    }
    ASSERT_TRUE(s.nextElement());
    EXPECT_EQ(s.string().size(), huge.size());
    EXPECT_FALSE(s.nextElement());
    s.expectEnd();
}

TEST(JsonScanner, PinnedRefsSurviveRefills) {
    std::string text = "[";
    while (text.size() < 2 * ByteSource::kChunkSize) {
        text += "{\"name\": \"kernel_" + std::to_string(text.size()) + "\", \"pad\": \"" +
                std::string(300, '.') + "\"}, ";
    }
    text += "{}]";
    TempFile f(text);
    ByteSource src(f.path());
    JsonScanner s(src);
    s.beginArray();
    int objects = 0;
    while (s.nextElement()) {
        s.pin();
        s.beginObject();
        std::string_view key;
        JsonScanner::Ref name;
        std::string copy;
        while (s.nextKey(key)) {
            if (key == "name") {
                std::string_view v = s.string();
                name = s.ref(v);
                copy = std::string(v);
            } else {
                s.skipValue();
            }
        }
        EXPECT_EQ(s.resolve(name), copy);
        s.unpin();
        ++objects;
    }
    EXPECT_GT(objects, 5000);
}

TEST(JsonScanner, SkipsNestedValuesWithBracketsInStrings) {
    TempFile f(R"({"skip": {"a": [1, {"b": "}]\"{["}], "c": [[[]]]}, "keep": 5})");
    ByteSource src(f.path());
    JsonScanner s(src);
    s.beginObject();
    std::string_view key;
    ASSERT_TRUE(s.nextKey(key));
    s.skipValue();
    ASSERT_TRUE(s.nextKey(key));
    EXPECT_EQ(key, "keep");
    EXPECT_EQ(s.number(), 5);
    EXPECT_FALSE(s.nextKey(key));
}

TEST(JsonScanner, SyntaxErrorsNameFileAndByteOffset) {
    struct Case {
        const char* text;
        const char* place;
    } cases[] = {
        {R"({"a" 1})", "byte 5"},          // missing ':'
        {R"({"a": 1 "b": 2})", "byte 8"},  // missing ','
        {R"([1, 2,])", "byte 6"},          // trailing comma: a value expected
        {R"({"a": tru})", "byte 6"},       // bad literal
        {R"({"a": 1.})", "byte 6"},        // malformed number (short input: general path)
        {R"({"a": 1.                                                 })", "byte 6"},
        {R"({"a": "x)", "byte"},  // unterminated string
        {R"([1, 2)", "byte 5"},   // unterminated list
    };
    for (const Case& c : cases) {
        TempFile f(c.text);
        ByteSource src(f.path());
        JsonScanner s(src);
        try {
            if (s.peek() == JsonScanner::Kind::Object) {
                s.beginObject();
                std::string_view key;
                while (s.nextKey(key)) {
                    if (s.peek() == JsonScanner::Kind::Number) {
                        s.number();
                    } else if (s.peek() == JsonScanner::Kind::String) {
                        s.string();
                    } else {
                        s.boolean();
                    }
                }
            } else {
                s.beginArray();
                while (s.nextElement())
                    s.number();
            }
            s.expectEnd();
            ADD_FAILURE() << "no error for " << c.text;
        } catch (const InputError& e) {
            EXPECT_EQ(e.file(), f.path());
            EXPECT_NE(e.place().find(c.place), std::string::npos) << c.text << " -> " << e.what();
        }
    }
}

// Pins a bug: a key whose closing quote ended a chunk was read from the moved window (the ':'
// lookup refilled it) and compared as garbage, so the event lost its "cat". Every token of a
// small object is put across the first chunk boundary in turn.
TEST(JsonScanner, EveryTokenAcrossAChunkBoundary) {
    const std::string obj = R"({"abcdef": 12.5, "t": true, "s": "xy", "n": null, "e": -3})";
    for (size_t shift = 0; shift <= obj.size() + 1; ++shift) {
        SCOPED_TRACE(shift);
        std::string text = "[" + std::string(ByteSource::kChunkSize - 1 - shift, ' ') + obj + "]";
        TempFile f(text, "boundary.json");
        for (bool pinned : {false, true}) {
            ByteSource src(f.path());
            JsonScanner s(src);
            s.beginArray();
            ASSERT_TRUE(s.nextElement());
            if (pinned)
                s.pin();
            s.beginObject();
            std::string_view key;
            ASSERT_TRUE(s.nextKey(key));
            ASSERT_EQ(key, "abcdef");
            ASSERT_EQ(s.number(), 12.5);
            ASSERT_TRUE(s.nextKey(key));
            ASSERT_EQ(key, "t");
            ASSERT_TRUE(s.boolean());
            ASSERT_TRUE(s.nextKey(key));
            ASSERT_EQ(key, "s");
            ASSERT_EQ(s.string(), "xy");
            ASSERT_TRUE(s.nextKey(key));
            ASSERT_EQ(key, "n");
            s.skipValue();
            ASSERT_TRUE(s.nextKey(key));
            ASSERT_EQ(key, "e");
            ASSERT_EQ(s.number(), -3);
            ASSERT_FALSE(s.nextKey(key));
            if (pinned)
                s.unpin();
            ASSERT_FALSE(s.nextElement());
            s.expectEnd();
        }
    }
}

// The fast number path (8 digits at a time, one division by a power of ten) must give exactly
// what std::from_chars gives, for every digit count on both sides of the point.
TEST(JsonScanner, FastNumbersEqualFromChars) {
    std::string text = "[";
    std::vector<std::string> tokens;
    uint64_t x = 88172645463325252ULL;
    auto rnd = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    for (int i = 0; i < 20000; ++i) {
        int intDigits = 1 + int(rnd() % 17);
        int fracDigits = int(rnd() % 8);
        std::string t = (rnd() % 4 == 0) ? "-" : "";
        t += char('1' + rnd() % 9);
        for (int d = 1; d < intDigits; ++d)
            t += char('0' + rnd() % 10);
        if (fracDigits > 0) {
            t += '.';
            for (int d = 0; d < fracDigits; ++d)
                t += char('0' + rnd() % 10);
        }
        if (i % 50 == 0)
            t = "0." + std::to_string(rnd() % 1000000);
        tokens.push_back(t);
        text += t + (i + 1 < 20000 ? ", " : "]");
    }
    TempFile f(text, "numbers.json");
    ByteSource src(f.path());
    JsonScanner s(src);
    s.beginArray();
    for (const std::string& t : tokens) {
        ASSERT_TRUE(s.nextElement());
        double expect = 0;
        std::from_chars(t.data(), t.data() + t.size(), expect);
        ASSERT_EQ(s.number(), expect) << t;
    }
    EXPECT_FALSE(s.nextElement());
}

// nextKey's inline fast path (whole member in the window) and its general path must read the
// same members whatever the whitespace, and hand over to the general path for escaped keys.
TEST(JsonScanner, MembersReadTheSameWithAnyWhitespaceAndEscapes) {
    const std::string pad(300, ' ');
    for (const std::string& ws :
         {std::string(""), std::string(" "), std::string("\n    "), std::string("\t\r\n")}) {
        const std::string text = "{" + ws + "\"ph\"" + ws + ":" + ws + "\"X\"" + ws + "," + ws +
                                 "\"a\\\"b\"" + ws + ":" + ws + "1" + ws + "," + ws +
                                 "\"External id\":2" + ws + "}" + pad;
        TempFile f(text, "members.json");
        ByteSource src(f.path());
        JsonScanner s(src);
        s.beginObject();
        std::string_view key;
        ASSERT_TRUE(s.nextKey(key));
        EXPECT_EQ(key, "ph");
        EXPECT_EQ(s.string(), "X");
        ASSERT_TRUE(s.nextKey(key));
        EXPECT_EQ(key, "a\"b");
        EXPECT_EQ(s.number(), 1);
        ASSERT_TRUE(s.nextKey(key));
        EXPECT_EQ(key, "External id");
        EXPECT_EQ(s.number(), 2);
        EXPECT_FALSE(s.nextKey(key));
        s.expectEnd();
    }
    // A member without its ',' is an error on either path.
    TempFile bad("{\"a\":1 \"b\":2}" + pad, "nocomma.json");
    ByteSource src(bad.path());
    JsonScanner s(src);
    s.beginObject();
    std::string_view key;
    ASSERT_TRUE(s.nextKey(key));
    s.skipValue();
    EXPECT_THROW(s.nextKey(key), InputError);
}

// Skipped numbers take a one-pass check: malformed ones are still errors at their offset.
TEST(JsonScanner, SkippedMalformedNumbersAreErrors) {
    const std::string pad(300, ' ');
    for (const char* t : {"01", "1.", "1e", "-", "1.2.3", "1-2", "1e5e5"}) {
        TempFile f(std::string("[") + t + ", 1]" + pad, "skipnum.json");
        ByteSource src(f.path());
        JsonScanner s(src);
        s.beginArray();
        ASSERT_TRUE(s.nextElement());
        try {
            s.skipValue();
            ADD_FAILURE() << t << " was skipped as a number";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("byte 1"), std::string::npos) << e.what();
        }
    }
    TempFile ok("[-0.5e-3, 17, 5086936598701.0962]" + pad, "skipok.json");
    ByteSource src(ok.path());
    JsonScanner s(src);
    s.beginArray();
    int n = 0;
    while (s.nextElement()) {
        s.skipValue();
        ++n;
    }
    EXPECT_EQ(n, 3);
}

}  // namespace reach_test_jsonscanner_test
