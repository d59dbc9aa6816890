// The project file under concurrency and permissions (issue 14, defect 6): a busy project is
// waited for from the very first read, two writers of the same file store it once, a project
// without write permission is still readable, and creating a project is atomic.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include "core/base/inputerror.h"
#include "core/store/projectstore.h"
#include "core/store/sqlitedb.h"
#include "tests/core/testfiles.h"

namespace reach_test_projectstore_hardening_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::TempFolder;

namespace {

Workload smallWorkload(const std::string& hash) {
    Workload w;
    w.name = "w";
    w.source = "w.json";
    w.sourceHash = hash;
    w.format = "kineto";
    KernelStats k;
    k.name = "k";
    k.calls = 1;
    k.totalUs = k.minUs = k.maxUs = 2;
    w.kernels.push_back(k);
    w.gpuTimeUs = 2;
    return w;
}

}  // namespace

// The first read of a project ran before busy_timeout was set: a project another process was
// writing (here: an exclusive lock on a rollback-journal file) read as "database is locked".
TEST(ProjectStoreHardening, ABusyProjectIsWaitedForFromTheFirstRead) {
    TempFolder dir;
    const std::string path = dir.path("p.reach");
    ProjectStore::open(path).importWorkload(smallWorkload("aa"));
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE", nullptr, nullptr,
                           nullptr),
              SQLITE_OK);
    std::thread release([db] {
        std::this_thread::sleep_for(std::chrono::milliseconds(700));
        sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
        sqlite3_close(db);
    });
    try {
        ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
        EXPECT_EQ(store.workloadEntries().size(), 1u);
    } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
    }
    release.join();
}

// Without write permission a project is still readable, and reading it writes nothing beside it.
// The reading runs in a child as an unprivileged user when the tests run as root.
TEST(ProjectStoreHardening, AProjectWithoutWritePermissionIsReadable) {
    TempFolder dir;
    const std::string path = dir.path("p.reach");
    ProjectStore::open(path).importWorkload(smallWorkload("bb"));
    ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
    ASSERT_EQ(::chmod(dir.root().c_str(), 0555), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        try {
            ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
            _exit(store.workloadEntries().size() == 1 ? 0 : 1);
        } catch (...) {
            _exit(2);
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
    EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
    EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
    ::chmod(dir.root().c_str(), 0755);
}

// Issue 37: a project's numbers were not checked as an Nsight export's are: a TEXT time read as
// 0 and -1e300 gave nonsense with exit 0. Each is one line naming table, row and column.
TEST(ProjectStoreHardening, ATimeThatIsNoTimeIsRefusedNamingTableRowAndColumn) {
    for (const auto& [sql, place] : std::vector<std::pair<std::string, std::string>>{
             {"UPDATE kernels SET total_us = 'abc'", "table kernels, row 1, column total_us"},
             {"UPDATE kernels SET max_us = -1e300", "table kernels, row 1, column max_us"},
             {"UPDATE kernels SET calls = 1e300", "table kernels, row 1, column calls"},
             {"UPDATE workloads SET gpu_time_us = X'00'",
              "table workloads, row 1, column gpu_time_us"},
             {"UPDATE workloads SET span_us = 1e13", "table workloads, row 1, column span_us"}}) {
        TempFolder dir;
        const std::string path = dir.path("p.reach");
        ProjectStore::open(path).importWorkload(smallWorkload("cc"));
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
        sqlite3_close(db);
        try {
            const ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
            for (const WorkloadEntry& e : store.workloadEntries())
                store.loadWorkload(e.id);
            ADD_FAILURE() << sql << ": accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(e.place(), place) << e.what();
            EXPECT_EQ(std::string(e.what()).rfind(path, 0), 0u) << e.what();
        }
    }
}

}  // namespace reach_test_projectstore_hardening_test
