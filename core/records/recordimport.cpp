#include "core/records/recordimport.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <ostream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"

namespace reach {

namespace {

using nlohmann::json;

std::string placeOf(int64_t line, const std::string& key) {
    return "line " + std::to_string(line) + (key.empty() ? "" : ", key \"" + key + "\"");
}

// Ids are written as strings or integers by different tools ("23" and 23 are the same problem).
std::string idText(const json& o, const char* key, const std::string& file, int64_t line) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null())
        return {};
    if (it->is_string())
        return it->get<std::string>();
    if (it->is_number_integer())
        return std::to_string(it->get<int64_t>());
    throw InputError(file, placeOf(line, key), "expected a string or an integer");
}

std::string text(const json& o, const char* key, const std::string& file, int64_t line) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null())
        return {};
    if (!it->is_string())
        throw InputError(file, placeOf(line, key), "expected a string");
    return it->get<std::string>();
}

bool flag(const json& o, const char* key, const std::string& file, int64_t line) {
    auto it = o.find(key);
    if (it == o.end())
        throw InputError(file, placeOf(line, key), "missing; expected true or false");
    if (!it->is_boolean())
        throw InputError(file, placeOf(line, key), "expected true or false");
    return it->get<bool>();
}

std::optional<double> number(const json& o, const char* key, const std::string& file,
                             int64_t line) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null())
        return std::nullopt;
    if (!it->is_number())
        throw InputError(file, placeOf(line, key), "expected a number or null");
    return it->get<double>();
}

json optionalNumber(const std::optional<double>& v) {
    return v ? json(*v) : json(nullptr);
}

}  // namespace

void finishRecord(EvalRecord& r, const std::string& file, const std::string& place) {
    auto field = [&](const char* key) { return place + ", key \"" + key + "\""; };
    if (r.problemId.empty() && r.problemName.empty()) {
        throw InputError(file, field("problem_id"), "expected a problem id or a problem name");
    }
    if (r.problemId.empty())
        r.problemId = r.problemName;
    if (r.problemName.empty())
        r.problemName = r.problemId;
    if (r.correct && !r.compiled) {
        throw InputError(file, field("compiled"),
                         "is false but \"correct\" is true: a kernel that did not compile was "
                         "not run");
    }
    struct Bounded {
        const char* key;
        std::optional<double>* value;
        double lo, hi;
        const char* what;
    };
    const Bounded values[] = {
        {"candidate_time_us", &r.candidateTimeUs, kMinRecordUs, kMaxRecordUs, "a time in us"},
        {"baseline_eager_us", &r.baselineEagerUs, kMinRecordUs, kMaxRecordUs, "a time in us"},
        {"baseline_compile_us", &r.baselineCompileUs, kMinRecordUs, kMaxRecordUs, "a time in us"},
        {"baseline_recorded_us", &r.baselineRecordedUs, kMinRecordUs, kMaxRecordUs, "a time in us"},
        {"speedup", &r.speedup, kMinRecordSpeedup, kMaxRecordSpeedup, "a speedup"},
        {"roofline_floor_us", &r.rooflineFloorUs, kMinRecordUs, kMaxRecordUs, "a time in us"}};
    auto check = [&](const Bounded& b) {
        if (*b.value && !(std::isfinite(**b.value) && **b.value >= b.lo && **b.value <= b.hi)) {
            char got[64];
            std::snprintf(got, sizeof got, "%.6g", **b.value);
            char range[64];
            std::snprintf(range, sizeof range, " from %g to %g", b.lo, b.hi);
            throw InputError(file, field(b.key),
                             std::string("expected ") + b.what + range + ", got " + got);
        }
    };
    for (const Bounded& b : values)
        check(b);
    if (!r.speedup) {
        // From two times in bounds, a ratio may still be past physics: 10^12 / 10^-3.
        r.speedup = r.speedupFromTimes();
        check({"speedup (baseline / candidate time)", &r.speedup, kMinRecordSpeedup,
               kMaxRecordSpeedup, "a speedup"});
    }
    if (r.level < 0)
        throw InputError(file, field("level"), "expected 0 or a positive level");
}

