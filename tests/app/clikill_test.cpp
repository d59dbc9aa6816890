// SIGKILL during `reach-cli import` at random points, 200 times, into new and into existing
// projects (issue 14, defect 6): the project is never left as a stub that a later import refuses,
// never holds a file twice, and always passes `PRAGMA integrity_check`.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "clirunner.h"

namespace reach_test_clikill_test {  // unity builds: this file's names stay its own

using reach::test::CliResult;
using reach::test::dataset;
using reach::test::runCli;
using reach::test::startCli;
using reach::test::TempDir;

namespace {

struct Check {
    std::string integrity = "(no file)";
    long duplicates = 0;
};

Check inspect(const std::string& path) {
    Check c;
    if (!std::filesystem::exists(path))
        return c;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        c.integrity = "(cannot open)";
        sqlite3_close(db);
        return c;
    }
    sqlite3_busy_timeout(db, 5000);
    auto one = [&](const char* sql) {
        sqlite3_stmt* st = nullptr;
        std::string out;
        if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
        return out;
    };
    c.integrity = one("PRAGMA integrity_check");
    const std::string dup = one("SELECT count(*) - count(DISTINCT source_hash) FROM workloads");
    c.duplicates = dup.empty() ? 0 : std::stol(dup);
    sqlite3_close(db);
    return c;
}

}  // namespace

TEST(CliKill, KilledImportsNeverLeaveABrokenOrDuplicatedProject) {
    const std::vector<std::string> files = {
        dataset("profiles/public/hta_triton_example_a100.json.gz"),
        dataset("profiles/public/hta_simple_add_a100.json.gz"),
        dataset("profiles/h200/resnet50_inference.json.gz"),
        dataset("profiles/public/pipit_saxpy_nsys_a100.sqlite")};
    TempDir dir;
    // How long one import takes here, so the kills land anywhere inside one.
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(runCli({"import", files[2], "--project", dir.path("timing.reach")}).status, 0);
    const double importMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    std::mt19937 rng(14);
    std::uniform_real_distribution<double> when(0.0, 1.2 * importMs);
    const std::string existing = dir.path("existing.reach");
    int killed = 0;
    for (int i = 0; i < 200; ++i) {
        const bool fresh = i % 2 == 0;
        // A new project gets a folder of its own, so its first file (the project or a temporary
        // file it is built in) is easy to see appear.
        const std::string folder = dir.path("new" + std::to_string(i));
        if (fresh)
            std::filesystem::create_directories(folder);
        const std::string project = fresh ? folder + "/p.reach" : existing;
        const std::string& file = files[size_t(i / 2) % files.size()];
        auto p = startCli({"import", file, "--project", project});
        if (fresh) {
            // Reading the profile is most of an import; creating the project a few milliseconds
            // at its end. Kill there: soon after the project's name appears in the folder.
            std::uniform_int_distribution<int> soon(0, 3000);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
            while (std::filesystem::is_empty(folder) &&
                   std::chrono::steady_clock::now() < deadline) {
                std::this_thread::sleep_for(std::chrono::microseconds(50));
            }
            std::this_thread::sleep_for(std::chrono::microseconds(soon(rng)));
        } else {
            std::this_thread::sleep_for(std::chrono::microseconds(long(when(rng) * 1000)));
        }
        p.kill();
        const CliResult r = p.wait();
        killed += r.crashed ? 1 : 0;
        ASSERT_TRUE(r.crashed || r.status == 0) << "iteration " << i << ": " << r.err;

        Check c = inspect(project);
        if (c.integrity != "(no file)") {
            ASSERT_EQ(c.integrity, "ok") << "iteration " << i;
        }
        ASSERT_EQ(c.duplicates, 0) << "iteration " << i;
        // A project file that exists is a project: reading it works (a stub left by a kill
        // during creation, 0 or 4096 bytes without tables, was refused here).
        if (std::filesystem::exists(project)) {
            const CliResult read = runCli({"breakdown", project, "--json"});
            ASSERT_EQ(read.status, 0) << "iteration " << i << ": " << read.err;
        }
        // Whatever the kill left, the next import works.
        const CliResult again = runCli({"import", file, "--project", project, "--json"});
        ASSERT_EQ(again.status, 0) << "iteration " << i << ": " << again.err;
        c = inspect(project);
        ASSERT_EQ(c.integrity, "ok") << "iteration " << i;
        ASSERT_EQ(c.duplicates, 0) << "iteration " << i;
    }
    // Most runs were really killed part-way (a test that never kills tests nothing).
    EXPECT_GT(killed, 100) << "only " << killed << " of 200 runs were killed";
    // What a killed creation leaves besides the project is a hidden temporary file, never a
    // file a user would take for a project.
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.root())) {
        const std::string name = e.path().filename().string();
        EXPECT_TRUE(e.is_directory() || name.ends_with(".reach") || name.rfind(".", 0) == 0)
            << name;
    }
}

}  // namespace reach_test_clikill_test
