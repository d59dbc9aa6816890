// A project's schema, edited by a stranger (issue 24): the input is SQL, run with SQLite itself on
// a copy of a project Reach made (triggers, views, tables, indexes, ALTERs, writable_schema...),
// before Reach opens the result, reads everything and imports a workload. The byte-level
// `project` target rarely reaches a schema that still parses; this one starts from one.
//
// Findings beyond crashes and hangs: an import that Reach accepted must read back as it was
// written, and nothing already in the project may change, whether Reach accepted the file or
// refused it (nothing in the file itself may change a project's records).
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"
#include "tests/fuzz/fuzzsupport.h"

namespace {

using namespace reach;

Workload smallWorkload(const std::string& hash, double us) {
    Workload w;
    w.name = "w" + hash;
    w.source = "w.json";
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

// The bytes of a project Reach made: a workload, a record set, a rule set.
const std::string& seedProject() {
    static const std::string bytes = [] {
        const std::string path = fuzz::workDir() + "/seed.reach";
        {
            ProjectStore store = ProjectStore::open(path);
            store.importWorkload(smallWorkload("aa", 5));
            EvalRecord r;
            r.problemId = "23";
            r.problemName = "23_Softmax";
            r.compiled = r.correct = true;
            r.candidateTimeUs = 2;
            r.speedup = 1.5;
            importRecordSet(store, "set", "set.jsonl", "reach-jsonl", {r, r});
            store.saveRuleSet("rules", "h", "{\"rules\":[]}");
        }
        std::ifstream in(path, std::ios::binary);
        return std::string((std::istreambuf_iterator<char>(in)), {});
    }();
    return bytes;
}

// The stranger's sqlite3 shell, bounded so that the harness itself always ends: an input may
// well be an endless recursive CTE, or a printf() of a long string (one SQLite instruction,
// which no progress handler interrupts: under ASan 900 KB of it took 11 s). Long values are the
// business of the tests of the limits (ProjectSchema, CliSqliteLimits), not of this target.
int stop(void*) {
    return 1;
}
void runStrangersSql(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 64 << 10);
        sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
        sqlite3_progress_handler(db, 2'000'000, stop, nullptr);
        sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    }
    sqlite3_close(db);
}

// Every row of the tables Reach keeps records in, read as data (no views, no triggers), except
// the rows of the workload `skip` (the one Reach imported).
std::string contents(const std::string& path, int64_t skip) {
    sqlite3* db = nullptr;
    std::string out;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return "(cannot open)";
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_progress_handler(db, 20'000'000, stop, nullptr);
    const std::string id = std::to_string(skip);
    for (const std::string& sql :
         {"SELECT * FROM workloads WHERE id <> " + id + " ORDER BY rowid",
          "SELECT * FROM kernels WHERE workload_id <> " + id + " ORDER BY rowid",
          "SELECT * FROM kernel_operators WHERE kernel_id NOT IN (SELECT id FROM kernels WHERE "
          "workload_id = " +
              id + ") ORDER BY rowid",
          std::string("SELECT * FROM record_sets ORDER BY rowid"),
          std::string("SELECT * FROM eval_records ORDER BY rowid"),
          std::string("SELECT * FROM rule_sets ORDER BY rowid")}) {
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
            out += "(no table)\n";
            sqlite3_finalize(st);
            continue;
        }
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); ++c) {
                const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
                out += t ? t : "NULL";
                out += '|';
            }
            out += '\n';
        }
        out += "(" + std::to_string(rc) + ")\n";
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string& seed = seedProject();
    const std::string path = fuzz::writeInput("schema.reach", seed);
    for (const char* suffix : {"-wal", "-shm", "-journal"})
        ::unlink((path + suffix).c_str());
    runStrangersSql(path, std::string(fuzz::asText(data, size)));
    const std::string before = contents(path, -1);

    int64_t imported = -1;
    try {
        fuzz::acceptingInputErrors([&] {
            ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
            for (const Workload& w : store.workloads())
                fuzz::useWorkload(w);
            for (const RecordSetEntry& s : recordSets(store))
                fuzz::useRecords(loadRecordSet(store, s.id));
            (void)store.ruleSets();
            (void)loadVerifications(store);
            const Workload w = smallWorkload("fuzz", 11);
            imported = store.importWorkload(w);
            const Workload back = store.loadWorkload(imported);
            // A trigger that multiplied the kernel times, or one that removed the kernel, would
            // have changed what was just written.
            if (back.kernels.size() != 1 || back.kernels[0].totalUs != 11 ||
                back.kernels[0].name != w.kernels[0].name)
                std::abort();
        });
    } catch (const SqliteError&) {
        // A file SQLite cannot read is refused with one line (reach-cli: exit 2).
    }
    if (contents(path, imported) != before)
        std::abort();  // something in the file changed the project's records
    return 0;
}
