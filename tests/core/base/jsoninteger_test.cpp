#include <gtest/gtest.h>

#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/base/jsoninteger.h"

namespace reach_test_jsoninteger_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::jsonInteger;

// A float past the target's range is nullopt, never a cast (undefined behaviour: UBSan's
// float-cast-overflow, what the fuzzers found as `"reps": 1.5e24`).
TEST(JsonInteger, FloatsPastTheRangeAreRefused) {
    EXPECT_EQ(jsonInteger<int>(json::parse("1.5e24")), std::nullopt);
    EXPECT_EQ(jsonInteger<int>(json::parse("2147483648.0")), std::nullopt);
    EXPECT_EQ(jsonInteger<int>(json::parse("-2147483649.0")), std::nullopt);
    EXPECT_EQ(jsonInteger<int64_t>(json::parse("9223372036854775808.0")), std::nullopt);  // 2^63
    EXPECT_EQ(jsonInteger<uint64_t>(json::parse("-1.0")), std::nullopt);
    EXPECT_EQ(jsonInteger<uint64_t>(json::parse("18446744073709551616.0")), std::nullopt);
}

TEST(JsonInteger, WholeFloatsAndIntegersInRangeAreRead) {
    EXPECT_EQ(jsonInteger<int>(json::parse("100.0")), 100);
    EXPECT_EQ(jsonInteger<int>(json::parse("-2147483648.0")), INT32_MIN);
    EXPECT_EQ(jsonInteger<int>(json::parse("2147483647")), INT32_MAX);
    EXPECT_EQ(jsonInteger<int64_t>(json::parse("-9223372036854775808")), INT64_MIN);
    EXPECT_EQ(jsonInteger<uint64_t>(json::parse("18446744073709551615")), UINT64_MAX);
    EXPECT_EQ(jsonInteger<int64_t>(json::parse("9223372036854774784.0")), 9223372036854774784LL);
}

TEST(JsonInteger, EverythingElseIsRefused) {
    EXPECT_EQ(jsonInteger<int>(json::parse("2.5")), std::nullopt);
    EXPECT_EQ(jsonInteger<int>(json::parse("2147483648")), std::nullopt);
    EXPECT_EQ(jsonInteger<uint64_t>(json::parse("-1")), std::nullopt);
    EXPECT_EQ(jsonInteger<int>(json::parse("\"7\"")), std::nullopt);
    EXPECT_EQ(jsonInteger<int>(json::parse("true")), std::nullopt);
    EXPECT_EQ(jsonInteger<int>(json::parse("null")), std::nullopt);
    EXPECT_EQ(jsonInteger<int>(json(std::nan(""))), std::nullopt);
}

}  // namespace reach_test_jsoninteger_test
