// Bad input never crashes reach-cli: every reading subcommand exits with status 2 and prints
// exactly one line on stderr naming the file. Inputs: tests/data/bad-cli/ (ours, see its
// README), tests/data/bad/ (the readers' fixtures, when present), a directory, a missing file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "clirunner.h"

namespace reach_test_clibadinput_test {  // unity builds: this file's names stay its own

namespace fs = std::filesystem;
using reach::test::runCli;

namespace {

std::vector<std::string> badFiles() {
    std::vector<std::string> files;
    for (const char* sub : {"bad-cli", "bad"}) {
        const fs::path dir = fs::path(REACH_TEST_DATA) / sub;
        std::error_code ec;
        if (!fs::is_directory(dir, ec))
            continue;
        for (const auto& entry : fs::directory_iterator(dir)) {
            const std::string name = entry.path().filename().string();
            if (!entry.is_regular_file() || name.starts_with("README"))
                continue;
            files.push_back(entry.path().string());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
    const fs::path p(info.param);
    std::string name = p.parent_path().filename().string() + "_" + p.filename().string();
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)))
            c = '_';
    }
    return name;
}

// The contract for one run on one bad file.
void expectRefused(const reach::test::CliResult& r, const std::string& file) {
    EXPECT_FALSE(r.crashed) << "killed by signal " << r.status - 128;
    EXPECT_EQ(r.status, 2) << r.err;
    const auto lines = r.errLines();
    ASSERT_EQ(lines.size(), 1u) << "stderr:\n" << r.err;
    EXPECT_NE(lines[0].find(file), std::string::npos) << "does not name the file: " << lines[0];
    // More than the name alone: the place or what was expected.
    EXPECT_GT(lines[0].size(), file.size() + 10) << lines[0];
    EXPECT_TRUE(r.out.empty()) << "stdout: " << r.out.substr(0, 200);
}

class CliBadInput : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST(CliBadInputFixtures, ArePresent) {
    EXPECT_GE(badFiles().size(), 8u) << "tests/data/bad-cli is missing";
}

TEST_P(CliBadInput, BreakdownRefusesIt) {
    expectRefused(runCli({"breakdown", GetParam()}), GetParam());
    expectRefused(runCli({"breakdown", GetParam(), "--json"}), GetParam());
}

TEST_P(CliBadInput, BreakdownNamesTheBadFileAmongGoodOnes) {
    const std::string good =
        reach::test::dataset("profiles/public/hta_triton_example_a100.json.gz");
    expectRefused(runCli({"breakdown", good, GetParam(), "--json"}), GetParam());
}

TEST_P(CliBadInput, DiffRefusesItAsAOrB) {
    const std::string good =
        reach::test::dataset("profiles/public/hta_triton_example_a100.json.gz");
    expectRefused(runCli({"diff", GetParam(), good}), GetParam());
    expectRefused(runCli({"diff", good, GetParam(), "--json"}), GetParam());
}

TEST_P(CliBadInput, ImportRefusesItAndCreatesNoProject) {
    reach::test::TempDir dir;
    const std::string project = dir.path("p.reach");
    expectRefused(runCli({"import", GetParam(), "--project", project}), GetParam());
    EXPECT_FALSE(fs::exists(project));
}

TEST_P(CliBadInput, ProjectAndRulesCheckRefuseIt) {
    expectRefused(runCli({"project", GetParam(), "--win-rate", "0.4", "--median", "2"}),
                  GetParam());
    expectRefused(runCli({"rules", "check", GetParam()}), GetParam());
}

TEST_P(CliBadInput, RefusedAsARuleFile) {
    expectRefused(runCli({"rules", "--rules", GetParam()}), GetParam());
}

TEST_P(CliBadInput, RefusedAsAProjectAndLeftUntouched) {
    reach::test::TempDir dir;
    const std::string copy = dir.path(fs::path(GetParam()).filename().string());
    fs::copy_file(GetParam(), copy);
    const std::string before = reach::test::readFile(copy);
    expectRefused(runCli({"breakdown", "--project", copy}), copy);
    EXPECT_TRUE(reach::test::readFile(copy) == before) << "the file was modified";
}

INSTANTIATE_TEST_SUITE_P(Files, CliBadInput, ::testing::ValuesIn(badFiles()), testName);

TEST(CliBadInputPaths, DirectoryAndMissingFile) {
    reach::test::TempDir dir;
    const std::string missing = dir.path("no-such-trace.json.gz");
    for (const std::string& path : {dir.root(), missing}) {
        SCOPED_TRACE(path);
        expectRefused(runCli({"breakdown", path}), path);
        expectRefused(runCli({"breakdown", path, "--json"}), path);
        expectRefused(runCli({"import", path, "--project", dir.path("p.reach")}), path);
        expectRefused(runCli({"project", path, "--win-rate", "0.4", "--median", "2"}), path);
        expectRefused(runCli({"rules", "check", path}), path);
        expectRefused(runCli({"rules", "--rules", path}), path);
        expectRefused(
            runCli({"diff", path,
                    reach::test::dataset("profiles/public/hta_triton_example_a100.json.gz")}),
            path);
        expectRefused(runCli({"breakdown", "--project", path}), path);
    }
    EXPECT_FALSE(fs::exists(dir.path("p.reach")));
}

TEST(CliBadInputPaths, AnotherKindOfSqliteFileIsNotAProject) {
    reach::test::TempDir dir;
    const std::string copy = dir.path("saxpy.sqlite");
    fs::copy_file(reach::test::dataset("profiles/public/pipit_saxpy_nsys_a100.sqlite"), copy);
    const std::string before = reach::test::readFile(copy);
    expectRefused(
        runCli({"import", reach::test::dataset("profiles/public/hta_triton_example_a100.json.gz"),
                "--project", copy}),
        copy);
    EXPECT_TRUE(reach::test::readFile(copy) == before) << "the nsys export was modified";
}

}  // namespace reach_test_clibadinput_test
