// A benchmark folder is a stranger's as much as a trace is: issue 37 made every reader of one
// (project --benchmark, integrate, the GUI, reach-verify learning a problem's precision) hash
// each listed problem whole, so 20 hard links to a sparse 1 GB file (32 KB on disk) cost each
// 30 s, and two names of one problem's bytes matched one verified run twice.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "core/base/inputerror.h"
#include "core/benchmark/problemsource.h"
#include "core/ownbenchmark/benchmarkfolder.h"
#include "tests/core/testfiles.h"

using namespace reach;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

class BenchmarkFolderRead : public ::testing::Test {
protected:
    void SetUp() override { fs::create_directories(dir); }

    void problem(const std::string& file, const std::string& bytes) {
        std::ofstream(dir / file, std::ios::binary) << bytes;
    }
    // benchmark.json listing `files`, each with one kernel of 10 us of a 1000 us workload, its
    // recorded call in bf16.
    void list(const std::vector<std::string>& files) {
        json problems = json::array();
        for (const std::string& f : files)
            problems.push_back({{"file", f},
                                {"operator", "aten::relu"},
                                {"signature", {{"dims", {{4}}}, {"types", {"c10::BFloat16"}}}},
                                {"kernels", {{{"name", "k"}, {"calls", 1}, {"gpu_us", 10.0}}}}});
        std::ofstream(dir / "benchmark.json") << json{
            {"profile", "p.json"},
            {"profile_sha256", std::string(64, 'a')},
            {"category", "addressable"},
            {"gpu_us", 1000.0},
            {"problems", problems}}.dump();
    }
    std::string error(const std::string& only = {}) {
        try {
            readBenchmarkFolder(dir.string(), only);
        } catch (const InputError& e) {
            return e.what();
        }
        return {};
    }
    reach::test::TempFolder folder;  // removed with the fixture
    fs::path dir = folder.root();
};

}  // namespace

TEST_F(BenchmarkFolderRead, EachProblemIsReadAndHashed) {
    problem("a.py", "a = 1\n");
    problem("b.py", "b = 2\n");
    list({"a.py", "b.py"});
    const BenchmarkFolder b = readBenchmarkFolder(dir.string());
    ASSERT_EQ(b.problems.size(), 2u);
    EXPECT_EQ(b.problems[0].sha256.size(), 64u);
    EXPECT_NE(b.problems[0].sha256, b.problems[1].sha256);
}

TEST_F(BenchmarkFolderRead, AHardLinkIsRefused) {
    problem("a.py", "a = 1\n");
    fs::create_hard_link(dir / "a.py", dir / "b.py");
    list({"a.py"});
    const std::string e = error();
    EXPECT_NE(e.find("benchmark.json: problems[0].file"), std::string::npos) << e;
    EXPECT_NE(e.find("hard links"), std::string::npos) << e;
}

TEST_F(BenchmarkFolderRead, OneProblemsBytesUnderTwoNamesAreRefused) {
    problem("a.py", "same = 1\n");
    problem("b.py", "same = 1\n");
    list({"a.py", "b.py"});
    const std::string e = error();
    EXPECT_NE(e.find("problems[1].file"), std::string::npos) << e;
    EXPECT_NE(e.find("'b.py' has the bytes of 'a.py'"), std::string::npos) << e;
}

TEST_F(BenchmarkFolderRead, ALargeSparseProblemIsRefusedBeforeItIsRead) {
    problem("a.py", "a = 1\n");
    { std::ofstream(dir / "big.py"); }
    fs::resize_file(dir / "big.py", uintmax_t(1) << 30);  // 1 GiB, nothing on disk
    list({"a.py", "big.py"});
    const auto start = std::chrono::steady_clock::now();
    const std::string e = error();
    EXPECT_NE(e.find("problems[1].file: expected a problem file of at most 1024 KiB"),
              std::string::npos)
        << e;
    // Refused from its size: not hashed (hashing 1 GiB of zeros takes seconds).
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(BenchmarkFolderRead, ProblemsOfMoreThanTheBudgetInAllAreRefused) {
    std::vector<std::string> files;
    const std::string body(kMaxProblemFileBytes - 64, '#');
    for (int i = 0; i * (kMaxProblemFileBytes - 64) <= kMaxBenchmarkBytes; ++i) {
        files.push_back("p" + std::to_string(i) + ".py");
        problem(files.back(), body + "\nx = " + std::to_string(i) + "\n");
    }
    list(files);
    const std::string e = error();
    EXPECT_NE(e.find("MiB in all"), std::string::npos) << e;
}

// reach-verify learns one problem's precision: its neighbours are neither read nor hashed.
TEST_F(BenchmarkFolderRead, OneProblemIsReadWithoutItsNeighbours) {
    problem("a.py", "a = 1\n");
    { std::ofstream(dir / "big.py"); }
    fs::resize_file(dir / "big.py", uintmax_t(1) << 30);
    list({"a.py", "big.py"});
    EXPECT_EQ(error("a.py"), "");
    const BenchmarkFolder b = readBenchmarkFolder(dir.string(), "a.py");
    EXPECT_EQ(b.problems[0].sha256.size(), 64u);
    EXPECT_TRUE(b.problems[1].sha256.empty());
    EXPECT_EQ(recordedCallPrecision((dir / "a.py").string()), "bf16");
}

// The problem file says its precision itself: no benchmark.json is read for it, and its word
// wins over a folder's (issue 39: one place says it, the file extract wrote).
TEST_F(BenchmarkFolderRead, TheProblemFileSaysItsPrecision) {
    problem("said.py", std::string("# -*- coding: utf-8 -*-\n# made by extract\n# profile: x\n") +
                           kPrecisionLine + "fp16\nimport torch\n");
    EXPECT_EQ(recordedCallPrecision((dir / "said.py").string()), "fp16");  // no benchmark.json
    list({"said.py"});                                                     // it lists bf16
    EXPECT_EQ(recordedCallPrecision((dir / "said.py").string()), "fp16");
    // After the leading comments a line is code, not the file's word.
    problem("late.py", std::string("import torch\n") + kPrecisionLine + "fp16\n");
    EXPECT_EQ(readProblemPrecision((dir / "late.py").string()), std::nullopt);
    problem("bad.py", std::string(kPrecisionLine) + "fp8\n");
    EXPECT_THROW(readProblemPrecision((dir / "bad.py").string()), InputError);
}
