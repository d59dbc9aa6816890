// reach-cli and the files it keeps or reads beside other processes (issue 14, defect 6): two
// imports of one file at once store it once, a busy project is waited for, a project or an
// Nsight export without write permission is read without a file appearing beside it.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <thread>

#include "clirunner.h"

namespace reach_test_cliprojectsafety_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::CliOptions;
using reach::test::CliResult;
using reach::test::dataset;
using reach::test::runCli;
using reach::test::startCli;
using reach::test::TempDir;

namespace {

const std::string kTriton = dataset("profiles/public/hta_triton_example_a100.json.gz");
const std::string kResnet = dataset("profiles/h200/resnet50_inference.json.gz");

// One value of one SQL query on a file, opened read-only by the test.
std::string queryOne(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    std::string out = "(cannot open)";
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        sqlite3_stmt* st = nullptr;
        out = "(no row)";
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
            const unsigned char* t = sqlite3_column_text(st, 0);
            out = t ? reinterpret_cast<const char*>(t) : "NULL";
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

std::vector<std::string> filesIn(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

// The duplicate check ran outside the write transaction and source_hash was not unique: two
// imports of the same file started together both stored it.
TEST(CliProjectSafety, TwoImportsOfOneFileAtOnceStoreItOnce) {
    TempDir dir;
    for (int round = 0; round < 8; ++round) {
        // Even rounds race on creating the project, odd rounds on an existing one.
        const std::string project = dir.path("p" + std::to_string(round / 2) + ".reach");
        const std::string file = round % 2 ? kResnet : kTriton;
        auto a = startCli({"import", file, "--project", project, "--json"});
        auto b = startCli({"import", file, "--project", project, "--json"});
        const CliResult ra = a.wait();
        const CliResult rb = b.wait();
        ASSERT_EQ(ra.status, 0) << ra.err;
        ASSERT_EQ(rb.status, 0) << rb.err;
        EXPECT_EQ(json::parse(ra.out)["imported"].size() + json::parse(rb.out)["imported"].size(),
                  1u)
            << "round " << round;
        EXPECT_EQ(queryOne(project, "SELECT count(*) - count(DISTINCT source_hash) FROM workloads"),
                  "0")
            << "round " << round;
    }
}

// The first read ran before busy_timeout was set: "expected an SQLite project file (database
// is locked)" while another connection held the lock.
TEST(CliProjectSafety, ABusyProjectIsWaitedFor) {
    TempDir dir;
    const std::string project = dir.path("p.reach");
    ASSERT_EQ(runCli({"import", kTriton, "--project", project}).status, 0);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(project.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    std::thread release([db] {
        std::this_thread::sleep_for(std::chrono::milliseconds(800));
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
        sqlite3_close(db);
    });
    const CliResult r = runCli({"breakdown", project, "--json"});
    release.join();
    EXPECT_EQ(r.status, 0) << r.err;
}

// A project the user may read but not write (someone else's, a read-only share) could not be
// read at all. Run as an unprivileged user when the tests run as root.
TEST(CliProjectSafety, AReadOnlyProjectIsReadableAndLeftAlone) {
    TempDir dir;
    const std::string folder = dir.path("ro");
    std::filesystem::create_directories(folder);
    const std::string project = folder + "/p.reach";
    ASSERT_EQ(runCli({"import", kTriton, "--project", project}).status, 0);
    const auto before = filesIn(folder);
    ASSERT_EQ(::chmod(project.c_str(), 0444), 0);
    ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);
    CliOptions o;
    o.unprivileged = true;
    const CliResult r = runCli({"breakdown", project, "--json"}, o);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(filesIn(folder), before);
    // Writing to it is refused with one line naming it.
    const CliResult w = runCli({"import", kResnet, "--project", project}, o);
    EXPECT_EQ(w.status, 2) << w.err;
    EXPECT_EQ(w.err.rfind(project + ": ", 0), 0u) << w.err;
    EXPECT_EQ(filesIn(folder), before);
    ::chmod(folder.c_str(), 0755);
}

// Reading a WAL-mode or read-only Nsight export left -wal/-shm files beside it.
TEST(CliProjectSafety, AnNsightExportIsReadWithoutTouchingItsFolder) {
    TempDir dir;
    const std::string folder = dir.path("nsys");
    std::filesystem::create_directories(folder);
    const std::string path = folder + "/saxpy.sqlite";
    std::filesystem::copy_file(dataset("profiles/public/pipit_saxpy_nsys_a100.sqlite"), path);
    ASSERT_EQ(queryOne(path, "PRAGMA journal_mode"), "delete");
    {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr),
                  SQLITE_OK);
        sqlite3_close(db);
    }
    const auto before = filesIn(folder);
    ASSERT_EQ(before, std::vector<std::string>{"saxpy.sqlite"});
    EXPECT_EQ(runCli({"breakdown", path, "--json"}).status, 0);
    EXPECT_EQ(filesIn(folder), before);
    ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
    ASSERT_EQ(::chmod(folder.c_str(), 0555), 0);
    CliOptions o;
    o.unprivileged = true;
    const CliResult r = runCli({"breakdown", path, "--json"}, o);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(filesIn(folder), before);
    ::chmod(folder.c_str(), 0755);
}

}  // namespace reach_test_cliprojectsafety_test
