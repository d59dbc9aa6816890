#include "core/distributed/ranksummary.h"

#include <cmath>
#include <filesystem>
#include <limits>

#include "core/base/category.h"
#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/trace/bytesource.h"

namespace reach {

namespace {

constexpr const char* kSchema = "reach.rank_summary";
constexpr const char* kExpected = "a rank summary of reach-cli breakdown --rank-summary";

nlohmann::ordered_json spansJson(const std::vector<Span>& spans) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Span& s : spans)
        out.push_back({s.first, s.second});
    return out;
}

class Reader {
public:
    Reader(std::string path, const nlohmann::json& doc) : m_path(std::move(path)), m_doc(doc) {}

    [[noreturn]] void fail(const std::string& key, const std::string& what) const {
        throw InputError(m_path, "key \"" + key + "\"", what);
    }

    const nlohmann::json& at(const nlohmann::json& obj, const std::string& key,
                             const std::string& where) const {
        if (!obj.is_object() || !obj.contains(key))
            fail(where + key, "present");
        return obj[key];
    }

    // A time or a size: finite, not negative, below any clock's (a scan keeps events that
    // begin before 1e17 us and last less than 1e12).
    double time(const nlohmann::json& v, const std::string& key) const {
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 ||
            v.get<double>() >= 2e17)
            fail(key, "a number from 0 to 2e17");
        return v.get<double>();
    }

    int64_t integer(const nlohmann::json& v, const std::string& key, int64_t low) const {
        if (!v.is_number_integer() || v.get<int64_t>() < low ||
            v.get<int64_t>() > (int64_t(1) << 58))
            fail(key, "an integer from " + std::to_string(low));
        return v.get<int64_t>();
    }

    std::string text(const nlohmann::json& v, const std::string& key, size_t max) const {
        if (!v.is_string() || v.get<std::string>().size() > max)
            fail(key, "a string of at most " + std::to_string(max) + " bytes");
        return v.get<std::string>();
    }

    std::vector<Span> spans(const nlohmann::json& v, const std::string& key) const {
        if (!v.is_array())
            fail(key, "a list of [begin, end] pairs");
        std::vector<Span> out;
        double last = -1;
        for (const auto& s : v) {
            if (!s.is_array() || s.size() != 2)
                fail(key, "a list of [begin, end] pairs");
            const double b = time(s[0], key), e = time(s[1], key);
            if (e < b || b < last)
                fail(key, "sorted, disjoint spans (begin <= end, each after the last)");
            out.push_back({b, e});
            last = e;
        }
        return out;
    }

    RankSummary read() const {
        RankSummary s;
        if (!m_doc.is_object() || m_doc.value("schema", "") != kSchema)
            fail("schema", std::string("\"") + kSchema + "\"");
        RankTrace& t = s.trace;
        t.path = text(at(m_doc, "file", ""), "file", 4096);
        t.rank = int(integer(at(m_doc, "rank", ""), "rank", 0));
        t.rankFrom = text(at(m_doc, "rank_from", ""), "rank_from", 32);
        t.worldSize = int(integer(at(m_doc, "world_size", ""), "world_size", 0));
        t.backend = text(at(m_doc, "backend", ""), "backend", 64);
        s.gpuTimeUs = time(at(m_doc, "gpu_time_us", ""), "gpu_time_us");
        t.gpuUs = s.gpuTimeUs;
        const nlohmann::json& cats = at(m_doc, "category_us", "");
        double sum = 0;
        for (Category c : kCategories) {
            const std::string key(categoryKey(c));
            s.categoryUs[size_t(c)] = time(at(cats, key, "category_us."), "category_us." + key);
            sum += s.categoryUs[size_t(c)];
        }
        if (std::fabs(sum - s.gpuTimeUs) > 1e-6 * std::max(1.0, s.gpuTimeUs))
            fail("category_us", "four times that sum to gpu_time_us");
        s.rulesName = text(at(m_doc, "rules_name", ""), "rules_name", 256);
        s.rulesHash = text(at(m_doc, "rules_hash", ""), "rules_hash", 128);
        t.collectiveSpans = spans(at(m_doc, "collective_spans", ""), "collective_spans");
        // Version 1 kept every compute span; version 2 those overlapping the collectives, and
        // the whole length apart.
        const std::vector<Span> compute = spans(at(m_doc, "compute_spans", ""), "compute_spans");
        t.computeSpans = spanIntersection(compute, t.collectiveSpans);
        t.computeUs = m_doc.contains("compute_us") ? time(m_doc.at("compute_us"), "compute_us")
                                                   : spanLength(compute);
        const nlohmann::json& cs = at(m_doc, "collectives", "");
        if (!cs.is_array())
            fail("collectives", "a list");
        for (const auto& c : cs) {
            Collective x;
            x.op = text(at(c, "op", "collectives[]."), "collectives[].op", 64);
            if (x.op.empty())
                fail("collectives[].op", "an operation's name");
            x.kernel = text(at(c, "kernel", "collectives[]."), "collectives[].kernel", 512);
            x.stream = integer(at(c, "stream", "collectives[]."), "collectives[].stream", -1);
            x.begin = time(at(c, "begin_us", "collectives[]."), "collectives[].begin_us");
            x.end = time(at(c, "end_us", "collectives[]."), "collectives[].end_us");
            if (x.end < x.begin)
                fail("collectives[].end_us", "not before begin_us");
            x.group = text(at(c, "group", "collectives[]."), "collectives[].group", 128);
            x.bytes = integer(at(c, "bytes", "collectives[]."), "collectives[].bytes", -1);
            x.seq = integer(at(c, "seq", "collectives[]."), "collectives[].seq", -1);
            t.collectives.push_back(std::move(x));
        }
        return s;
    }

