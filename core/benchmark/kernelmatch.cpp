#include "core/benchmark/kernelmatch.h"

#include <cmath>
#include <set>

#include "core/base/inputerror.h"

namespace reach {

namespace {

using nlohmann::json;

// Far past what one operator call launches or a benchmark holds; small enough that a runaway
// answer costs bounded memory.
constexpr size_t kMaxProblems = 10000;
constexpr size_t kMaxKernels = 10000;
constexpr size_t kMaxNameBytes = 64 * 1024;

class Reader {
public:
    explicit Reader(std::string source) : m_source(std::move(source)) {}
    [[noreturn]] void fail(const std::string& place, const std::string& expected) const {
        throw InputError(m_source, place, expected);
    }
    std::string text(const json& o, const std::string& where, const char* key,
                     bool nullable) const {
        auto it = o.find(key);
        if (it == o.end())
            fail(where + key, "missing");
        if (nullable && it->is_null())
            return {};
        if (!it->is_string() || it->get_ref<const std::string&>().size() > kMaxNameBytes)
            fail(where + key, "a string of at most 64 KiB");
        return it->get<std::string>();
    }
    double number(const json& o, const std::string& where, const char* key) const {
        auto it = o.find(key);
        if (it == o.end() || !it->is_number() || !std::isfinite(it->get<double>()) ||
            it->get<double>() < 0)
            fail(where + key, "a finite number >= 0");
        return it->get<double>();
    }

private:
    std::string m_source;
};

}  // namespace

LaunchReport readLaunchReport(const json& doc, const std::string& source) {
    const Reader r(source);
    if (!doc.is_object())
        r.fail("", "a JSON object (reach_problem_kernels.py's answer)");
    LaunchReport runs;
    runs.torch = r.text(doc, "", "torch", true);
    runs.device = r.text(doc, "", "device", true);
    runs.deviceName = r.text(doc, "", "device_name", true);
    auto problems = doc.find("problems");
    if (problems == doc.end() || !problems->is_array() || problems->size() > kMaxProblems)
        r.fail("problems", "an array of at most 10000 problems");
    for (size_t i = 0; i < problems->size(); ++i) {
        const json& p = (*problems)[i];
        const std::string where = "problems[" + std::to_string(i) + "].";
        if (!p.is_object())
            r.fail(where, "an object");
        ProblemLaunches run;
        run.file = r.text(p, where, "file", false);
        auto ok = p.find("ok");
        if (ok == p.end() || !ok->is_boolean())
            r.fail(where + "ok", "true or false");
        run.ok = ok->get<bool>();
        run.error = r.text(p, where, "error", true);
        if (p.contains("seconds"))
            run.seconds = r.number(p, where, "seconds");
        auto kernels = p.find("kernels");
        if (kernels == p.end() || !kernels->is_array() || kernels->size() > kMaxKernels)
            r.fail(where + "kernels", "an array of at most 10000 kernels");
        for (size_t k = 0; k < kernels->size(); ++k) {
            const json& kj = (*kernels)[k];
            const std::string kw = where + "kernels[" + std::to_string(k) + "].";
            if (!kj.is_object())
                r.fail(kw, "an object");
            LaunchedKernel lk;
            lk.name = r.text(kj, kw, "name", false);
            const double calls = r.number(kj, kw, "calls");
            if (calls != std::floor(calls) || calls > 1e12)
                r.fail(kw + "calls", "a whole number");
            lk.calls = int64_t(calls);
            lk.us = r.number(kj, kw, "us");
            run.kernels.push_back(std::move(lk));
        }
        runs.problems.push_back(std::move(run));
    }
    return runs;
}

KernelMatch matchKernels(const std::vector<TraceKernel>& trace, const ProblemLaunches& run) {
    KernelMatch m;
    for (const TraceKernel& k : trace)
        m.traceUs += k.us;
    m.ran = run.ok;
    m.error = run.ok ? std::string() : run.error;
    std::set<std::string> launched, wanted;
    if (run.ok)
        for (const LaunchedKernel& k : run.kernels)
            launched.insert(k.name);
    for (const TraceKernel& k : trace) {
        wanted.insert(k.name);
        if (launched.count(k.name))
            m.matchedUs += k.us;
        else
            m.missing.push_back(k.name);
    }
    for (const std::string& name : launched)
        if (!wanted.count(name))
            m.extra.push_back(name);
    if (run.ok)
        for (const LaunchedKernel& k : run.kernels) {
            m.launchedUs += k.us;
            if (!wanted.count(k.name))
                m.extraUs += k.us;
        }
    return m;
}

json kernelMatchJson(const KernelMatch& m) {
    return {{"ran", m.ran},
            {"error", m.ran ? json(nullptr) : json(m.error)},
            {"matched_share", m.matchedShare()},
            {"matched_us", m.matchedUs},
            {"trace_us", m.traceUs},
            {"missing", m.missing},
            {"extra", m.extra},
            {"launched_us", m.launchedUs},
            {"extra_us", m.extraUs}};
}

}  // namespace reach
