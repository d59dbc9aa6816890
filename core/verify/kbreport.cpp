#include "core/verify/kbreport.h"

#include <cmath>
#include <string>

namespace reach {

using nlohmann::json;

namespace {

constexpr size_t kMaxText = 8000;   // a message, a note
constexpr size_t kMaxLog = 64000;   // the log
constexpr size_t kMaxList = 1000;   // per-trial lists

enum class Kind { Bool, Number, Text, Log, Numbers, Texts, Object };

// Numbers that are finite, and nested objects of plain values only (a trial's record, the
// timing statistics, the versions), to a bounded size.
json plain(const json& v, int depth = 0) {
    if (v.is_boolean() || v.is_null())
        return v;
    if (v.is_number())
        return std::isfinite(v.get<double>()) ? v : json(nullptr);
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        return s.size() <= kMaxText ? v : json(s.substr(0, kMaxText) + "...");
    }
    if (depth >= 3)
        return json(nullptr);
    if (v.is_array()) {
        json out = json::array();
        for (const json& x : v) {
            if (out.size() >= kMaxList)
                break;
            out.push_back(plain(x, depth + 1));
        }
        return out;
    }
    json out = json::object();
    for (auto it = v.begin(); it != v.end() && out.size() < kMaxList; ++it)
        out[it.key().substr(0, 200)] = plain(it.value(), depth + 1);
    return out;
}

bool fits(const json& v, Kind k) {
    switch (k) {
    case Kind::Bool:
        return v.is_boolean() || v.is_null();
    case Kind::Number:
        return v.is_number() || v.is_null();
    case Kind::Text:
    case Kind::Log:
        return v.is_string() || v.is_null();
    case Kind::Numbers:
    case Kind::Texts:
        return v.is_array();
    case Kind::Object:
        return v.is_object();
    }
    return false;
}

}  // namespace

json kernelBenchReport(const json& doc) {
    static const std::pair<const char*, Kind> kKeys[] = {
        {"mode", Kind::Text},
        {"reproduces", Kind::Text},
        {"compiled", Kind::Bool},
        {"correctness", Kind::Bool},
        {"correctness_trials", Kind::Text},
        {"trials_passed", Kind::Number},
        {"trials_total", Kind::Number},
        {"max_difference", Kind::Numbers},
        {"avg_difference", Kind::Numbers},
        {"tolerance", Kind::Number},
        {"precision", Kind::Text},
        {"runtime_ms", Kind::Number},
        {"runtime_stats", Kind::Object},
        {"ref_runtime_ms", Kind::Number},
        {"ref_runtime_stats", Kind::Object},
        {"timing_method", Kind::Text},
        {"excessive_speedup", Kind::Bool},
        {"error_kind", Kind::Text},
        {"error", Kind::Text},
        {"backend", Kind::Text},
        {"seed", Kind::Number},
        {"trial_seeds", Kind::Numbers},
        {"trials", Kind::Numbers},
        {"metadata", Kind::Object},
        {"notes", Kind::Texts},
        {"log", Kind::Log},
        {"compile_log", Kind::Log},
        {"versions", Kind::Object},
        {"device", Kind::Object},
        {"reused", Kind::Object},
        {"phase_seconds", Kind::Object},
        {"verdict", Kind::Text},  // a part that did not run: the parent's own words
    };
    json out = json::object();
    if (!doc.is_object())
        return out;
    for (const auto& [key, kind] : kKeys) {
        const auto it = doc.find(key);
        if (it == doc.end() || !fits(*it, kind))
            continue;
        if (kind == Kind::Log) {
            const std::string s = it->is_string() ? it->get<std::string>() : std::string();
            out[key] = s.size() <= kMaxLog ? s : "..." + s.substr(s.size() - kMaxLog);
        } else {
            out[key] = plain(*it);
        }
    }
    out["reported_by"] =
        "KernelBench's check reproduced in a process the candidate runs in: a report, not "
        "evidence (Reach's verdict and time are the judge's)";
    return out;
}

}  // namespace reach
