// Problem files from strangers (issue 14): nesting past the depth limit and numbers out of a
// double's range are one-line errors naming the file and the byte offset.
#include <gtest/gtest.h>

#include <string>

#include "core/base/inputerror.h"
#include "core/verify/problem.h"
#include "tests/core/testfiles.h"

namespace reach_test_problemlimits_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::nestedLists;
using reach::test::TempFolder;
using reach::test::writeText;

TEST(ProblemLimits, DeepNestingAndHugeNumbersAreOneLine) {
    TempFolder dir;
    const std::string head = R"({"id":"s","op":"softmax","dtype":"bf16","shapes":{"x":[4,8]},)";
    for (const std::string& tail : {R"("params":{"x":)" + nestedLists(1000000) + "},\"seed\":7}",
                                    std::string(R"("params":{},"seed":1e309})")}) {
        const std::string path = writeText(dir.path("p.json"), head + tail);
        try {
            Problem::load(path);
            ADD_FAILURE() << "accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(path + ": byte ", 0), 0u) << e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "not an InputError: " << e.what();
        }
    }
}

}  // namespace reach_test_problemlimits_test
