#include "core/batch/batchjobs.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/sha256.h"

namespace reach {

namespace {

using nlohmann::json;

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") + 1 - b);
}

bool isProblemPath(const std::string& p) {
    return p.ends_with(".json") || p.ends_with(".py");
}

bool isPairObject(const json& j) {
    return j.is_object() && j.contains("problem") && j["problem"].is_string() &&
           j.contains("candidate") && j["candidate"].is_string();
}

// A job list may come from anyone: its "args" may only set how a job is measured, never what the
// oracle accepts (--thresholds, --kb-tolerance), which baseline a speedup divides by
// (--baseline-us, --no-baseline, --no-compile-baseline), what runs (--python, --resources,
// --cache-dir) or any other file. Each allowed option takes one value, checked here.
struct AllowedArg {
    const char* name;
    const char* what;  // the value, for the error
    bool (*valid)(const std::string&);
};

bool wholeNumber(const std::string& v, unsigned long long lo, unsigned long long hi) {
    if (v.empty() || v.size() > 20 || v.find_first_not_of("0123456789") != std::string::npos)
        return false;
    const unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
    return n >= lo && n <= hi;
}

constexpr AllowedArg kAllowedArgs[] = {
    {"--precision", "fp32, bf16 or fp16",
     [](const std::string& v) { return v == "fp32" || v == "bf16" || v == "fp16"; }},
    {"--seed", "an integer below 2^64",
     [](const std::string& v) { return wholeNumber(v, 0, ~0ull); }},
    {"--seed-count", "1 to 100", [](const std::string& v) { return wholeNumber(v, 1, 100); }},
    {"--reps", "1 to 100000", [](const std::string& v) { return wholeNumber(v, 1, 100000); }},
    {"--warmup", "0 to 10000", [](const std::string& v) { return wholeNumber(v, 0, 10000); }},
    {"--worker-timeout", "1 to 86400 seconds",
     [](const std::string& v) { return wholeNumber(v, 1, 86400); }},
};

void checkJobArgs(const std::vector<std::string>& args, const std::string& path,
                  const std::string& where) {
    std::string names;
    for (const AllowedArg& a : kAllowedArgs)
        names += (names.empty() ? "" : ", ") + std::string(a.name);
    for (size_t i = 0; i < args.size(); ++i) {
        const AllowedArg* found = nullptr;
        for (const AllowedArg& a : kAllowedArgs)
            if (args[i] == a.name)
                found = &a;
        if (!found)
            throw InputError(path, where + ": key \"args\"",
                             "only " + names + " (a job list cannot set '" + args[i] + "')");
        if (i + 1 >= args.size() || !found->valid(args[i + 1]))
            throw InputError(path, where + ": key \"args\"",
                             std::string(found->name) + " followed by " + found->what);
        ++i;
    }
}

JobPair pairFromJson(const json& j, const std::string& path, int line, const char* unit) {
    const std::string where = std::string(unit) + " " + std::to_string(line);
    if (!j.is_object())
        throw InputError(path, where, "an object with \"problem\" and \"candidate\"");
    JobPair p;
    p.line = line;
    for (const char* key : {"problem", "candidate"}) {
        if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
            throw InputError(path, where + ": key \"" + key + "\"", "a file name (a string)");
    }
    p.problem = j["problem"].get<std::string>();
    p.candidate = j["candidate"].get<std::string>();
    if (j.contains("args")) {
        if (!j["args"].is_array())
            throw InputError(path, where + ": key \"args\"", "a list of strings");
        for (const json& a : j["args"]) {
            if (!a.is_string())
                throw InputError(path, where + ": key \"args\"", "a list of strings");
            p.args.push_back(a.get<std::string>());
        }
        checkJobArgs(p.args, path, where);
    }
    if (j.contains("timeout_s")) {
        if (!j["timeout_s"].is_number() || j["timeout_s"].get<double>() <= 0)
            throw InputError(path, where + ": key \"timeout_s\"", "a positive number of seconds");
        p.timeoutSeconds = j["timeout_s"].get<double>();
    }
    return p;
}

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", "a readable job list");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The first line that is neither blank nor a comment, and its number.
std::pair<std::string, int> firstLine(const std::string& text) {
    std::istringstream in(text);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        const std::string t = trim(line);
        if (!t.empty() && t[0] != '#')
            return {t, n};
    }
    return {{}, 0};
}

