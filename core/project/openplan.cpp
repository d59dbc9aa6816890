#include "core/project/openplan.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/analysis/publishedstudy.h"
#include "core/base/evidence.h"
#include "core/base/inputerror.h"
#include "core/base/resourcepaths.h"
#include "core/records/recordimportverify.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/trace/bytesource.h"
#include "core/trace/profilereader.h"

namespace reach {

namespace fs = std::filesystem;

namespace {

enum class InputKind { Profile, Project, Published, Records };

// The first bytes of a file, enough to tell a trace from a records document without parsing
// either (a 75 MB trace is not read twice to find out what it is).
std::string head(const std::string& path, size_t bytes = 64 * 1024) {
    return ByteSource::peek(path, bytes);  // empty for a FIFO or device: never blocks on one
}

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix.data(), suffix.size()) == 0;
}

InputKind kindOf(const std::string& path, const OpenOptions& options) {
    // A FIFO or a device named as a file would block whatever opened it to look inside: the
    // profile reader refuses it in one line without opening it.
    std::error_code ec;
    if (fs::exists(path, ec) && !fs::is_regular_file(path, ec) && !fs::is_directory(path, ec))
        return InputKind::Profile;
    if (endsWith(path, ".reach"))
        return InputKind::Project;
    if (endsWith(path, ".jsonl") || endsWith(path, ".csv") ||
        (options.records.mapping && !endsWith(path, ".gz") && !endsWith(path, ".sqlite")))
        return InputKind::Records;
    if (!endsWith(path, ".json") && !endsWith(path, ".JSON"))
        return InputKind::Profile;  // .json.gz, .sqlite, or whatever the profile reader makes of it
    const std::string h = head(path);
    if (h.find("\"traceEvents\"") != std::string::npos)
        return InputKind::Profile;
    if (h.find("\"reach.verification\"") != std::string::npos)
        return InputKind::Records;
    if (isPublishedStudyFile(path))
        return InputKind::Published;
    if (h.find("\"correctness\"") != std::string::npos ||
        (h.find("\"compiled\"") != std::string::npos && h.find("\"correct\"") != std::string::npos))
        return InputKind::Records;  // KernelBench run results, JSONL written as .json
    return InputKind::Profile;
}

bool isProfileName(const fs::path& p) {
    const std::string name = p.filename().string();
    if (name == "manifest.json")
        return false;
    return endsWith(name, ".json.gz") || endsWith(name, ".json") || endsWith(name, ".sqlite");
}

// Small first, so the breakdown fills in within a second and the largest trace comes last.
std::vector<std::string> bySizeAscending(std::vector<fs::path> files) {
    std::vector<std::pair<uintmax_t, std::string>> sized;
    for (const fs::path& f : files) {
        std::error_code ec;
        sized.emplace_back(fs::file_size(f, ec), f.string());
    }
    std::sort(sized.begin(), sized.end());
    std::vector<std::string> out;
    for (auto& [size, path] : sized)
        out.push_back(std::move(path));
    return out;
}

std::string publishedOrigin(const std::string& studySource) {
    // The hardware the study measured on, named in its source line ("... (A100-80GB, ...)").
    for (const char* gpu : {"A100", "H100", "H200", "B200", "B100", "MI300X", "L40S", "A10G"}) {
        if (studySource.find(gpu) != std::string::npos)
            return std::string("published, ") + gpu;
    }
    return "published";
}

void addPublished(OpenPlan& plan, const std::string& path) {
    const PublishedStudy study = readPublishedStudy(path);
    for (const PublishedWorkload& w : study.workloads) {
        ProjectWorkload entry;
        entry.name = w.name;
        entry.origin = publishedOrigin(study.source);
        entry.published = true;
        entry.publishedLibraryOptimized = w.libraryOptimized;
        entry.publishedAddressable = w.addressable;
        entry.publishedGain = w.projectedGain;
        plan.published.push_back(std::move(entry));
    }
    plan.studies.push_back({study.source, study.winRate, study.medianSpeedup});
    for (const PublishedBenchmark& b : study.benchmarks) {
        plan.evaluations.push_back(publishedSummary(b.name, b.verifiedFaster, b.denominator,
                                                    b.medianSpeedup, b.maxSpeedup));
    }
    plan.sources.push_back(path);
}

