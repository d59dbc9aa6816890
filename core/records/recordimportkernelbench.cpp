#include "core/records/recordimportkernelbench.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/records/recordimport.h"

namespace reach {

namespace {

using nlohmann::json;

json parseJsonFile(const std::string& path, const char* what) {
    const std::string expected = std::string("expected ") + what;
    return parseJson(readJsonFile(path, expected), path, expected);
}

std::optional<int> leadingNumber(std::string_view s) {
    int v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end == s.data())
        return std::nullopt;
    if (end != s.data() + s.size() && *end != '_')
        return std::nullopt;
    return v;
}

std::string lower(std::string s) {
    for (char& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string fileName(const std::string& path) {
    return std::filesystem::path(path).filename().string();
}

}  // namespace

BaselineKind baselineKindForFile(const std::string& path) {
    const std::string name = lower(fileName(path));
    if (name.find("compile") != std::string::npos || name.find("inductor") != std::string::npos) {
        return BaselineKind::Compile;
    }
    if (name.find("torch") != std::string::npos || name.find("eager") != std::string::npos) {
        return BaselineKind::Eager;
    }
    return BaselineKind::Recorded;
}

std::map<int, KernelBenchBaselineEntry> readKernelBenchBaseline(const std::string& path,
                                                                int level) {
    const json doc = parseJsonFile(path, "a KernelBench baseline timing file (JSON)");
    const std::string levelKey = "level" + std::to_string(level);
    if (!doc.is_object() || !doc.contains(levelKey) || !doc[levelKey].is_object()) {
        throw InputError(path, "key \"" + levelKey + "\"",
                         "expected an object of problem files for level " + std::to_string(level));
    }
    std::map<int, KernelBenchBaselineEntry> out;
    for (const auto& [file, entry] : doc[levelKey].items()) {
        const std::string place = levelKey + "/" + file;
        auto id = leadingNumber(file);
        if (!id)
            throw InputError(path, place, "expected a problem file named <id>_<name>.py");
        if (!entry.is_object() || !entry.contains("mean") || !entry["mean"].is_number() ||
            entry["mean"].get<double>() <= 0) {
            throw InputError(path, place + ", key \"mean\"", "expected a positive time in ms");
        }
        KernelBenchBaselineEntry e;
        e.problemId = *id;
        e.problemName =
            file.size() > 3 && file.ends_with(".py") ? file.substr(0, file.size() - 3) : file;
        e.meanMs = entry["mean"].get<double>();
        if (entry.contains("hardware") && entry["hardware"].is_string()) {
            e.hardware = entry["hardware"].get<std::string>();
        }
        if (!out.emplace(*id, e).second) {
            throw InputError(path, place, "duplicate problem id " + std::to_string(*id));
        }
    }
    return out;
}

std::map<std::string, std::string> readKernelBenchCategories(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw InputError(path, "", "cannot open; expected problem_id,problem,category CSV");
    std::map<std::string, std::string> out;
    std::string line;
    int64_t n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty())
            continue;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, ',');)
            cells.push_back(cell);
        if (cells.size() != 3) {
            throw InputError(path, "line " + std::to_string(n),
                             "expected 3 columns: problem_id,problem,category");
        }
        if (n == 1 && cells[0] == "problem_id")
            continue;
        out[cells[1]] = cells[2];
    }
    return out;
}

bool looksLikeKernelBenchRun(const std::string& path) {
    const std::optional<json> parsed = trySniffJsonFile(path);
    if (!parsed)
        return false;
    const json& doc = *parsed;
    if (!doc.is_object() || doc.empty())
        return false;
    const json& first = doc.begin().value();
    const json* sample = &first;
    if (first.is_array()) {
        if (first.empty())
            return false;
        sample = &first[0];
    }
    return sample->is_object() && sample->contains("correctness");
}

bool looksLikeKernelBenchBaseline(const std::string& path) {
    // Asked of every file the GUI imports, traces of hundreds of MB included: only a small
    // .json whose first key is a level is parsed (KernelBench's files are ~100 KB).
    std::error_code ec;
    if (!path.ends_with(".json") || !std::filesystem::is_regular_file(path, ec) ||
        std::filesystem::file_size(path, ec) > (std::uintmax_t(16) << 20))
        return false;
    std::ifstream in(path, std::ios::binary);
    char head[64] = {};
    in.read(head, sizeof head);
    const std::string start(head, size_t(in.gcount()));
    const auto brace = start.find_first_not_of(" \t\r\n");
    if (brace == std::string::npos || start[brace] != '{')
        return false;
    const auto firstKey = start.find_first_not_of(" \t\r\n", brace + 1);
    if (firstKey == std::string::npos || start.compare(firstKey, 6, "\"level") != 0)
        return false;
    const std::optional<json> parsed = trySniffJsonFile(path);
    if (!parsed || !parsed->is_object() || parsed->empty())
        return false;
    for (const auto& [key, level] : parsed->items()) {
        if (!key.starts_with("level") || !level.is_object() || level.empty())
            return false;
        const auto first = level.begin();
        if (!first.key().ends_with(".py") || !first.value().is_object() ||
            !first.value().contains("mean"))
            return false;
    }
    return true;
}

