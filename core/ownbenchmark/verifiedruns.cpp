#include "core/ownbenchmark/verifiedruns.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/base/inputerror.h"
#include "core/base/jsoninteger.h"
#include "core/base/jsonparse.h"
#include "core/base/sha256.h"
#include "core/benchmark/problemsource.h"
#include "core/records/evalrecord.h"
#include "core/records/recordimportverify.h"
#include "core/store/projectstore.h"
#include "core/store/verificationstore.h"

namespace reach {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// More repetitions than any verify runs (100 by default); a longer list is not read.
constexpr size_t kMaxSamples = 100000;

std::optional<double> positiveNumber(const json& obj, const char* key) {
    if (!obj.is_object())
        return std::nullopt;
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_number())
        return std::nullopt;
    const double v = it->get<double>();
    // A time within the bounds of every record's (core/records/evalrecord.h): a document's
    // 1e300 is no measurement, and printed 300 digits.
    return std::isfinite(v) && v >= kMinRecordUs && v <= kMaxRecordUs ? std::optional<double>(v)
                                                                      : std::nullopt;
}

// A timing object in docs/verifier.md's keys; its per-repetition times where the KernelBench
// worker wrote them (`clock.figure_us`, the judge's figures its median is of; `clock.runner_us`
// in documents from before the judge owned the time). A document is a stranger's: a spread that
// makes no sense is dropped, never guessed.
std::optional<TimedLoop> spreadOf(const json& t) {
    const auto median = positiveNumber(t, "median_us");
    if (!median)
        return std::nullopt;
    TimedLoop s;
    s.medianUs = *median;
    const auto p10 = positiveNumber(t, "p10_us"), p90 = positiveNumber(t, "p90_us");
    if (p10 && p90 && *p10 <= *p90) {
        s.p10Us = p10;
        s.p90Us = p90;
    }
    if (auto it = t.find("reps"); it != t.end())
        s.reps = std::max(0, jsonInteger<int>(*it).value_or(0));
    const json clock = t.value("clock", json());
    const json runner = !clock.is_object()            ? json()
                        : clock.contains("figure_us") ? clock.value("figure_us", json())
                                                      : clock.value("runner_us", json());
    if (runner.is_array() && runner.size() >= 2 && runner.size() <= kMaxSamples) {
        std::vector<double> samples;
        for (const json& x : runner) {
            if (!x.is_number() || !std::isfinite(x.get<double>()) ||
                x.get<double>() < kMinRecordUs || x.get<double>() > kMaxRecordUs)
                return s;  // one bad sample: the spread from p10/p90 instead
            samples.push_back(x.get<double>());
        }
        s.samplesUs = std::move(samples);
    }
    return s;
}

// The eager PyTorch baseline of a KernelBench-format document (`reach.baselines`, kind
// "eager"). A C++ candidate's baseline is Reach's kernel or cuBLAS, not what the trace ran.
std::optional<TimedLoop> eagerOf(const json& doc) {
    const json reachPart = doc.value("reach", json());
    if (!reachPart.is_object())
        return std::nullopt;
    const json baselines = reachPart.value("baselines", json());
    if (!baselines.is_array())
        return std::nullopt;
    for (const json& b : baselines) {
        if (b.is_object() && b.value("kind", json()) == "eager")
            return spreadOf(b.value("timing", json()));
    }
    return std::nullopt;
}

// The candidate's loop: the judge's own timing object of a KernelBench-format run (it carries
// the repetitions), else the document's.
std::optional<TimedLoop> candidateOf(const json& doc) {
    const json reachPart = doc.value("reach", json());
    if (reachPart.is_object()) {
        if (auto s = spreadOf(reachPart.value("timing", json())))
            return s;
    }
    return spreadOf(doc.value("timing", json()));
}

std::string versionText(const json& v) {
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number_integer() || v.is_number_unsigned())
        return v.dump();
    return "";
}

