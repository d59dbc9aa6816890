// The compile cache needs nvcc but no GPU: runs wherever a CUDA toolkit is installed, skips
// (with the reason) where none is.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "gpu/candidatecompiler.h"

namespace reach_test_candidatecompiler_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {
const std::string kResources = std::string(REACH_SOURCE_DIR) + "/resources";

CandidateCompiler::Options options(const std::string& cache) {
    CandidateCompiler::Options o;
    o.arch = "sm_90";
    o.includeDir = kResources + "/include";
    o.cacheDir = cache;
    return o;
}
}  // namespace

TEST(CandidateCompiler, CompilesThenHitsTheCacheAndReportsErrors) {
    if (CandidateCompiler::findNvcc().empty())
        GTEST_SKIP() << "no nvcc on this machine";
    std::string cache = ::testing::TempDir() + "/reach-cc-" + std::to_string(getpid());
    std::filesystem::remove_all(cache);
    CandidateCompiler cc(options(cache));
    EXPECT_FALSE(cc.nvccVersion().empty());
    CompileInfo first = cc.compile(kResources + "/controls/positive/relu.cu");
    ASSERT_EQ(first.status, "ok") << first.log;
    EXPECT_TRUE(std::filesystem::exists(first.sharedObject));
    EXPECT_NE(first.sharedObject.find("-sm_90-nvcc"), std::string::npos);
    EXPECT_NE(first.command.find("-arch=sm_90"), std::string::npos);
    CompileInfo again = cc.compile(kResources + "/controls/positive/relu.cu");
    EXPECT_EQ(again.status, "cached");
    EXPECT_EQ(again.sharedObject, first.sharedObject);
    // Another arch is another cache entry.
    auto o = options(cache);
    o.arch = "sm_80";
    EXPECT_NE(CandidateCompiler(o).compile(kResources + "/controls/positive/relu.cu").sharedObject,
              first.sharedObject);
    CompileInfo bad = cc.compile(kResources + "/controls/fault/compile_error.cu");
    EXPECT_EQ(bad.status, "error");
    EXPECT_NE(bad.log.find("error"), std::string::npos);
    EXPECT_TRUE(bad.sharedObject.empty());
    EXPECT_EQ(cc.compile("/nonexistent/candidate.cu").status, "error");
    std::filesystem::remove_all(cache);
}

// Every shipped baseline compiles for Hopper without a warning (nvcc's log is empty of
// "warning"), so a verification on the GPU machine never starts by failing to build its
// baseline. softmax.cu, whose cluster path is guarded by __CUDA_ARCH__ >= 900, also for Ampere.
TEST(CandidateCompiler, EveryBaselineCompilesCleanly) {
    if (CandidateCompiler::findNvcc().empty())
        GTEST_SKIP() << "no nvcc on this machine";
    std::string cache = ::testing::TempDir() + "/reach-cc-baselines-" + std::to_string(getpid());
    std::filesystem::remove_all(cache);
    CandidateCompiler hopper(options(cache));
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(kResources + "/baselines")) {
        if (e.path().extension() != ".cu")
            continue;
        CompileInfo ci = hopper.compile(e.path().string());
        EXPECT_EQ(ci.status, "ok") << e.path() << "\n" << ci.log;
        EXPECT_EQ(ci.log.find("warning"), std::string::npos) << e.path() << "\n" << ci.log;
        ++n;
    }
    EXPECT_GE(n, 13);
    auto o = options(cache);
    o.arch = "sm_80";
    CompileInfo ampere = CandidateCompiler(o).compile(kResources + "/baselines/softmax.cu");
    EXPECT_EQ(ampere.status, "ok") << ampere.log;
    EXPECT_EQ(ampere.log.find("warning"), std::string::npos) << ampere.log;
    std::filesystem::remove_all(cache);
}

}  // namespace reach_test_candidatecompiler_test
