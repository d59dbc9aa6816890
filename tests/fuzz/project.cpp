// A project file (.reach, SQLite): opened and read the way every front end reads one.
#include "core/project/openplan.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("project.reach", fuzz::asText(data, size));
    for (const char* suffix : {"-wal", "-shm", "-journal"})
        ::unlink((path + suffix).c_str());
    try {
        fuzz::acceptingInputErrors([&] {
            {
                ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
                for (const StoredRuleSet& r : store.ruleSets())
                    (void)store.loadRuleSet(r.hash);
                (void)store.latestRuleSet();
                (void)mappingPresets(store);
                (void)loadVerifications(store);
                for (const RecordSetEntry& s : recordSets(store))
                    fuzz::useRecords(loadRecordSet(store, s.id));
            }
            const Project p = openInputs({path}, std::nullopt);
            for (const auto& w : p.workloads) {
                if (w.workload)
                    fuzz::useWorkload(*w.workload);
            }
        });
    } catch (const SqliteError&) {
        // A malformed database is refused with one line (reach-cli: exit 2), like InputError.
    }
    return 0;
}
