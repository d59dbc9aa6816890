#include <gtest/gtest.h>

#include "core/base/category.h"
#include "core/base/inputerror.h"

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
    EXPECT_STREQ(e.what(), "a.json: byte 12: expected ':' after key");
}