EvalRecord recordFromJson(const json& o, const std::string& file, int64_t line) {
    if (!o.is_object())
        throw InputError(file, placeOf(line, ""), "expected a JSON object");
    EvalRecord r;
    r.problemId = idText(o, "problem_id", file, line);
    r.problemName = text(o, "problem_name", file, line);
    if (auto it = o.find("level"); it != o.end() && !it->is_null()) {
        if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > 1000000 ||
            (it->is_number_unsigned() && it->get<uint64_t>() > 1000000)) {
            throw InputError(file, placeOf(line, "level"), "expected an integer from 0 to 1000000");
        }
        r.level = it->get<int>();
    }
    r.suite = text(o, "suite", file, line);
    r.category = text(o, "category", file, line);
    r.dtype = text(o, "dtype", file, line);
    r.model = text(o, "model", file, line);
    r.backend = text(o, "backend", file, line);
    r.sampleId = idText(o, "sample_id", file, line);
    r.compiled = flag(o, "compiled", file, line);
    r.correct = flag(o, "correct", file, line);
    r.candidateTimeUs = number(o, "candidate_time_us", file, line);
    r.baselineEagerUs = number(o, "baseline_eager_us", file, line);
    r.baselineCompileUs = number(o, "baseline_compile_us", file, line);
    r.baselineRecordedUs = number(o, "baseline_recorded_us", file, line);
    r.speedup = number(o, "speedup", file, line);
    r.artifactPath = text(o, "artifact_path", file, line);
    r.harness = text(o, "harness", file, line);
    r.hardware = text(o, "hardware", file, line);
    r.date = text(o, "date", file, line);
    if (auto it = o.find("verification"); it != o.end() && !it->is_null()) {
        auto v = it->is_string() ? verificationFromString(it->get<std::string>()) : std::nullopt;
        if (!v) {
            throw InputError(file, placeOf(line, "verification"),
                             "expected \"unverified\", \"passed\" or \"failed\"");
        }
        r.verification = *v;
    }
    if (auto it = o.find("verification_reasons"); it != o.end() && !it->is_null()) {
        if (!it->is_array()) {
            throw InputError(file, placeOf(line, "verification_reasons"),
                             "expected an array of strings");
        }
        for (const json& reason : *it) {
            if (!reason.is_string()) {
                throw InputError(file, placeOf(line, "verification_reasons"),
                                 "expected an array of strings");
            }
            r.verificationReasons.push_back(reason.get<std::string>());
        }
    }
    r.rooflineFloorUs = number(o, "roofline_floor_us", file, line);
    r.source = file;
    r.sourceLine = line;
    finishRecord(r, file, "line " + std::to_string(line));
    return r;
}

json recordToJson(const EvalRecord& r) {
    json o = json::object();
    o["problem_id"] = r.problemId;
    o["problem_name"] = r.problemName;
    o["level"] = r.level;
    o["suite"] = r.suite;
    o["category"] = r.category;
    o["dtype"] = r.dtype;
    o["model"] = r.model;
    o["backend"] = r.backend;
    o["sample_id"] = r.sampleId;
    o["compiled"] = r.compiled;
    o["correct"] = r.correct;
    o["candidate_time_us"] = optionalNumber(r.candidateTimeUs);
    o["baseline_eager_us"] = optionalNumber(r.baselineEagerUs);
    o["baseline_compile_us"] = optionalNumber(r.baselineCompileUs);
    o["baseline_recorded_us"] = optionalNumber(r.baselineRecordedUs);
    o["speedup"] = optionalNumber(r.speedup);
    o["artifact_path"] = r.artifactPath;
    o["harness"] = r.harness;
    o["hardware"] = r.hardware;
    o["date"] = r.date;
    o["verification"] = std::string(verificationKey(r.verification));
    o["verification_reasons"] = r.verificationReasons;
    o["roofline_floor_us"] = optionalNumber(r.rooflineFloorUs);
    return o;
}

void writeReachJsonl(std::ostream& out, const std::vector<EvalRecord>& records) {
    for (const EvalRecord& r : records)
        out << recordToJson(r).dump() << '\n';
}

std::vector<EvalRecord> parseReachJsonl(std::istream& in, const std::string& sourceName) {
    std::vector<EvalRecord> records;
    std::string lineText;
    int64_t line = 0;
    while (std::getline(in, lineText)) {
        ++line;
        if (!lineText.empty() && lineText.back() == '\r')
            lineText.pop_back();
        const auto first = lineText.find_first_not_of(" \t");
        if (first == std::string::npos || lineText[first] == '#')
            continue;
        const json o = parseJson(lineText, sourceName, "expected one JSON object per line", line);
        records.push_back(recordFromJson(o, sourceName, line));
    }
    return records;
}

std::vector<EvalRecord> readReachJsonl(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw InputError(path, "", "cannot open; expected a Reach records file (.jsonl)");
    return parseReachJsonl(in, path);
}

}  // namespace reach
