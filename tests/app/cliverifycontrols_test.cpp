// reach-cli verify --controls on a machine without a GPU (or with none visible): one line that
// says so, exit status 2; not one "no_gpu NOT AS DESIGNED" line per control.
#include <gtest/gtest.h>

#include <cstdlib>

#include "clirunner.h"

namespace reach_test_cliverifycontrols_test {  // unity builds: this file's names stay its own

using namespace reach::test;

TEST(CliVerifyControls, NoGpuIsOneLineAndStatusTwo) {
    unsetenv("REACH_VERIFY");               // the real reach-verify, beside reach-cli
    setenv("CUDA_VISIBLE_DEVICES", "", 1);  // no GPU visible, with or without one
    const CliResult r = runCli({"verify", "--controls"});
    unsetenv("CUDA_VISIBLE_DEVICES");
    EXPECT_FALSE(r.crashed);
    EXPECT_EQ(r.status, 2) << r.err;
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find("verify --controls: device: a GPU to verify on"), std::string::npos)
        << r.err;
    // Said as "no GPU", never as a driver version problem (issue 40).
    EXPECT_NE(r.err.find("(no GPU: "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("NOT AS DESIGNED"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace reach_test_cliverifycontrols_test
