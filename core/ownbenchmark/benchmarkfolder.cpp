#include "core/ownbenchmark/benchmarkfolder.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <sys/stat.h>

#include "core/base/inputerror.h"
#include "core/base/jsoninteger.h"
#include "core/base/jsonparse.h"
#include "core/base/sha256.h"
#include "core/base/textescape.h"
#include "core/base/wholefile.h"
#include "core/benchmark/problemsource.h"

namespace reach {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Far past what extract writes (one problem per hot signature), small enough that a hostile
// file cannot make the reader hash or hold more than a user would wait for.
constexpr size_t kMaxProblems = 10000;
constexpr size_t kMaxKernelsPerProblem = 10000;
constexpr size_t kMaxFileNameBytes = 255;

// Checks one key of one object, and names it the same way in every error.
class Reader {
public:
    explicit Reader(std::string file) : m_file(std::move(file)) {}

    [[noreturn]] void fail(const std::string& place, const std::string& expected) const {
        throw InputError(m_file, place, expected);
    }

    const json& member(const json& obj, const std::string& where, const char* key) const {
        auto it = obj.find(key);
        if (it == obj.end())
            fail(where + key, "missing; expected the key reach-cli extract writes");
        return *it;
    }

    std::string text(const json& obj, const std::string& where, const char* key) const {
        const json& v = member(obj, where, key);
        if (!v.is_string())
            fail(where + key, "expected a string");
        return v.get<std::string>();
    }

    // A finite number >= 0.
    double amount(const json& obj, const std::string& where, const char* key) const {
        const json& v = member(obj, where, key);
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
            fail(where + key, "expected a finite number >= 0");
        return v.get<double>();
    }

    const std::string& file() const { return m_file; }

private:
    std::string m_file;
};

// The only names a problem file may have: one plain name inside the folder, so that hashing
// "its" bytes never reads a file elsewhere (../../etc/passwd, an absolute path).
bool plainFileName(const std::string& name) {
    if (name.empty() || name.size() > kMaxFileNameBytes)
        return false;
    if (name.find("..") != std::string::npos)
        return false;
    for (unsigned char c : name)
        if (c == '/' || c == '\\' || c < 0x20 || c == 0x7f)
            return false;
    return name.size() > 3 && name.compare(name.size() - 3, 3, ".py") == 0;
}

BenchmarkKernel readKernel(const Reader& r, const json& k, const std::string& where) {
    if (!k.is_object())
        r.fail(where, "expected an object {\"name\", \"calls\", \"gpu_us\"}");
    BenchmarkKernel out;
    out.name = r.text(k, where + ".", "name");
    const auto calls = jsonInteger<int64_t>(r.member(k, where + ".", "calls"));
    if (!calls || *calls < 0)
        r.fail(where + ".calls", "expected a whole number >= 0");
    out.calls = *calls;
    out.gpuUs = r.amount(k, where + ".", "gpu_us");
    return out;
}

BenchmarkProblem readProblem(const Reader& r, const json& p, const std::string& where,
                             const fs::path& dir, double workloadUs, const std::string& only,
                             int64_t& bytesRead) {
    if (!p.is_object())
        r.fail(where, "expected an object (a problem: file, operator, signature, kernels)");
    BenchmarkProblem out;
    out.file = r.text(p, where + ".", "file");
    if (!plainFileName(out.file))
        r.fail(where + ".file",
               "expected a plain .py file name inside the folder (no '/', no "
               "'..', no control characters), got '" +
                   out.file + "'");
    out.op = r.text(p, where + ".", "operator");
    out.signature = r.member(p, where + ".", "signature");
    const json& kernels = r.member(p, where + ".", "kernels");
    if (!kernels.is_array() || kernels.empty() || kernels.size() > kMaxKernelsPerProblem)
        r.fail(where + ".kernels",
               "expected a list of 1 to " + std::to_string(kMaxKernelsPerProblem) + " kernels");
    for (size_t k = 0; k < kernels.size(); ++k) {
        out.kernels.push_back(
            readKernel(r, kernels[k], where + ".kernels[" + std::to_string(k) + "]"));
        out.gpuUs += out.kernels.back().gpuUs;
    }
    out.share = out.gpuUs / workloadUs;
    if (out.share > 1 + 1e-9)
        r.fail(where + ".kernels", "expected kernels within the workload's GPU time (gpu_us)");
    out.share = std::min(out.share, 1.0);

    if (!only.empty() && out.file != only)
        return out;  // not read: the caller asked for one problem
    const fs::path path = dir / out.file;
    // Not followed: a link could name any file on the machine. A hard link is another name of
    // one file (the same bytes twice, or a file elsewhere in the file system): refused too.
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        r.fail(where + ".file", "expected '" + out.file +
                                    "' to be a regular file in the folder (not a link; "
                                    "missing or something else)");
    if (st.st_nlink > 1)
        r.fail(where + ".file", "expected '" + out.file + "' to be a file of its own, not one of " +
                                    std::to_string(st.st_nlink) + " hard links to the same bytes");
    if (st.st_size > kMaxProblemFileBytes)
        r.fail(where + ".file", "expected a problem file of at most " +
                                    std::to_string(kMaxProblemFileBytes >> 10) + " KiB, '" +
                                    out.file + "' has " + std::to_string(st.st_size) + " bytes");
    bytesRead += st.st_size;
    if (bytesRead > kMaxBenchmarkBytes)
        r.fail(where + ".file", "expected problem files of at most " +
                                    std::to_string(kMaxBenchmarkBytes >> 20) + " MiB in all");
    out.sha256 = Sha256::hexOfFile(path.string());
    return out;
}

}  // namespace

