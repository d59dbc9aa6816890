#include <gtest/gtest.h>

#include "core/base/category.h"
#include "core/base/inputerror.h"

namespace reach_test_category_test {  // unity builds: this file's names stay its own

using namespace reach;

TEST(Category, KeysAndLabelsRoundTrip) {
    for (Category c : kCategories) {
        EXPECT_EQ(categoryFromString(categoryKey(c)), c);
        EXPECT_EQ(categoryFromString(categoryLabel(c)), c);
    }
    EXPECT_FALSE(categoryFromString("gemm").has_value());
}

TEST(InputError, IsOneLineAndNamesFilePlaceAndExpectation) {
    InputError e("a.json", "byte 12", "expected ':'\nafter key");
    EXPECT_STREQ(e.what(), "a.json: byte 12: expected ':'\\nafter key");
    // Quoted input cannot steer the terminal either (issue 14): control characters escaped.
    InputError esc("odd\x1b]0;x\x07.json", "", "expected a \xc2\x9b file");
    EXPECT_STREQ(esc.what(), "odd\\x1b]0;x\\x07.json: expected a \\u009b file");
}

}  // namespace reach_test_category_test
