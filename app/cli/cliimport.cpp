// reach-cli import FILE... --project P.reach [--json]
#include <nlohmann/json.hpp>

#include <ostream>

#include "app/args/cliargs.h"
#include "clicommand.h"
#include "cliinputs.h"
#include "clitext.h"
#include "core/base/textescape.h"
#include "core/store/projectstore.h"

namespace reach::cli {

namespace {

int runImport(const std::vector<std::string>& argv, CliIo& io) {
    const CliArgs args(argv, {{"--json"}, {"--project"}});
    const auto project = args.value("--project");
    if (!project)
        throw UsageError("--project P.reach is required");
    if (args.positionals().empty())
        throw UsageError("no profile files to import");

    // Read every file before writing anything, so one unreadable file leaves the project as it
    // was; then each workload is stored in its own transaction.
    const std::vector<Workload> workloads = readProfiles(args.positionals());
    ProjectStore store = ProjectStore::open(*project);

    nlohmann::json imported = nlohmann::json::array();
    nlohmann::json skipped = nlohmann::json::array();
    for (const Workload& w : workloads) {
        const ProjectStore::ImportOnce once = store.importWorkloadOnce(w);
        if (once.existed) {
            skipped.push_back({{"source", w.source},
                               {"existing_id", once.id},
                               {"reason", "a file with the same bytes is already imported"}});
            continue;
        }
        const int64_t id = once.id;
        imported.push_back({{"id", id},
                            {"name", w.name},
                            {"source", w.source},
                            {"kernels", w.kernels.size()},
                            {"gpu_time_us", w.gpuTimeUs}});
    }

    if (args.flag("--json")) {
        nlohmann::json doc{{"project", store.path()},
                           {"schema_version", store.schemaVersion()},
                           {"imported", imported},
                           {"skipped", skipped},
                           {"workloads", store.workloadEntries().size()}};
        io.out << reach::dumpJson(doc) << "\n";
        return kExitOk;
    }
    for (const auto& i : imported) {
        io.out << "imported " << i["name"].get<std::string>() << " (" << i["kernels"].get<size_t>()
               << " kernels, " << duration(i["gpu_time_us"].get<double>()) << " GPU time) as #"
               << i["id"].get<int64_t>() << "\n";
    }
    for (const auto& s : skipped) {
        io.out << "skipped " << s["source"].get<std::string>() << ": already imported as #"
               << s["existing_id"].get<int64_t>() << "\n";
    }
    io.out << store.path() << ": " << store.workloadEntries().size()
           << " workload(s), schema version " << store.schemaVersion() << "\n";
    return kExitOk;
}

}  // namespace

CliCommand importCommand() {
    return {"import", "store profiles in a project file (.reach, SQLite)",
            "import FILE... --project P.reach [--json]\n"
            "  Creates the project when missing. Every file is read first; each is then stored\n"
            "  in one transaction. A file whose bytes are already in the project is skipped.",
            runImport};
}

}  // namespace reach::cli