namespace {

// One baseline timing file, read: its kind (eager, compile or recorded) and its problems.
struct LoadedBaseline {
    BaselineKind kind;
    std::string path;
    std::map<int, KernelBenchBaselineEntry> entries;
};

// Every baseline file of `options`, read, and `note` naming them for the records' harness
// ("file.json (hardware), ...").
std::vector<LoadedBaseline> loadBaselines(const KernelBenchImportOptions& options,
                                          std::string& note) {
    std::vector<LoadedBaseline> baselines;
    for (const auto& b : options.baselines) {
        const BaselineKind kind =
            b.kind == BaselineKind::Auto ? baselineKindForFile(b.path) : b.kind;
        baselines.push_back({kind, b.path, readKernelBenchBaseline(b.path, options.level)});
        std::string hw = baselines.back().entries.empty()
                             ? std::string()
                             : baselines.back().entries.begin()->second.hardware;
        note += (note.empty() ? "" : ", ") + fileName(b.path) + (hw.empty() ? "" : " (" + hw + ")");
    }
    return baselines;
}

// The run's problems (number, key as written, value) in the order of their numbers.
std::vector<std::tuple<int, std::string, const json*>> problemsByNumber(
    const json& doc, const std::string& evalResultsPath) {
    // JSON objects iterate in key order ("10" before "2"); records follow the problem number.
    std::vector<std::tuple<int, std::string, const json*>> problems;
    for (const auto& [pid, value] : doc.items()) {
        auto id = leadingNumber(pid);
        if (!id) {
            throw InputError(evalResultsPath, "problem \"" + pid + "\"",
                             "expected a numeric problem id");
        }
        problems.emplace_back(*id, pid, &value);
    }
    std::sort(problems.begin(), problems.end(),
              [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    return problems;
}

// What every record of one run shares.
struct RunContext {
    const std::string& evalResultsPath;
    const KernelBenchImportOptions& options;
    const std::vector<LoadedBaseline>& baselines;
    const std::string& baselineNote;
    const std::map<std::string, std::string>& categories;
};

// The problem's entry in the first baseline file (its name); every baseline file must have it.
const KernelBenchBaselineEntry* namedBaseline(const RunContext& run, int id, const std::string& pid,
                                              const std::string& problemPlace) {
    const KernelBenchBaselineEntry* named = nullptr;
    for (const auto& b : run.baselines) {
        auto it = b.entries.find(id);
        if (it == b.entries.end()) {
            throw InputError(run.evalResultsPath, problemPlace,
                             "no problem " + pid + " in level " +
                                 std::to_string(run.options.level) + " of " + fileName(b.path) +
                                 " (wrong level or baseline file?)");
        }
        if (!named)
            named = &it->second;
    }
    return named;
}

std::string keyPlace(const std::string& place, const char* k) {
    return place + ", key \"" + k + "\"";
}

// The sample's id as given, else its index in the problem's list.
std::string sampleIdOf(const json& s, size_t i, const RunContext& run, const std::string& place) {
    if (auto it = s.find("sample_id"); it != s.end() && !it->is_null()) {
        if (it->is_number_integer()) {
            return std::to_string(it->get<int64_t>());
        } else if (it->is_string()) {
            return it->get<std::string>();
        } else {
            throw InputError(run.evalResultsPath, keyPlace(place, "sample_id"),
                             "expected an integer");
        }
    }
    return std::to_string(i);
}

// Whether the sample compiled and was correct, and its time (none when it failed).
void readOutcome(const json& s, const RunContext& run, const std::string& place, EvalRecord& r) {
    for (const char* k : {"compiled", "correctness"}) {
        if (!s.contains(k) || !s[k].is_boolean()) {
            throw InputError(run.evalResultsPath, keyPlace(place, k), "expected true or false");
        }
    }
    r.compiled = s["compiled"].get<bool>();
    r.correct = s["correctness"].get<bool>();
    if (!s.contains("runtime") || !s["runtime"].is_number()) {
        throw InputError(run.evalResultsPath, keyPlace(place, "runtime"),
                         "expected the mean runtime in ms (-1 when failed)");
    }
    const double runtime = s["runtime"].get<double>();
    if (runtime > 0) {
        r.candidateTimeUs = runtime * 1000.0;
    } else if (runtime != -1.0) {
        throw InputError(run.evalResultsPath, keyPlace(place, "runtime"),
                         "expected a positive time in ms or -1, got " + std::to_string(runtime));
    }
}

// Each kind's baseline time: the fastest of the files of that kind.
void setBaselineTimes(const RunContext& run, int id, EvalRecord& r) {
    for (const auto& b : run.baselines) {
        const double us = b.entries.at(id).meanMs * 1000.0;
        auto& slot = b.kind == BaselineKind::Eager     ? r.baselineEagerUs
                     : b.kind == BaselineKind::Compile ? r.baselineCompileUs
                                                       : r.baselineRecordedUs;
        if (!slot || us < *slot)
            slot = us;
    }
}

// The GPU the sample ran on, from its metadata or else its runtime statistics; "" when neither
// says.
std::string sampleHardware(const json& s) {
    std::string hardware;
    const json* meta =
        s.contains("metadata") && s["metadata"].is_object() ? &s["metadata"] : nullptr;
    const json* stats = s.contains("runtime_stats") && s["runtime_stats"].is_object()
                            ? &s["runtime_stats"]
                            : nullptr;
    for (const json* src : {meta, stats}) {
        if (src && hardware.empty() && src->contains("hardware") &&
            (*src)["hardware"].is_string()) {
            hardware = (*src)["hardware"].get<std::string>();
        }
    }
    return hardware;
}

// One sample of problem `id` as a record, the `sourceLine`th of the run.
EvalRecord sampleRecord(const RunContext& run, const json& s, size_t i, int id,
                        const KernelBenchBaselineEntry& named, const std::string& place,
                        int64_t sourceLine) {
    const KernelBenchImportOptions& options = run.options;
    if (!s.is_object())
        throw InputError(run.evalResultsPath, place, "expected an object");
    EvalRecord r;
    r.problemId = std::to_string(id);
    r.problemName = named.problemName;
    r.level = options.level;
    r.suite = "KernelBench";
    if (auto c = run.categories.find(r.problemName);
        c != run.categories.end() && options.level == 1) {
        r.category = c->second;
    }
    r.dtype = options.dtype;
    r.model = options.model;
    r.backend = options.backend;
    r.sampleId = sampleIdOf(s, i, run, place);
    readOutcome(s, run, place, r);
    setBaselineTimes(run, id, r);
    r.hardware = sampleHardware(s);
    r.harness = "KernelBench; baselines: " + run.baselineNote;
    // KernelBench keeps each sample's kernel beside the run's results; linked, a record
    // can be re-verified with one click (its problem file comes from the user's
    // KernelBench checkout, core/project/recordjob.h).
    const std::string kernel = "level_" + std::to_string(options.level) + "_problem_" +
                               r.problemId + "_sample_" + r.sampleId + "_kernel.py";
    std::error_code ec;
    if (std::filesystem::is_regular_file(
            std::filesystem::path(run.evalResultsPath).parent_path() / kernel, ec))
        r.artifactPath = kernel;
    r.source = run.evalResultsPath;
    r.sourceLine = sourceLine;
    finishRecord(r, run.evalResultsPath, place);
    return r;
}

}  // namespace

std::vector<EvalRecord> importKernelBenchRun(const std::string& evalResultsPath,
                                             const KernelBenchImportOptions& options) {
    if (options.baselines.empty()) {
        throw InputError(evalResultsPath, "",
                         "needs at least one KernelBench baseline timing file to compute speedups");
    }
    std::string baselineNote;
    const std::vector<LoadedBaseline> baselines = loadBaselines(options, baselineNote);
    std::map<std::string, std::string> categories;
    if (!options.categoriesCsv.empty())
        categories = readKernelBenchCategories(options.categoriesCsv);

    const json doc = parseJsonFile(evalResultsPath, "KernelBench run results (eval_results.json)");
    if (!doc.is_object()) {
        throw InputError(evalResultsPath, "byte 0",
                         "expected an object mapping problem ids to lists of samples");
    }
    const RunContext run{evalResultsPath, options, baselines, baselineNote, categories};
    std::vector<EvalRecord> records;
    for (const auto& [id, pid, valuePtr] : problemsByNumber(doc, evalResultsPath)) {
        const json& value = *valuePtr;
        const std::string problemPlace = "problem \"" + pid + "\"";
        std::vector<const json*> samples;
        if (value.is_array()) {
            for (const json& s : value)
                samples.push_back(&s);
        } else {
            samples.push_back(&value);  // runs before multi-sample evaluation: one object
        }
        const KernelBenchBaselineEntry* named = namedBaseline(run, id, pid, problemPlace);
        for (size_t i = 0; i < samples.size(); ++i) {
            const std::string place = problemPlace + ", sample " + std::to_string(i);
            records.push_back(sampleRecord(run, *samples[i], i, id, *named, place,
                                           static_cast<int64_t>(records.size()) + 1));
        }
    }
    return records;
}

}  // namespace reach