void addProject(OpenPlan& plan, const std::string& path) {
    const std::string absolute = fs::absolute(path).lexically_normal().string();
    const ProjectStore project = ProjectStore::open(absolute, ProjectStore::Mode::MustExist);
    for (const RecordSetEntry& set : recordSets(project)) {
        StatsOptions stats;
        stats.denominator = set.denominator;
        EvaluationSet e = summarizeRecords(set.name, set.source, loadRecordSet(project, set.id),
                                           std::nullopt, stats);
        e.storeId = set.id;
        plan.evaluations.push_back(std::move(e));
    }
    // The rules the project was last used with (imported with, or last edited in the GUI): its
    // numbers are shown as they were left. A stored set that no longer parses is reported; the
    // project still opens with the current rules.
    try {
        if (!plan.storedRules)
            plan.storedRules = project.latestRuleSet();
    } catch (const InputError& e) {
        plan.warnings.push_back(e.what());
    }
    if (plan.storePath.empty())
        plan.storePath = absolute;
    plan.stores.push_back(absolute);
    plan.sources.push_back(absolute);
}

std::string stem(const std::string& path) {
    std::string name = fs::path(path).filename().string();
    for (const char* ext : {".gz", ".jsonl", ".json", ".csv", ".reach"}) {
        if (endsWith(name, ext))
            name.resize(name.size() - std::string_view(ext).size());
    }
    return name;
}

// Reach's verdict in a reach-verify document counts as Reach's only when Reach signed it here
// (core/base/evidence.h, issue 37): a stranger's document, or one edited by hand, keeps the
// harness's word (`correct`) but its "passed" becomes a claim, and the plan says so per file.
std::vector<EvalRecord> withClaimsMarked(std::vector<EvalRecord> records,
                                         std::vector<std::string>& warnings) {
    std::set<std::string> sources;
    for (const EvalRecord& r : records)
        if (r.verification == Verification::Passed)
            sources.insert(r.source);
    for (const std::string& source : sources) {
        if (!looksLikeVerifierOutput(source))
            continue;
        std::map<int64_t, Evidence> byPlace;
        for (const VerifierDocument& d : readVerifierDocuments(source))
            byPlace[d.place] = checkEvidence(d.json);
        int claimed = 0;
        std::string why;
        for (EvalRecord& r : records) {
            if (r.source != source || r.verification != Verification::Passed)
                continue;
            const auto it = byPlace.find(r.sourceLine);
            const Evidence e = it == byPlace.end() ? Evidence{} : it->second;
            if (e.signedHere)
                continue;
            r.verification = Verification::Unverified;
            r.verificationReasons = {"claimed: " + e.why};
            why = why.empty() ? e.why : why;
            ++claimed;
        }
        if (claimed > 0)
            warnings.push_back(source + ": " + std::to_string(claimed) +
                               " reach-verify pass(es) claimed, not verified here (" + why +
                               "): counted as the harness's word, never as verified");
    }
    return records;
}

void addRecords(OpenPlan& plan, const std::string& path, const OpenOptions& options) {
    plan.evaluations.push_back(summarizeRecords(
        stem(path), path, withClaimsMarked(readRecords(path, options.records), plan.warnings)));
    plan.sources.push_back(path);
}

void addDirectory(OpenPlan& plan, const std::string& dir, const OpenOptions& options) {
    std::vector<fs::path> profiles;
    int records = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file())
            continue;
        const std::string p = entry.path().string();
        const bool recordsLike = endsWith(p, ".jsonl") ||
                                 (endsWith(p, ".json") && kindOf(p, options) == InputKind::Records);
        if (recordsLike)
            ++records;
        else if (isProfileName(entry.path()))
            profiles.push_back(entry.path());
    }
    if (ec)
        throw InputError(dir, "directory", "a readable folder (" + ec.message() + ")");
    if (profiles.empty() && records == 0) {
        throw InputError(dir, "directory",
                         "a folder of profiles (.json, .json.gz, .sqlite) or of evaluation "
                         "records (.jsonl, reach-verify outputs); found neither");
    }
    if (profiles.empty() && records > 0) {
        // A folder of reach-verify outputs (or JSONL files) is ONE evaluation set.
        plan.evaluations.push_back(
            summarizeRecords(fs::path(dir).lexically_normal().filename().string(), dir,
                             withClaimsMarked(readRecords(dir, options.records), plan.warnings)));
        plan.sources.push_back(dir);
        return;
    }
    if (records > 0) {
        plan.warnings.push_back(dir + ": " + std::to_string(records) +
                                " evaluation records file(s) beside the profiles were not read "
                                "(open them on their own)");
    }
    for (std::string& p : bySizeAscending(std::move(profiles)))
        plan.profiles.push_back(std::move(p));
}

}  // namespace

