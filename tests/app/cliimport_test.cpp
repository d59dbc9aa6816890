// reach-cli import: storing profiles in a project, then reading them back with --project.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "clirunner.h"
#include "core/store/projectstore.h"

namespace reach_test_cliimport_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::dataset;
using reach::test::runCli;

namespace {
const std::string kResnet = dataset("profiles/h200/resnet50_inference.json.gz");
const std::string kSimpleAdd = dataset("profiles/public/hta_simple_add_a100.json.gz");
const std::string kTriton = dataset("profiles/public/hta_triton_example_a100.json.gz");
}  // namespace

TEST(CliImport, BreakdownFromTheProjectEqualsBreakdownFromTheFiles) {
    reach::test::TempDir dir;
    const std::string project = dir.path("p.reach");
    const auto imp = runCli({"import", kResnet, kSimpleAdd, "--project", project, "--json"});
    ASSERT_EQ(imp.status, 0) << imp.err;
    const json report = json::parse(imp.out);
    EXPECT_EQ(report["imported"].size(), 2u);
    EXPECT_TRUE(report["skipped"].empty());
    EXPECT_GE(report["schema_version"].get<int>(), 1);

    const auto fromProject = runCli({"breakdown", "--project", project, "--json"});
    const auto fromFiles = runCli({"breakdown", kResnet, kSimpleAdd, "--json"});
    ASSERT_EQ(fromProject.status, 0) << fromProject.err;
    ASSERT_EQ(fromFiles.status, 0) << fromFiles.err;
    EXPECT_EQ(json::parse(fromProject.out), json::parse(fromFiles.out));

    // The text output is the same too (it is made from the same breakdowns).
    EXPECT_EQ(runCli({"breakdown", "--project", project}).out,
              runCli({"breakdown", kResnet, kSimpleAdd}).out);

    // The project remembers the rule set those breakdowns were made with.
    reach::ProjectStore store =
        reach::ProjectStore::open(project, reach::ProjectStore::Mode::MustExist);
    ASSERT_EQ(store.ruleSets().size(), 1u);
    EXPECT_EQ(store.ruleSets()[0].hash, json::parse(fromFiles.out)["rules"]["hash"]);
}

TEST(CliImport, ProjectAndFilesTogether) {
    reach::test::TempDir dir;
    const std::string project = dir.path("p.reach");
    ASSERT_EQ(runCli({"import", kResnet, "--project", project}).status, 0);
    const json doc =
        json::parse(runCli({"breakdown", kTriton, "--project", project, "--json"}).out);
    ASSERT_EQ(doc["workloads"].size(), 2u);
    EXPECT_EQ(doc["workloads"][0]["source"], kResnet);  // project first, then the files
    EXPECT_EQ(doc["workloads"][1]["source"], kTriton);
}

TEST(CliImport, ImportingTheSameBytesAgainIsSkipped) {
    reach::test::TempDir dir;
    const std::string project = dir.path("p.reach");
    ASSERT_EQ(runCli({"import", kTriton, "--project", project}).status, 0);
    const auto again = runCli({"import", kTriton, "--project", project, "--json"});
    ASSERT_EQ(again.status, 0) << again.err;
    const json report = json::parse(again.out);
    EXPECT_TRUE(report["imported"].empty());
    EXPECT_EQ(report["skipped"].size(), 1u);
    EXPECT_EQ(report["workloads"], 1);
}

TEST(CliImport, OneUnreadableFileImportsNothing) {
    reach::test::TempDir dir;
    const std::string project = dir.path("p.reach");
    ASSERT_EQ(runCli({"import", kTriton, "--project", project}).status, 0);
    const std::string bad = dir.path("truncated.json.gz");
    const std::string bytes = reach::test::readFile(kSimpleAdd);
    reach::test::writeFile(bad, bytes.substr(0, bytes.size() / 2));
    const auto r = runCli({"import", kResnet, bad, "--project", project});
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    reach::ProjectStore store =
        reach::ProjectStore::open(project, reach::ProjectStore::Mode::MustExist);
    EXPECT_EQ(store.workloadEntries().size(), 1u);
}

TEST(CliImport, NeedsAProjectAndFiles) {
    reach::test::TempDir dir;
    EXPECT_EQ(runCli({"import", kTriton}).status, 2);
    EXPECT_EQ(runCli({"import", "--project", dir.path("p.reach")}).status, 2);
}

TEST(CliImport, BreakdownOfAMissingProjectDoesNotCreateIt) {
    reach::test::TempDir dir;
    const std::string project = dir.path("missing.reach");
    const auto r = runCli({"breakdown", "--project", project});
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_NE(r.err.find(project), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(project));
}

}  // namespace reach_test_cliimport_test
