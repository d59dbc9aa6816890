#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "core/trace/jsontext.h"

namespace reach_test_jsontext_test {  // unity builds: this file's names stay its own

using namespace reach;

// validNumberEnd is the one-pass check a skipped or hard-to-convert number takes; it must agree
// with the grammar check of the general path on every token, valid or not.
TEST(JsonText, ValidNumberEndAgreesWithTheGrammar) {
    const std::vector<std::string> tokens = {"0",
                                             "-0",
                                             "7",
                                             "-12",
                                             "10",
                                             "0.5",
                                             "-0.001",
                                             "1e5",
                                             "1E+5",
                                             "2e-3",
                                             "1.5e10",
                                             "00",
                                             "01",
                                             "-",
                                             "1.",
                                             ".5",
                                             "1e",
                                             "1e+",
                                             "--1",
                                             "+1",
                                             "1.2.3",
                                             "1e5e5",
                                             "0x10",
                                             "1-2",
                                             "1+2",
                                             "12345678901234567890123",
                                             "-0.0",
                                             "5086936598701.0962",
                                             "9007199254740993",
                                             "1.7976931348623157e308"};
    for (const std::string& t : tokens) {
        for (const char* after : {",", "]", " ", "}"}) {
            const std::string text = t + after;
            const char* end = text.data() + text.size();
            const char* e = jsontext::validNumberEnd(text.data(), end);
            // The scanner's token: the longest run of number characters ("0x10" is "0").
            const size_t run = std::min(t.find_first_not_of("0123456789+-.eE"), t.size());
            if (jsontext::isValidNumber(t.substr(0, run))) {
                EXPECT_EQ(e, text.data() + run) << text;
            } else {
                EXPECT_EQ(e, nullptr) << text;
            }
        }
        // A number that reaches the end of what is known may go on: the general path decides.
        if (t.find('x') == std::string::npos) {
            EXPECT_EQ(jsontext::validNumberEnd(t.data(), t.data() + t.size()), nullptr) << t;
        }
    }
}

// Every run length from 1 to 19 digits, integer and fraction, with and without eight bytes of
// room after the number (the word-at-a-time and the byte-at-a-time paths).
TEST(JsonText, SimpleNumbersOfEveryLengthEqualFromChars) {
    const std::string digits = "9081726354453627189";
    for (size_t n = 1; n <= digits.size(); ++n) {
        for (size_t f = 0; n + f <= 19; ++f) {
            std::string t = digits.substr(0, n);
            if (f > 0)
                t += "." + digits.substr(digits.size() - f);
            for (const std::string& tail : {std::string(","), std::string(",         ")}) {
                const std::string text = t + tail;
                double v = -1, expect = 0;
                std::from_chars(t.data(), t.data() + t.size(), expect);
                const char* e =
                    jsontext::parseSimpleNumber(text.data(), text.data() + text.size(), v);
                if (n + f <= 15) {
                    EXPECT_NE(e, nullptr) << t;  // below 2^53: the fast path must take it
                }
                if (e) {
                    EXPECT_EQ(e, text.data() + t.size()) << t;
                    EXPECT_EQ(v, expect) << t;
                }
            }
        }
    }
}

// The quote finder looks 16 bytes at a time: a quote or backslash at every position of the
// first 80 bytes, and at a position past where it looks.
TEST(JsonText, FindsTheFirstQuoteOrEscapeAtEveryPosition) {
    for (size_t at = 0; at < 80; ++at) {
        for (char c : {'"', '\\'}) {
            std::string s(100, 'a');
            s[at] = c;
            s[at + 5] = '"';
            const char* p = jsontext::findQuoteOrEscape(s.data(), s.data() + s.size());
            if (at < 64) {
                EXPECT_EQ(p, s.data() + at) << at;
            } else {
                // Past its look-ahead it returns where it stopped, before the hit.
                EXPECT_LE(p, s.data() + at) << at;
                EXPECT_GE(p, s.data() + 64) << at;
            }
        }
    }
    const std::string none(5, 'x');
    EXPECT_EQ(jsontext::findQuoteOrEscape(none.data(), none.data() + none.size()), none.data());
}

}  // namespace reach_test_jsontext_test