OpenPlan planOpen(const std::vector<std::string>& inputs, const OpenOptions& options) {
    if (inputs.empty())
        return planSample();
    OpenPlan plan;
    plan.projectName = inputs.size() == 1
                           ? fs::path(inputs[0]).lexically_normal().filename().string()
                           : std::to_string(inputs.size()) + " inputs";
    if (plan.projectName.empty())
        plan.projectName = inputs[0];
    for (const std::string& path : inputs) {
        std::error_code ec;
        const auto status = fs::status(path, ec);
        if (ec || !fs::exists(status)) {
            throw InputError(path, "path",
                             "no such file or directory; expected a profile, a folder, a .reach "
                             "project, a published study table or an evaluation records file");
        }
        if (fs::is_directory(status)) {
            addDirectory(plan, path, options);
            continue;
        }
        switch (kindOf(path, options)) {
            case InputKind::Project:
                addProject(plan, path);
                break;
            case InputKind::Published:
                addPublished(plan, path);
                break;
            case InputKind::Records:
                addRecords(plan, path, options);
                break;
            case InputKind::Profile:
                plan.profiles.push_back(path);
                break;
        }
    }
    return plan;
}

bool needsColumnMapping(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return false;
    const bool csv = endsWith(path, ".csv") || endsWith(path, ".CSV");
    if (!csv && !endsWith(path, ".json") && !endsWith(path, ".JSON"))
        return false;
    if (!csv) {
        if (kindOf(path, {}) != InputKind::Profile ||
            head(path).find("\"traceEvents\"") != std::string::npos)
            return false;  // a project, published table, known records or a Kineto trace
    }
    if (!detectRecordFormat(path, {}).empty())
        return false;
    std::vector<std::string> columns;
    try {
        columns = mappableColumns(path);
    } catch (const InputError&) {
        return false;  // not a table: the reader the name asks for says what is wrong
    }
    // A JSON list of Chrome trace events is a profile in the array format, not a table.
    const auto has = [&](const char* c) {
        return std::find(columns.begin(), columns.end(), c) != columns.end();
    };
    return !columns.empty() && !(has("ph") && has("ts"));
}

OpenPlan planSample() {
    const std::string dir = findDatasetsDir();
    if (dir.empty()) {
        throw InputError("the bundled sample", "datasets",
                         "a datasets folder with paper/table3.json (set REACH_DATASETS)");
    }
    OpenPlan plan;
    plan.projectName = "Sample project (bundled)";
    addPublished(plan, dir + "/paper/table3.json");
    std::vector<EvaluationSet> study = std::move(plan.evaluations);
    plan.evaluations.clear();
    // Measured sets first (they are what the projection should use), the study's summaries last.
    // Each set is one folder of reach-verify outputs; a bad one is reported, the sample opens.
    for (const char* measured : {"evaluations/h200/raw", "evaluations/h200-kernelbench/raw"}) {
        const std::string path = dir + "/" + measured;
        std::error_code ec;
        if (!fs::is_directory(path, ec))
            continue;
        try {
            EvaluationSet set =
                summarizeRecords(std::string(measured).find("kernelbench") != std::string::npos
                                     ? "H200 KernelBench-format (measured)"
                                     : "H200 reach-verify (measured)",
                                 path, readRecords(path, {}));
            plan.evaluations.push_back(std::move(set));
            plan.sources.push_back(path);
        } catch (const InputError& e) {
            plan.warnings.push_back(e.what());
        }
    }
    std::vector<fs::path> jsonl;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir + "/evaluations", ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file() && endsWith(it->path().string(), ".jsonl"))
            jsonl.push_back(it->path());
    }
    std::sort(jsonl.begin(), jsonl.end());
    for (const fs::path& f : jsonl) {
        try {
            plan.evaluations.push_back(
                summarizeRecords(stem(f.string()), f.string(), readReachJsonl(f.string())));
            plan.sources.push_back(f.string());
        } catch (const InputError& e) {
            plan.warnings.push_back(e.what());
        }
    }
    for (EvaluationSet& s : study)
        plan.evaluations.push_back(std::move(s));
    // A workload re-profiled with record_shapes=True (profiles/h200-shapes/X, the same run with
    // operator shapes, which the headroom estimate needs) replaces profiles/h200/X.
    std::vector<fs::path> profiles;
    const fs::path shapes = fs::path(dir) / "profiles/h200-shapes";
    for (const auto& entry : fs::directory_iterator(dir + "/profiles/h200", ec)) {
        if (!entry.is_regular_file() || !isProfileName(entry.path()))
            continue;
        const fs::path withShapes = shapes / entry.path().filename();
        std::error_code sec;
        profiles.push_back(fs::is_regular_file(withShapes, sec) ? withShapes : entry.path());
    }
    plan.profiles = bySizeAscending(std::move(profiles));
    return plan;
}

