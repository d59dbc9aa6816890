// Projects made by a stranger (issue 24): a project is Reach's own file, but SQLite files carry
// code. Its schema must be exactly what the migrations made before anything reads or writes it
// (a trigger deleted records and multiplied kernel times on import, a view hung every read);
// triggers and views are off on every connection anyway; a damaged project is not written to;
// a value past the kept-string limit is refused unread; a path that is not a regular file is
// refused before SQLite touches it; every statement has a time budget.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/base/inputerror.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/schema.h"
#include "core/store/sqlitedb.h"
#include "tests/core/sqlitefiles.h"
#include "tests/core/testfiles.h"

namespace reach_test_projectschema_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::applySql;
using reach::test::projectContents;
using reach::test::TempFolder;

namespace {

Workload workload(const std::string& hash, double us) {
    Workload w;
    w.name = "w" + hash;
    w.source = "w" + hash + ".json";
    w.sourceHash = hash;
    w.format = "kineto";
    KernelStats k;
    k.name = "void at::native::vectorized_elementwise_kernel<4>(int)";
    k.calls = 2;
    k.totalUs = us;
    k.minUs = us / 4;
    k.maxUs = us * 3 / 4;
    k.streams = {7};
    k.operators = {{"aten::add", us, 2}};
    w.kernels = {k};
    w.gpuTimeUs = us;
    return w;
}

// A project with two workloads and a record set, made through the store.
std::string makeProject(const TempFolder& dir, const std::string& name) {
    const std::string path = dir.path(name);
    ProjectStore store = ProjectStore::open(path);
    store.importWorkload(workload("aa", 5));
    store.importWorkload(workload("bb", 7));
    EvalRecord r;
    r.problemId = "23";
    r.problemName = "23_Softmax";
    r.compiled = r.correct = true;
    r.candidateTimeUs = 2;
    r.speedup = 1.5;
    importRecordSet(store, "set", "set.jsonl", "reach-jsonl", {r, r, r});
    store.saveRuleSet(RuleSet::builtinDefault());
    return path;
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

// What `f` throws must be one line that starts with the file and contains each of `parts`.
template <class F>
void expectRefused(const std::string& path, const std::vector<std::string>& parts, F&& f) {
    SCOPED_TRACE(path);
    const auto start = std::chrono::steady_clock::now();
    try {
        f();
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        for (const std::string& p : parts)
            EXPECT_NE(msg.find(p), std::string::npos) << "no '" << p << "' in: " << msg;
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took.count(), 5.0);
}

void expectOpenRefused(const std::string& path, const std::vector<std::string>& parts) {
    expectRefused(path, parts, [&] {
        ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
        (void)store.workloads();
    });
}

}  // namespace

TEST(ProjectSchema, APreviousVersionIsAcceptedAndMigrated) {
    TempFolder dir;
    const std::string path = makeProject(dir, "old.reach");
    // As a project looked before migration 6: its version row and its index are not there.
    ASSERT_EQ(applySql(path,
                       "DELETE FROM schema_version WHERE version = 6; DROP INDEX "
                       "workloads_source_hash_unique"),
              "");
    ProjectStore store = ProjectStore::open(path);
    EXPECT_EQ(store.schemaVersion(), latestSchemaVersion());
    EXPECT_EQ(store.workloadEntries().size(), 2u);
}

TEST(ProjectSchema, AnythingTheMigrationsDidNotMakeIsRefusedNamingIt) {
    TempFolder dir;
    const std::string base = makeProject(dir, "base.reach");
    const struct {
        const char* sql;
        const char* place;
    } cases[] = {
        {"CREATE TRIGGER t AFTER INSERT ON workloads BEGIN DELETE FROM eval_records; END",
         "trigger t"},
        {"CREATE VIEW v AS SELECT 1", "view v"},
        {"CREATE TABLE extra(x)", "table extra"},
        {"CREATE INDEX kernels_name ON kernels(name)", "index kernels_name"},
        {"ALTER TABLE kernels ADD COLUMN evil TEXT", "table kernels"},
        {"ANALYZE", "table sqlite_stat1"},
        {"DROP INDEX workloads_source_hash", "index workloads_source_hash"},
        {"ALTER TABLE rule_sets RENAME TO r0; CREATE TABLE rule_sets AS SELECT * FROM r0; DROP "
         "TABLE r0",
         "table rule_sets"},
        {"CREATE TABLE Extra2(x); CREATE TRIGGER \"WORKLOADS\" AFTER INSERT ON Extra2 BEGIN "
         "SELECT 1; END",
         "trigger WORKLOADS"},
    };
    int n = 0;
    for (const auto& c : cases) {
        const std::string path = dir.path("case" + std::to_string(n++) + ".reach");
        std::filesystem::copy_file(base, path);
        ASSERT_EQ(applySql(path, c.sql), "") << c.sql;
        const std::string before = projectContents(path);
        expectOpenRefused(path, {c.place});
        EXPECT_EQ(projectContents(path), before) << c.sql;
    }
}

TEST(ProjectSchema, AWorkloadsViewIsRefusedAlsoWhenReadOnly) {
    TempFolder dir;
    const std::string path = makeProject(dir, "view.reach");
    ASSERT_EQ(applySql(path, test::endlessViewSql("workloads", "w0")), "");
    expectOpenRefused(path, {"view workloads", "expected the table"});
    // A read-only file in a read-only folder (as on a read-only mount): opened immutable, and
    // refused the same way. As an unprivileged user when the tests run as root.
    ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
    ASSERT_EQ(::chmod(dir.root().c_str(), 0555), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        try {
            ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
            (void)store.workloads();
            _exit(1);
        } catch (const InputError& e) {
            _exit(std::string(e.what()).find("view workloads") != std::string::npos ? 0 : 4);
        } catch (...) {
            _exit(5);
        }
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ::chmod(dir.root().c_str(), 0755);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
}

// Each trigger of issue 24 on a project Reach imports into: the import is refused before it
// writes, and the project's records are exactly as they were.
TEST(ProjectSchema, ATriggerNeverRunsAndTheRecordsStayAsTheyWere) {
    TempFolder dir;
    const std::string base = makeProject(dir, "base.reach");
    for (const test::HostileTrigger& t : test::hostileTriggers()) {
        SCOPED_TRACE(t.name);
        const std::string path = dir.path(std::string(t.name) + ".reach");
        std::filesystem::copy_file(base, path);
        ASSERT_EQ(applySql(path, t.sql), "");
        const std::string before = projectContents(path);
        expectRefused(path, {std::string("trigger ") + t.name}, [&] {
            ProjectStore store = ProjectStore::open(path);
            store.importWorkload(workload("cc", 11));
        });
        EXPECT_EQ(projectContents(path), before);
    }
}

// The second line of defence: a connection has triggers and views off even before the schema
// check, and foreign-key cascades (which are not triggers) still work.
TEST(ProjectSchema, TriggersAndViewsAreOffOnEveryConnection) {
    TempFolder dir;
    const std::string path = makeProject(dir, "p.reach");
    ASSERT_EQ(applySql(path,
                       "CREATE TRIGGER t AFTER INSERT ON rule_sets BEGIN DELETE FROM "
                       "eval_records; END; CREATE VIEW v AS SELECT 1"),
              "");
    SqliteDb db = SqliteDb::open(path, SqliteDb::Mode::MustExist);
    db.exec("PRAGMA foreign_keys = ON");
    db.exec("INSERT INTO rule_sets(name, hash, json, saved_at) VALUES('n', 'h', '{}', '')");
    EXPECT_EQ(test::queryOne(path, "SELECT count(*) FROM eval_records"), "3");
    EXPECT_THROW(db.prepare("SELECT * FROM v"), SqliteError);
    db.exec("DELETE FROM workloads WHERE source_hash = 'aa'");
    EXPECT_EQ(test::queryOne(path, "SELECT count(*) FROM kernels"), "1");
    EXPECT_EQ(test::queryOne(path, "SELECT count(*) FROM kernel_operators"), "1");
}

// `import` into a project truncated by 1000 bytes exited 0 and wrote into the damaged file.
// Truncated by whole pages, the file is still refused: its header counts more pages than it has.
// Damaged inside, quick_check finds it before the first write.
TEST(ProjectSchema, ADamagedProjectIsNeitherReadNorWrittenTo) {
    TempFolder dir;
    const std::string base = makeProject(dir, "base.reach");
    const auto size = std::filesystem::file_size(base);
    for (const uintmax_t cut : {uintmax_t(1000), uintmax_t(4096)}) {
        const std::string path = dir.path("cut" + std::to_string(cut) + ".reach");
        std::filesystem::copy_file(base, path);
        std::filesystem::resize_file(path, size - cut);
        const std::string bytes = readAll(path);
        expectOpenRefused(path, {"byte " + std::to_string(size - cut), "truncated"});
        expectRefused(path, {"truncated"}, [&] {
            ProjectStore store = ProjectStore::open(path);
            store.importWorkload(workload("cc", 11));
        });
        EXPECT_TRUE(readAll(path) == bytes) << "the damaged project was written to";
    }
    // A b-tree page overwritten in the middle: the file is whole, its content is not.
    const std::string path = dir.path("garbled.reach");
    std::filesystem::copy_file(base, path);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(2 * 4096 + 8);
        const std::string junk(200, '\x7f');
        f.write(junk.data(), std::streamsize(junk.size()));
    }
    const std::string bytes = readAll(path);
    expectRefused(path, {"quick_check", "damaged"}, [&] {
        ProjectStore store = ProjectStore::open(path);
        store.importWorkload(workload("cc", 11));
    });
    EXPECT_TRUE(readAll(path) == bytes) << "the damaged project was written to";
}

TEST(ProjectSchema, ANameOfTwoHundredMegabytesIsRefusedNamingTableRowAndColumn) {
    TempFolder dir;
    const std::string path = makeProject(dir, "long.reach");
    ASSERT_EQ(
        applySql(path, "UPDATE kernels SET name = printf('%.*c', 200000000, 'x') WHERE id = 2"),
        "");
    expectOpenRefused(path, {"table kernels, row 2, column name", "200000000 bytes", "16 MiB"});
    // Past the kept-string limit but within SQLite's (which leaves room for the rest of a row).
    ASSERT_EQ(
        applySql(path, "UPDATE kernels SET name = printf('%.*c', 16777300, 'x') WHERE id = 2"), "");
    expectOpenRefused(path, {"table kernels, row 2, column name", "16777300 bytes"});
}

TEST(ProjectSchema, APathThatIsNotARegularFileIsRefusedBeforeSqliteTouchesIt) {
    TempFolder dir;
    const bool journalBefore = std::filesystem::exists("/dev/zero-journal");
    const std::string zero = dir.path("zero.reach");
    std::filesystem::create_symlink("/dev/zero", zero);
    expectRefused(zero, {"character device", "symbolic link"}, [&] {
        ProjectStore store = ProjectStore::open(zero);
        store.importWorkload(workload("cc", 11));
    });
    if (!journalBefore) {
        EXPECT_FALSE(std::filesystem::exists("/dev/zero-journal"));
    }

    const std::string fifo = dir.path("fifo.reach");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expectRefused(fifo, {"FIFO"}, [&] { ProjectStore::open(fifo); });

    const std::string dangling = dir.path("dangling.reach");
    std::filesystem::create_symlink(dir.path("elsewhere/nothing.reach"), dangling);
    expectRefused(dangling, {"symbolic link to nothing"}, [&] { ProjectStore::open(dangling); });
    EXPECT_FALSE(std::filesystem::exists(dir.path("elsewhere")));
}

// The progress handler's budget: a statement that works without returning a row is interrupted
// (here with the budget shortened; docs/limits.md gives the real one).
TEST(ProjectSchema, AStatementPastItsTimeBudgetIsInterrupted) {
    TempFolder dir;
    const std::string path = makeProject(dir, "p.reach");
    SqliteDb db = SqliteDb::open(path, SqliteDb::Mode::MustExist);
    db.setStepBudget(std::chrono::milliseconds(200));
    expectRefused(path, {"longer than the limit of 200 ms"}, [&] {
        SqliteStatement st = db.prepare(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) "
            "FROM c");
        st.step();
    });
    // The connection is usable afterwards, and a statement that returns rows is not cut short.
    SqliteStatement rows = db.prepare("SELECT count(*) FROM workloads");
    ASSERT_TRUE(rows.step());
    EXPECT_EQ(rows.columnInt(0), 2);
}

}  // namespace reach_test_projectschema_test