std::vector<std::string> splitPair(const std::string& line) {
    std::vector<std::string> parts;
    if (line.find('\t') != std::string::npos) {
        std::istringstream in(line);
        for (std::string p; std::getline(in, p, '\t');)
            if (!trim(p).empty())
                parts.push_back(trim(p));
    } else {
        std::istringstream in(line);
        for (std::string p; in >> p;)
            parts.push_back(p);
    }
    return parts;
}

}  // namespace

bool looksLikeJobPairs(const std::string& path) {
    std::string text;
    try {
        text = readAll(path);
    } catch (const InputError&) {
        return false;
    }
    const auto [line, n] = firstLine(text);
    if (line.empty())
        return false;
    if (line[0] == '[' || line[0] == '{') {
        const json whole = tryParseJson(text).value_or(json(json::value_t::discarded));
        if (whole.is_array())
            return !whole.empty() && isPairObject(whole.front());
        if (isPairObject(whole))
            return true;
        return isPairObject(tryParseJson(line).value_or(json(json::value_t::discarded)));
    }
    const auto parts = splitPair(line);
    return parts.size() == 2 && isProblemPath(parts[0]);
}

std::vector<JobPair> readJobPairs(const std::string& path) {
    const std::string text = readAll(path);
    std::vector<JobPair> out;
    const auto [first, firstNo] = firstLine(text);
    if (first.empty())
        throw InputError(path, "", "a job list (problem and candidate per line), found no jobs");
    if (first[0] == '[') {
        const json whole =
            parseJson(text, path, "expected a JSON array of {\"problem\", \"candidate\"} objects");
        if (!whole.is_array())
            throw InputError(path, "", "a JSON array of {\"problem\", \"candidate\"} objects");
        int i = 0;
        for (const json& j : whole)
            out.push_back(pairFromJson(j, path, ++i, "entry"));
        return out;
    }
    if (first[0] == '{') {
        const json whole = tryParseJson(text).value_or(json(json::value_t::discarded));
        if (whole.is_object())
            return {pairFromJson(whole, path, 1, "entry")};
    }
    std::istringstream in(text);
    int n = 0;
    for (std::string raw; std::getline(in, raw);) {
        ++n;
        const std::string line = trim(raw);
        if (line.empty() || line[0] == '#')
            continue;
        if (line[0] == '{') {
            const json j = parseJson(line, path, "expected one JSON object per line", n);
            out.push_back(pairFromJson(j, path, n, "line"));
            continue;
        }
        const auto parts = splitPair(line);
        if (parts.size() != 2)
            throw InputError(path, "line " + std::to_string(n),
                             "PROBLEM CANDIDATE (two file names; a tab separates names with "
                             "spaces), found " +
                                 std::to_string(parts.size()) + " field(s)");
        JobPair p;
        p.problem = parts[0];
        p.candidate = parts[1];
        p.line = n;
        out.push_back(std::move(p));
    }
    return out;
}

void hashJobFiles(BatchJob& job) {
    job.candidateHash = Sha256::hexOfFile(job.request.candidateFile);
    job.problemHash = Sha256::hexOfFile(job.request.problemFile);
}

std::vector<TimingSpread> timingSpreads(const std::vector<TimingSample>& samples,
                                        const std::map<std::string, std::string>& labels,
                                        double threshold) {
    std::map<std::string, TimingSpread> groups;
    for (const TimingSample& s : samples) {
        if (s.deviceUuid.empty() || !(s.medianUs > 0))
            continue;
        const std::string key = s.candidateHash + " " + s.problemHash;
        TimingSpread& g = groups[key];
        g.candidateHash = s.candidateHash;
        g.problemHash = s.problemHash;
        g.medianUsByGpu[s.deviceUuid] = s.medianUs;
    }
    std::vector<TimingSpread> out;
    for (auto& [key, g] : groups) {
        if (g.medianUsByGpu.size() < 2)
            continue;
        double lo = 0, hi = 0;
        for (const auto& [uuid, m] : g.medianUsByGpu) {
            lo = lo == 0 ? m : std::min(lo, m);
            hi = std::max(hi, m);
        }
        g.spread = hi / lo - 1;
        g.exceeds = g.spread > threshold;
        const auto l = labels.find(key);
        g.label = l != labels.end() ? l->second : g.candidateHash.substr(0, 12);
        out.push_back(std::move(g));
    }
    std::sort(out.begin(), out.end(),
              [](const TimingSpread& a, const TimingSpread& b) { return a.spread > b.spread; });
    return out;
}

}  // namespace reach