BenchmarkFolder readBenchmarkFolder(const std::string& dir, const std::string& only) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw InputError(dir, "", "a folder written by reach-cli extract (--benchmark DIR)");
    const fs::path file = fs::path(dir) / "benchmark.json";
    if (!fs::is_regular_file(fs::symlink_status(file, ec)))
        throw InputError(file.string(), "",
                         "the benchmark.json reach-cli extract writes (missing, a link or not a "
                         "regular file)");
    const Reader r(file.string());
    const std::string expected = "a benchmark.json written by reach-cli extract";
    const json doc = parseJson(readJsonFile(r.file(), expected), r.file(), expected);
    if (!doc.is_object())
        r.fail("top level", "expected an object (" + expected + ")");

    BenchmarkFolder b;
    b.dir = dir;
    b.profile = r.text(doc, "", "profile");
    b.profileSha256 = r.text(doc, "", "profile_sha256");
    if (!Sha256::isHexDigest(b.profileSha256))
        r.fail("profile_sha256", "expected 64 lower-case hex digits (the profile's SHA-256)");
    b.category = r.text(doc, "", "category");
    b.gpuUs = r.amount(doc, "", "gpu_us");
    if (!(b.gpuUs > 0))
        r.fail("gpu_us", "expected the workload's GPU time, > 0");
    if (auto it = doc.find("rules"); it != doc.end() && !it->is_null()) {
        if (!it->is_object())
            r.fail("rules", "expected an object {\"name\", \"hash\"} or null");
        b.rulesName = r.text(*it, "rules.", "name");
        b.rulesHash = r.text(*it, "rules.", "hash");
    }
    const json& problems = r.member(doc, "", "problems");
    if (!problems.is_array() || problems.size() > kMaxProblems)
        r.fail("problems",
               "expected a list of at most " + std::to_string(kMaxProblems) + " problems");
    std::set<std::string> files;
    std::map<std::string, std::string> byBytes;  // sha256 -> the first file of those bytes
    int64_t bytesRead = 0;
    double covered = 0;
    for (size_t i = 0; i < problems.size(); ++i) {
        const std::string where = "problems[" + std::to_string(i) + "]";
        BenchmarkProblem p =
            readProblem(r, problems[i], where, fs::path(dir), b.gpuUs, only, bytesRead);
        if (!files.insert(p.file).second)
            r.fail(where + ".file",
                   "expected each problem file once, got '" + p.file + "' a second time");
        // One problem's bytes under two names would match one verified run twice.
        if (!p.sha256.empty())
            if (const auto [it, fresh] = byBytes.emplace(p.sha256, p.file); !fresh)
                r.fail(where + ".file", "expected each problem's bytes once: '" + p.file +
                                            "' has the bytes of '" + it->second + "'");
        covered += p.gpuUs;
        b.problems.push_back(std::move(p));
    }
    if (covered > b.gpuUs * (1 + 1e-9))
        r.fail("problems",
               "expected problems whose kernels sum to at most the workload's GPU "
               "time (gpu_us)");
    return b;
}

void requireBenchmarkOf(const BenchmarkFolder& b, const std::string& profilePath,
                        const std::string& profileSha256) {
    if (b.profileSha256 == profileSha256)
        return;
    throw InputError((fs::path(b.dir) / "benchmark.json").string(), "profile_sha256",
                     "expected the SHA-256 of " + profilePath + " (" + profileSha256.substr(0, 12) +
                         "...): this benchmark was made from another profile (" +
                         b.profileSha256.substr(0, 12) + "..., " + b.profile + ")");
}

namespace {}  // namespace

json writeBenchmarkFolder(const Extraction& e, const std::string& dirName,
                          const std::string& profileFileName, const std::string& rulesName,
                          const std::string& rulesHash) {
    const fs::path dir(dirName);
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
        throw InputError(dir.string(), "", "an empty or new folder (it holds files already)");
    fs::create_directories(dir, ec);
    if (ec)
        throw InputError(dir.string(), "", "a folder Reach can create (" + ec.message() + ")");
    for (const ExtractedProblem& p : e.problems)
        writeWholeFile((dir / p.file).string(), p.source, "a file Reach can write");
    json doc = extractionJson(e);
    doc["profile"] = profileFileName;
    doc["rules"] = {{"name", rulesName}, {"hash", rulesHash}};
    writeWholeFile((dir / "benchmark.json").string(), dumpJson(doc, 2) + "\n",
                   "a file Reach can write");
    return doc;
}

std::optional<std::string> recordedCallPrecision(const std::string& problemPath) {
    // The file says it (a problem extract writes); a folder written before it did has only
    // its benchmark.json to say it.
    if (std::optional<std::string> said = readProblemPrecision(problemPath))
        return said;
    const fs::path problem(problemPath);
    const fs::path dir = problem.has_parent_path() ? problem.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_regular_file(dir / "benchmark.json", ec))
        return std::nullopt;
    const BenchmarkFolder folder = readBenchmarkFolder(dir.string(), problem.filename().string());
    for (const BenchmarkProblem& p : folder.problems)
        if (p.file == problem.filename().string())
            return callPrecision(p.op, p.signature);
    return std::nullopt;
}

}  // namespace reach