// The GPU and the stack a document says it was measured on (a stranger's document says what it
// likes: these are only compared and shown, escaped).
void setMachineOf(VerifiedRun& r, const VerificationResult& v, const json& doc) {
    const json reachPart = doc.value("reach", json());
    const json device = reachPart.is_object() ? reachPart.value("device", json()) : json();
    if (device.is_object() && device.value("name", json()).is_string())
        r.gpu = device["name"].get<std::string>();
    if (r.gpu.empty())
        r.gpu = v.device.name;
    const json versions = reachPart.is_object() ? reachPart.value("versions", json()) : json();
    if (versions.is_object()) {
        for (const char* k : {"python", "torch", "triton", "cuda", "cudnn"})
            r.stack[k] = versionText(versions.value(k, json()));
    } else {
        r.stack["driver"] = v.device.driverVersion;
        r.stack["runtime"] = v.device.runtimeVersion;
        r.stack["nvcc"] = v.device.nvccVersion;
    }
}

}  // namespace

VerifiedRun verifiedRunOf(const VerificationResult& v, const json& doc, std::string source) {
    VerifiedRun r;
    r.source = std::move(source);
    r.problemSha256 = v.problemSha256;
    r.candidateSha256 = v.candidateSha256;
    r.problemFile = v.problemFile;
    r.candidateFile = v.candidateFile;
    r.verdict = v.verdict;
    r.reasons = v.reasons;
    r.candidate = candidateOf(doc);
    r.eager = eagerOf(doc);
    r.verifierSpeedup =
        std::isfinite(v.speedup) && v.speedup >= kMinRecordSpeedup && v.speedup <= kMaxRecordSpeedup
            ? v.speedup
            : 0;
    if (v.baseline)
        r.verifierBaseline = v.baseline->kind;
    if (const auto it = doc.find("reach"); it != doc.end() && it->is_object())
        if (const auto p = it->find("precision"); p != it->end() && p->is_string())
            r.precision = p->get<std::string>();
    r.evidence = checkEvidence(doc);
    setMachineOf(r, v, doc);
    return r;
}

namespace {

// Sorts a run into the matchable ones or the unmatched, by the problem hash it names.
void add(VerifiedRuns& out, VerifiedRun run) {
    ++out.read;
    if (run.problemSha256.empty()) {
        out.unmatched.push_back(
            {run.source,
             "no problem_sha256 (a reach-verify from before documents named the "
             "problem bytes they verified): never matched by file name"});
        return;
    }
    if (!Sha256::isHexDigest(run.problemSha256)) {
        out.unmatched.push_back({run.source, "problem_sha256 is not 64 lower-case hex digits"});
        return;
    }
    out.runs.push_back(std::move(run));
}

void readFile(VerifiedRuns& out, const std::string& path) {
    for (const VerifierDocument& d : readVerifierDocuments(path)) {
        VerifiedRun run =
            verifiedRunOf(d.result, d.json, path + ", record " + std::to_string(d.place));
        run.sourceFile = path;
        add(out, std::move(run));
    }
}

void readProject(VerifiedRuns& out, const std::string& path) {
    const ProjectStore store = ProjectStore::open(path, ProjectStore::Mode::MustExist);
    for (const StoredVerification& s : loadVerifications(store)) {
        const std::string source = path + ", verification " + std::to_string(s.id);
        const auto doc = tryParseJson(s.json);
        std::optional<VerifiedRun> run;
        if (doc && doc->is_object()) {
            try {
                run = verifiedRunOf(VerificationResult::fromJson(*doc, source), *doc, source);
            } catch (const InputError& e) {
                ++out.read;
                out.unmatched.push_back({source,
                                         "its stored document is not a reach-verify "
                                         "result (" +
                                             e.expected() + ")"});
                continue;
            }
        } else {
            // The verifier printed no document (a crash, a timeout): the row's own columns, a
            // claim of the project's.
            run = VerifiedRun{};
            run->source = source;
            run->verdict = s.verdict;
            run->reasons = s.reasons;
            run->evidence.why = "a stored row without the verifier's document";
        }
        // The bytes the run was stored with (a batch hashes them when it plans) stand in for a
        // document that predates problem_sha256.
        if (run->problemSha256.empty())
            run->problemSha256 = s.problemHash;
        if (run->candidateSha256.empty())
            run->candidateSha256 = s.candidateHash;
        run->sourceFile = path;
        add(out, std::move(*run));
    }
}

bool isVerifyOutputName(const fs::path& p) {
    const std::string ext = p.extension().string();
    return ext == ".json" || ext == ".jsonl";
}

}  // namespace