private:
    std::string m_path;
    const nlohmann::json& m_doc;
};

}  // namespace

std::string rankSummaryText(const RankSummary& s) {
    const RankTrace& t = s.trace;
    nlohmann::ordered_json doc;
    doc["schema"] = kSchema;
    doc["schema_version"] = 2;
    doc["file"] = t.path;
    doc["rank"] = t.rank;
    doc["rank_from"] = t.rankFrom;
    doc["world_size"] = t.worldSize;
    doc["backend"] = t.backend;
    doc["gpu_time_us"] = s.gpuTimeUs;
    nlohmann::ordered_json cats;
    for (Category c : kCategories)
        cats[std::string(categoryKey(c))] = s.categoryUs[size_t(c)];
    doc["category_us"] = cats;
    doc["rules_name"] = s.rulesName;
    doc["rules_hash"] = s.rulesHash;
    doc["compute_us"] = t.computeUs;
    doc["compute_spans"] = spansJson(t.computeSpans);
    doc["collective_spans"] = spansJson(t.collectiveSpans);
    nlohmann::ordered_json cs = nlohmann::ordered_json::array();
    for (const Collective& c : t.collectives)
        cs.push_back({{"op", c.op},
                      {"kernel", c.kernel},
                      {"stream", c.stream},
                      {"begin_us", c.begin},
                      {"end_us", c.end},
                      {"group", c.group},
                      {"bytes", c.bytes},
                      {"seq", c.seq}});
    doc["collectives"] = cs;
    return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

bool looksLikeRankSummary(const std::string& path) {
    const std::string head = ByteSource::peek(path, 64);
    std::string squeezed;
    for (char c : head)
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            squeezed += c;
    if (squeezed.rfind(std::string("{\"schema\":\"") + kSchema + "\"", 0) == 0)
        return true;
    // Written back by another tool, its keys in another order: a JSON object of at most 8 MB
    // (a trace that small costs one more read; a larger one is never parsed whole here) that
    // says it is one.
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (squeezed.empty() || squeezed[0] != '{' || ec || size > (8u << 20))
        return false;
    const auto doc = trySniffJsonFile(path);
    return doc && doc->is_object() && doc->value("schema", nlohmann::json()) == kSchema;
}

RankSummary readRankSummary(const std::string& path) {
    const nlohmann::json doc = parseJson(readJsonFile(path, kExpected), path, kExpected);
    return Reader(path, doc).read();
}

}  // namespace reach
