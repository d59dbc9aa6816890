#include "core/project/projectsave.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "core/base/inputerror.h"
#include "core/base/outputguard.h"
#include "core/records/recordreader.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"

namespace reach {

namespace fs = std::filesystem;

namespace {

// How the set's file was read, for the project's record-set table (informational): what
// detectRecordFormat says of the file it came from, "records" when that file is gone or mute.
std::string formatOf(const EvaluationSet& set) {
    try {
        const std::string f = detectRecordFormat(set.origin, {});
        return f.empty() ? std::string("mapped") : f;
    } catch (const std::exception&) {
        return "records";
    }
}

}  // namespace

SavedProject saveProjectAs(const Project& project, const std::string& path) {
    // A project saved over a trace or a records file it was read from would destroy it (issue
    // 37). Over the project it came from is a save: what it held is in memory, written whole
    // and renamed into place.
    OutputGuard inputs;
    for (const std::string& source : project.sources)
        if (fs::path(source).extension() != ".reach")
            inputs.addInput(source);
    for (const EvaluationSet& set : project.evaluations)
        if (fs::path(set.origin).extension() != ".reach")
            inputs.addInput(set.origin);
    inputs.checkNamed(path);
    SavedProject saved;
    const std::string temp = path + ".saving-" + std::to_string(::getpid());
    std::error_code ec;
    fs::remove(temp, ec);
    try {
        ProjectStore store = ProjectStore::open(temp, ProjectStore::Mode::CreateIfMissing);
        store.transaction([&] {
            for (const ProjectWorkload& w : project.workloads) {
                if (!w.workload) {
                    saved.leftOut.push_back(w.name + ": published shares (" + w.origin +
                                            "), no profile to store");
                    continue;
                }
                Workload copy = *w.workload;
                copy.name = w.name;  // a rename in the GUI is kept
                store.importWorkloadOnce(copy);
                ++saved.workloads;
            }
            store.saveRuleSet(project.rules);
        });
        for (const EvaluationSet& set : project.evaluations) {
            if (set.published) {
                saved.leftOut.push_back(set.name + ": a published summary, no records to store");
                continue;
            }
            importRecordSet(store, set.name, set.origin, formatOf(set), set.records);
            ++saved.recordSets;
        }
    } catch (const InputError& e) {
        fs::remove(temp, ec);
        throw InputError(path, "", std::string("cannot save the project: ") + e.what());
    } catch (const std::exception& e) {
        fs::remove(temp, ec);
        throw InputError(path, "", std::string("cannot save the project: ") + e.what());
    }
    fs::rename(temp, path, ec);
    if (ec) {
        fs::remove(temp, ec);
        throw InputError(path, "", "cannot save the project: " + ec.message());
    }
    return saved;
}

}  // namespace reach
