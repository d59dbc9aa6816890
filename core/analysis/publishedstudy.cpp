#include "core/analysis/publishedstudy.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"

namespace reach {

namespace {

using nlohmann::json;

const json& member(const json& obj, const char* key, const std::string& path,
                   const std::string& place) {
    auto it = obj.find(key);
    if (it == obj.end())
        throw InputError(path, place + key, "missing key");
    return *it;
}

double fraction(const json& obj, const char* key, const std::string& path,
                const std::string& place) {
    const json& v = member(obj, key, path, place);
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1)) {
        throw InputError(path, place + key, "expected a number in [0, 1]");
    }
    return v.get<double>();
}

}  // namespace

PublishedStudy readPublishedStudy(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw InputError(path, "path", "expected a JSON file, found a directory");
    }
    const json doc =
        parseJson(readJsonFile(path, "expected a readable JSON file"), path, "expected valid JSON");
    if (!doc.is_object())
        throw InputError(path, "top level", "expected an object");

    PublishedStudy study;
    const json& source = member(doc, "source", path, "");
    if (!source.is_string())
        throw InputError(path, "source", "expected a string");
    study.source = source.get<std::string>();

    const json& projection = member(doc, "projection", path, "");
    if (!projection.is_object())
        throw InputError(path, "projection", "expected an object");
    study.winRate = fraction(projection, "win_rate", path, "projection.");
    const json& m = member(projection, "median_speedup", path, "projection.");
    if (!m.is_number() || !(m.get<double>() > 0)) {
        throw InputError(path, "projection.median_speedup", "expected a number > 0");
    }
    study.medianSpeedup = m.get<double>();

    const json& workloads = member(doc, "workloads", path, "");
    if (!workloads.is_array())
        throw InputError(path, "workloads", "expected an array");
    for (size_t i = 0; i < workloads.size(); ++i) {
        const std::string place = "workloads[" + std::to_string(i) + "].";
        const json& w = workloads[i];
        if (!w.is_object()) {
            throw InputError(path, place.substr(0, place.size() - 1), "expected an object");
        }
        PublishedWorkload pw;
        const json& name = member(w, "name", path, place);
        if (!name.is_string())
            throw InputError(path, place + "name", "expected a string");
        pw.name = name.get<std::string>();
        pw.libraryOptimized = fraction(w, "library_optimized", path, place);
        pw.addressable = fraction(w, "addressable", path, place);
        auto gain = w.find("projected_gain");
        if (gain != w.end() && !gain->is_null()) {
            if (!gain->is_number()) {
                throw InputError(path, place + "projected_gain", "expected a number or null");
            }
            pw.projectedGain = gain->get<double>();
        }
        study.workloads.push_back(std::move(pw));
    }

    auto benchmarks = doc.find("benchmarks");
    if (benchmarks != doc.end()) {
        if (!benchmarks->is_array())
            throw InputError(path, "benchmarks", "expected an array");
        for (size_t i = 0; i < benchmarks->size(); ++i) {
            const std::string place = "benchmarks[" + std::to_string(i) + "]";
            const json& b = (*benchmarks)[i];
            auto count = [&](const char* key) {
                auto it = b.find(key);
                if (it == b.end() || !it->is_number_integer() || it->get<int64_t>() < 0 ||
                    it->get<int64_t>() > 1000000000)
                    throw InputError(path, place + "." + key, "expected a count (an integer >= 0)");
                return int(it->get<int64_t>());
            };
            auto speedup = [&](const char* key) -> std::optional<double> {
                auto it = b.find(key);
                if (it == b.end() || it->is_null())
                    return std::nullopt;
                if (!it->is_number() || !(it->get<double>() > 0))
                    throw InputError(path, place + "." + key, "expected a number > 0 or null");
                return it->get<double>();
            };
            if (!b.is_object() || !b.contains("name") || !b["name"].is_string())
                throw InputError(path, place + ".name", "expected an object with a \"name\"");
            PublishedBenchmark pb;
            pb.name = b["name"].get<std::string>();
            pb.denominator = count("denominator");
            pb.verifiedFaster = count("verified_faster");
            pb.medianSpeedup = speedup("median_speedup");
            pb.maxSpeedup = speedup("max_speedup");
            study.benchmarks.push_back(std::move(pb));
        }
    }
    return study;
}

bool isPublishedStudyFile(const std::string& path) {
    const std::string ext = std::filesystem::path(path).extension().string();
    if (ext != ".json" && ext != ".JSON")
        return false;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return false;
    std::string head(64 * 1024, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(size_t(in.gcount()));
    return head.find("\"workloads\"") != std::string::npos &&
           head.find("\"traceEvents\"") == std::string::npos;
}

}  // namespace reach