void readPlanWorkloads(const OpenPlan& plan, const RuleSet& rules,
                       const std::function<void(LoadedWorkload)>& deliver,
                       const std::function<void(const InputError&)>& fail,
                       const ProgressFn& progress, std::stop_token stop) {
    auto classified = [&](Workload w) {
        LoadedWorkload loaded;
        auto workload = std::make_shared<const Workload>(std::move(w));
        loaded.breakdown = std::make_shared<const Breakdown>(computeBreakdown(*workload, rules));
        loaded.workload = std::move(workload);
        return loaded;
    };
    // Progress is weighted by bytes, so the bar moves evenly across small and large inputs.
    std::vector<double> sizes;
    double total = 0;
    for (const auto* list : {&plan.stores, &plan.profiles}) {
        for (const std::string& p : *list) {
            std::error_code ec;
            sizes.push_back(std::max<double>(1.0, double(fs::file_size(p, ec))));
            total += sizes.back();
        }
    }
    double done = 0;
    size_t index = 0;
    auto report = [&](double fraction) {
        if (progress)
            progress(std::min(1.0, (done + fraction * sizes[index]) / total));
    };
    for (const std::string& store : plan.stores) {
        if (stop.stop_requested())
            throw Cancelled{};
        const ProjectStore project = ProjectStore::open(store, ProjectStore::Mode::MustExist);
        const auto entries = project.workloadEntries();
        for (size_t i = 0; i < entries.size(); ++i) {
            if (stop.stop_requested())
                throw Cancelled{};
            deliver(classified(project.loadWorkload(entries[i].id)));
            report(double(i + 1) / double(entries.size()));
        }
        done += sizes[index++];
    }
    for (const std::string& path : plan.profiles) {
        if (stop.stop_requested())
            throw Cancelled{};
        try {
            deliver(classified(readProfile(path, report, stop)));
        } catch (const InputError& e) {
            fail(e);
        }
        done += sizes[index++];
        if (progress)
            progress(std::min(1.0, done / total));
    }
}

Project openInputs(const std::vector<std::string>& inputs, const std::optional<RuleSet>& rules,
                   const OpenOptions& options) {
    OpenPlan plan = planOpen(inputs, options);
    Project project;
    project.name = plan.projectName;
    project.storePath = plan.storePath;
    project.rules = rules ? *rules : plan.storedRules.value_or(RuleSet::builtinDefault());
    project.workloads = std::move(plan.published);
    project.evaluations = std::move(plan.evaluations);
    project.sources = std::move(plan.sources);
    project.warnings = std::move(plan.warnings);
    project.studies = plan.studies;
    readPlanWorkloads(
        plan, project.rules,
        [&](LoadedWorkload w) {
            project.addMeasured(measuredWorkload(std::move(w.workload), std::move(w.breakdown)));
        },
        // The command line stops at the first unreadable input (the GUI reports and goes on).
        [](const InputError& e) { throw e; });
    return project;
}

}  // namespace reach
