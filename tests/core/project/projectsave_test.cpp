// Save Project As (core/project/projectsave.h): what the GUI holds in memory comes back the same
// from the .reach file, and a failed save leaves the target as it was.
#include "core/project/projectsave.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/base/inputerror.h"
#include "core/project/openplan.h"

namespace reach_test_projectsave_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

const std::string kDatasets = REACH_DATASETS;
const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() /
               ("reach_projectsave_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST(ProjectSave, WhatWasOpenComesBackFromTheFile) {
    // A real profile, a records file, the study's table, and a hand-edited rule set.
    RuleSet edited = RuleSet::builtinDefault();
    edited.setName("edited");
    edited.insertRule(0, Rule{"EmbeddingBag", Category::LibraryOptimized, "embedding", {}});
    Project open = openInputs({kDatasets + "/profiles/h200/dlrm_inference.json.gz", kSmall,
                               kDatasets + "/paper/table3.json"},
                              edited);
    ASSERT_GE(open.workloads.size(), 2u);
    size_t measured = 0;
    for (ProjectWorkload& w : open.workloads)
        if (w.workload) {
            ++measured;
            w.name = "DLRM (renamed)";  // a rename in the GUI
        }
    ASSERT_EQ(measured, 1u);

    TempDir dir;
    const std::string path = (dir.path / "saved.reach").string();
    const SavedProject saved = saveProjectAs(open, path);
    EXPECT_EQ(saved.workloads, 1);
    EXPECT_EQ(saved.recordSets, 1);
    size_t publishedSets = 0;
    for (const EvaluationSet& e : open.evaluations)
        publishedSets += e.published;
    // The study's rows and summaries are named as left out.
    EXPECT_EQ(saved.leftOut.size(), open.workloads.size() - 1 + publishedSets);
    for (const std::string& why : saved.leftOut)
        EXPECT_NE(why.find("published"), std::string::npos) << why;
    EXPECT_FALSE(fs::exists(path + ".saving-" + std::to_string(::getpid())));

    const Project back = openInputs({path}, std::nullopt);
    ASSERT_EQ(back.workloads.size(), 1u);
    EXPECT_EQ(back.workloads[0].name, "DLRM (renamed)");
    EXPECT_EQ(back.rules.hash(), edited.hash());
    ASSERT_TRUE(back.workloads[0].breakdown);
    const ProjectWorkload* before = nullptr;
    for (const ProjectWorkload& w : open.workloads)
        if (w.workload)
            before = &w;
    EXPECT_DOUBLE_EQ(back.workloads[0].breakdown->gpuTimeUs, before->breakdown->gpuTimeUs);
    for (size_t c = 0; c < before->breakdown->categoryUs.size(); ++c)
        EXPECT_DOUBLE_EQ(back.workloads[0].breakdown->categoryUs[c],
                         before->breakdown->categoryUs[c]);
    size_t records = 0;
    for (const EvaluationSet& e : back.evaluations)
        records += e.records.size();
    size_t openRecords = 0;
    for (const EvaluationSet& e : open.evaluations)
        openRecords += e.published ? 0 : e.records.size();
    EXPECT_EQ(records, openRecords);
}

TEST(ProjectSave, AFailedSaveLeavesTheTargetAsItWas) {
    TempDir dir;
    const Project open = openInputs({kSmall}, std::nullopt);
    // The whole project is written, then the rename over the target fails (the target is a
    // folder with the user's file in it): the target is as it was, and no temporary file stays.
    const fs::path target = dir.path / "keep.reach";
    fs::create_directories(target);
    { std::ofstream(target / "mine.txt") << "the user's bytes"; }
    try {
        saveProjectAs(open, target.string());
        FAIL() << "saved over a folder";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), target.string());
    }
    std::ifstream in(target / "mine.txt");
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    EXPECT_EQ(bytes, "the user's bytes");
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir.path)) {
        (void)e;
        ++files;
    }
    EXPECT_EQ(files, 1u);  // keep.reach alone
    // Nowhere to write at all: one line naming the path.
    const std::string nowhere = (dir.path / "no-such-folder" / "x.reach").string();
    EXPECT_THROW(saveProjectAs(open, nowhere), InputError);
}

// Issue 37: nothing is written over a file the numbers were read from. Saving the project over
// the records file it holds (by its name, or a hard link to it) is one line naming the path, and
// the file keeps every byte; over the project it was opened from is a save.
TEST(ProjectSave, NeverOverAFileItWasReadFrom) {
    TempDir dir;
    const fs::path records = dir.path / "records.jsonl";
    fs::copy_file(kSmall, records);
    fs::create_hard_link(records, dir.path / "other-name.reach");
    const auto size = fs::file_size(records);
    const Project open = openInputs({records.string()}, RuleSet::builtinDefault());
    for (const fs::path& target : {records, dir.path / "other-name.reach"}) {
        try {
            saveProjectAs(open, target.string());
            ADD_FAILURE() << "saved over " << target;
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(target.string(), 0), 0u) << e.what();
            EXPECT_NE(std::string(e.what()).find("never writes over its input"), std::string::npos)
                << e.what();
        }
        EXPECT_EQ(fs::file_size(records), size);
    }
    const std::string project = (dir.path / "p.reach").string();
    saveProjectAs(open, project);
    const Project reopened = openInputs({project}, RuleSet::builtinDefault());
    EXPECT_NO_THROW(saveProjectAs(reopened, project));
}

}  // namespace reach_test_projectsave_test
