#include "core/project/recordjob.h"

#include <cstdio>
#include <filesystem>

#include "core/base/resourcepaths.h"

namespace reach {

namespace fs = std::filesystem;

namespace {

// Canonical (symlinks resolved) so a link cannot smuggle a path out of a trusted folder.
fs::path resolved(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal() : c;
}

bool inside(const fs::path& file, const fs::path& dir) {
    const fs::path f = resolved(file), d = resolved(dir);
    auto fi = f.begin();
    for (auto di = d.begin(); di != d.end(); ++di, ++fi) {
        if (di->empty())
            continue;  // a trailing separator
        if (fi == f.end() || *fi != *di)
            return false;
    }
    return true;
}

bool plainName(const std::string& name) {
    return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

struct Places {
    fs::path recordDir;  // the user's: where the records are (trusted)
    fs::path sourceDir;  // the record's own source's folder: only a place to look
    fs::path resources;
    std::vector<fs::path> trusted;  // recordDir, resources, the user's folders

    std::optional<fs::path> trustedFile(const fs::path& p) const {
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
            return std::nullopt;
        for (const fs::path& t : trusted) {
            if (!t.empty() && inside(p, t))
                return resolved(p);
        }
        return std::nullopt;
    }
};

// A path as a record names it: relative to the records' folder (the user's, then the one the
// record's source names); "resources/..." (what reach-verify writes for Reach's own files)
// relative to Reach's resources. Where a spelling leads is then checked against the trusted
// folders, symbolic links resolved ("proc/self/cwd/x.py" is the folder Reach runs in).
std::vector<fs::path> spellings(const std::string& named, const Places& places) {
    std::vector<fs::path> out;
    const fs::path p(named);
    if (p.is_absolute()) {
        out.push_back(p);
        return out;
    }
    for (const fs::path& base : {places.recordDir, places.sourceDir})
        if (!base.empty())
            out.push_back(base / p);
    const std::string prefix = "resources/";
    if (!places.resources.empty() && named.rfind(prefix, 0) == 0)
        out.push_back(places.resources / named.substr(prefix.size()));
    return out;
}

Places placesFor(const std::string& recordDir, const std::string& sourceFile,
                 const RecordJobOptions& options) {
    Places places;
    if (!recordDir.empty())
        places.recordDir = fs::absolute(fs::path(recordDir));
    if (!sourceFile.empty())
        places.sourceDir = fs::absolute(fs::path(sourceFile)).parent_path();
    const std::string res = options.resourceDir.empty() ? findResourceDir() : options.resourceDir;
    if (!res.empty())
        places.resources = fs::path(res);
    places.trusted = {places.recordDir, places.resources};
    for (const std::string& d : options.trustedDirs)
        places.trusted.push_back(fs::absolute(d));
    if (!options.kernelBenchDir.empty())
        places.trusted.push_back(fs::absolute(options.kernelBenchDir));
    return places;
}

}  // namespace

std::optional<RecordJob> jobForPair(const std::string& problem, const std::string& candidate,
                                    const std::string& listFile, const RecordJobOptions& options,
                                    std::string* why) {
    // The list is a file the user named: its folder is theirs.
    const Places places =
        placesFor(fs::absolute(fs::path(listFile)).parent_path().string(), "", options);
    std::optional<fs::path> found[2];
    const std::string* named[2] = {&problem, &candidate};
    for (int k = 0; k < 2; ++k) {
        bool exists = false;
        for (const fs::path& p : spellings(*named[k], places)) {
            std::error_code ec;
            exists = exists || fs::exists(p, ec);
            if ((found[k] = places.trustedFile(p)))
                break;
        }
        if (!found[k]) {
            if (why)
                *why = std::string(k ? "candidate " : "problem ") + *named[k] +
                       (exists ? " lies outside the list's folder and the folders you chose; "
                                 "Reach runs nothing a job list names elsewhere (--trust DIR "
                                 "allows a folder)"
                               : " not found beside " + listFile);
            return std::nullopt;
        }
    }
    RecordJob job;
    job.request.problemFile = found[0]->string();
    job.request.candidateFile = found[1]->string();
    job.kernelBenchFormat = found[0]->extension() == ".py" && found[1]->extension() == ".py";
    return job;
}

std::optional<RecordJob> jobForRecord(const EvalRecord& r, const RecordJobOptions& options,
                                      std::string* why) {
    auto fail = [&](std::string text) -> std::optional<RecordJob> {
        if (why)
            *why = std::move(text);
        return std::nullopt;
    };
    if (r.artifactPath.empty())
        return fail("the record names no candidate source (artifact_path)");
    const Places places = placesFor(options.recordDir, r.source, options);

    std::optional<fs::path> candidate;
    bool exists = false;
    for (const fs::path& p : spellings(r.artifactPath, places)) {
        std::error_code ec;
        exists = exists || fs::exists(p, ec);
        if ((candidate = places.trustedFile(p)))
            break;
    }
    if (!candidate) {
        if (!exists)
            return fail("candidate source " + r.artifactPath + " not found beside " + r.source);
        return fail("candidate source " + r.artifactPath +
                    " lies outside the records' folder and the folders you chose; Reach "
                    "runs nothing a record names elsewhere (choose its folder to allow it)");
    }
    const bool python = candidate->extension() == ".py";

    // The problem: "<problem>.json|.py" in a "problems" folder beside the records or the
    // candidate, beside the candidate, in Reach's resources, else in the KernelBench checkout.
    std::vector<fs::path> tries;
    const std::string ext = python ? ".py" : ".json";
    for (const std::string& name : {r.problemId, r.problemName}) {
        if (!plainName(name))
            continue;
        for (const fs::path& base : {places.recordDir, places.sourceDir})
            if (!base.empty())
                tries.push_back(base / "problems" / (name + ext));
        for (const fs::path& dir :
             {candidate->parent_path() / "problems", candidate->parent_path()})
            tries.push_back(dir / (name + ext));
        // Reach's own problems (what its measured sets were run on).
        if (!places.resources.empty())
            tries.push_back(places.resources / (python ? "kernelbench/problems" : "problems") /
                            (name + ext));
        if (python && !options.kernelBenchDir.empty() && r.level > 0) {
            const fs::path kb(options.kernelBenchDir);
            const std::string level = "level" + std::to_string(r.level);
            tries.push_back(kb / "KernelBench" / level / (name + ext));
            tries.push_back(kb / level / (name + ext));
        }
    }
    std::optional<fs::path> problem;
    for (const fs::path& p : tries) {
        if ((problem = places.trustedFile(p)))
            break;
    }
    if (!problem) {
        const std::string name = plainName(r.problemName) ? r.problemName : r.problemId;
        if (!plainName(name))
            return fail("the record's problem '" + r.problemId + "' is not a plain file name");
        return fail("no problem file " + name + ext + " in " +
                    ((places.recordDir.empty() ? places.sourceDir : places.recordDir) / "problems")
                        .string() +
                    (python ? (options.kernelBenchDir.empty()
                                   ? " (set the KernelBench folder to find its problems)"
                                   : " or " + options.kernelBenchDir)
                            : std::string()));
    }
    RecordJob job;
    job.kernelBenchFormat = python;
    job.request.problemFile = problem->string();
    job.request.candidateFile = candidate->string();
    if (const auto base = r.effectiveBaselineUs()) {
        char text[64];
        std::snprintf(text, sizeof text, "%.17g", *base);
        job.request.extraArgs = {"--baseline-us", text};
    }
    // Re-verified in the precision it was measured in: a bf16 record judged at fp32 is another
    // measurement (and another tolerance).
    if (python && (r.dtype == "fp32" || r.dtype == "bf16" || r.dtype == "fp16"))
        job.request.extraArgs.insert(job.request.extraArgs.end(), {"--precision", r.dtype});
    return job;
}

void setJobTimeout(VerifyProcessRequest& request, bool kernelBenchFormat,
                   std::optional<double> seconds) {
    const double t = seconds.value_or(kernelBenchFormat ? kKernelBenchVerifyTimeoutSeconds
                                                        : kVerifyTimeoutSeconds);
    request.timeoutSeconds = t;
    if (kernelBenchFormat)
        request.extraArgs.insert(request.extraArgs.end(),
                                 {"--worker-timeout", std::to_string(int(t * 0.45))});
}

std::optional<std::string> trustedFileIn(const std::string& path,
                                         const std::vector<std::string>& dirs) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return std::nullopt;
    for (const std::string& d : dirs)
        if (!d.empty() && inside(fs::absolute(path), fs::absolute(d)))
            return resolved(fs::absolute(path)).string();
    return std::nullopt;
}

}  // namespace reach