std::optional<double> VerifiedRun::sigma() const {
    if (!candidate || !eager)
        return std::nullopt;
    return eager->medianUs / candidate->medianUs;
}

bool VerifiedRun::passed() const {
    return verdict == reach::verdict::kPass;
}

VerifiedRuns readVerifiedRuns(const std::vector<std::string>& paths) {
    VerifiedRuns out;
    for (const std::string& path : paths) {
        std::error_code ec;
        const fs::file_status st = fs::status(path, ec);
        if (ec || !fs::exists(st))
            throw InputError(path, "",
                             "no such file; expected reach-verify output, a folder of "
                             "it or a .reach project (--records)");
        if (fs::is_directory(st)) {
            std::vector<fs::path> files;
            for (const auto& e : fs::directory_iterator(path, ec))
                if (e.is_regular_file() && isVerifyOutputName(e.path()))
                    files.push_back(e.path());
            if (ec)
                throw InputError(path, "directory", "a readable folder (" + ec.message() + ")");
            if (files.empty())
                throw InputError(path, "directory",
                                 "a folder holding reach-verify output "
                                 "(.json or .jsonl files); found none");
            std::sort(files.begin(), files.end());
            for (const fs::path& f : files)
                readFile(out, f.string());
        } else if (fs::path(path).extension() == ".reach") {
            readProject(out, path);
        } else {
            readFile(out, path);
        }
    }
    return out;
}

BenchmarkRuns matchVerifiedRuns(const BenchmarkFolder& benchmark, const VerifiedRuns& runs) {
    BenchmarkRuns out;
    out.read = runs.read;
    out.unmatched = runs.unmatched;
    out.problems.resize(benchmark.problems.size());
    // The first problem of each bytes: a run of those bytes counts there, once.
    std::map<std::string, size_t> firstOf;
    for (size_t i = 0; i < benchmark.problems.size(); ++i) {
        out.problems[i].precision =
            callPrecision(benchmark.problems[i].op, benchmark.problems[i].signature);
        const auto [it, fresh] = firstOf.emplace(benchmark.problems[i].sha256, i);
        if (!fresh)
            out.duplicates.push_back(benchmark.problems[i].file + ": the same bytes as " +
                                     benchmark.problems[it->second].file +
                                     " (their runs count once, for " +
                                     benchmark.problems[it->second].file + ")");
    }
    for (const VerifiedRun& run : runs.runs) {
        (run.evidence.signedHere ? out.signedHere : out.claimed) += 1;
        out.inputs.push_back({run.source, run.evidence, run.gpu});
        const auto at = firstOf.find(run.problemSha256);
        if (at == firstOf.end()) {
            out.unmatched.push_back(
                {run.source, "its problem bytes (sha256 " + run.problemSha256.substr(0, 12) +
                                 "...) are no problem of this benchmark (another problem, or a "
                                 "problem file edited since it was verified)"});
            continue;
        }
        ProblemRuns& p = out.problems[at->second];
        ++p.found;
        ++p.verdicts[run.verdict];
        if (!p.precision.empty() && run.precision != p.precision) {
            ++p.otherPrecision;
            p.otherPrecisionSeen = run.precision.empty() ? "an unsaid precision" : run.precision;
            continue;
        }
        if (!run.passed())
            continue;
        const auto sigma = run.sigma();
        if (!sigma) {
            ++p.withoutTimings;
            continue;
        }
        p.passes.push_back(run);
        if (!run.evidence.signedHere) {
            ++p.claimed;
            if (!p.bestClaimed || *sigma > *p.bestClaimed->sigma())
                p.bestClaimed = run;
            continue;
        }
        if (*sigma <= 1)
            ++p.slower;
        if (!p.best || *sigma > *p.best->sigma())
            p.best = run;
    }
    for (ProblemRuns& p : out.problems)
        std::stable_sort(
            p.passes.begin(), p.passes.end(),
            [](const VerifiedRun& a, const VerifiedRun& b) { return *a.sigma() > *b.sigma(); });
    return out;
}

}  // namespace reach
