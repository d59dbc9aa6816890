#include "core/verify/operators.h"

#include "core/verify/defaultthresholds.h"

#include <cmath>
#include <map>
#include <mutex>

#include "core/base/inputerror.h"
#include "core/base/parallel.h"

namespace reach {

Thresholds Thresholds::forDtype(DType d) {
    // One table for the C++ oracle and the Python worker: resources/oracle/thresholds.json,
    // compiled in (it says why each number is what it is).
    static const nlohmann::json table =
        nlohmann::json::parse(kDefaultThresholdsJson).at("precisions");
    const char* key = d == DType::BF16 ? "bf16" : d == DType::F16 ? "fp16" : "fp32";
    Thresholds t;
    t.apply(table.at(key), "resources/oracle/thresholds.json");
    return t;
}

double kernelBenchTolerance(DType d) {
    static const nlohmann::json table =
        nlohmann::json::parse(kDefaultThresholdsJson).at("kernelbench_tolerance");
    return table.at(d == DType::BF16 ? "bf16" : d == DType::F16 ? "fp16" : "fp32").get<double>();
}

void Thresholds::apply(const nlohmann::json& j, const std::string& file) {
    if (!j.is_object())
        throw InputError(file, "thresholds", "an object");
    auto get = [&](const char* key, double* dst) {
        if (!j.contains(key))
            return;
        if (!j.at(key).is_number() || j.at(key).get<double>() < 0)
            throw InputError(file, std::string("thresholds.") + key, "a non-negative number");
        *dst = j.at(key).get<double>();
    };
    get("rel_frobenius", &relFrobenius);
    get("norm_max_error", &normMaxError);
    get("invariant", &invariant);
    get("written_fraction", &writtenFraction);
}

nlohmann::json Thresholds::toJson() const {
    return {{"rel_frobenius", relFrobenius},
            {"norm_max_error", normMaxError},
            {"invariant", invariant},
            {"written_fraction", writtenFraction}};
}

Problem parseProblem(const nlohmann::json& j, const std::string& file) {
    Problem p = Problem::fromJson(j, file);
    operatorFor(p.op, file).validate(p);
    return p;
}

Problem loadProblem(const std::string& path) {
    Problem p = Problem::load(path);
    operatorFor(p.op, path).validate(p);
    return p;
}

void Operator::validate(const Problem& p) const {
    for (const auto& s : inputSpecs(p))
        (void)s;
    for (const auto& s : outputSpecs(p))
        (void)s;
}

std::vector<std::vector<double>> Operator::referenceAt(
    const Problem& p, const std::vector<HostTensor>& in,
    const std::vector<std::vector<int64_t>>& positions) const {
    const std::vector<std::vector<double>> full = reference(p, in);
    std::vector<std::vector<double>> out;
    for (size_t k = 0; k < positions.size() && k < full.size(); ++k) {
        std::vector<double> v;
        v.reserve(positions[k].size());
        for (int64_t i : positions[k])
            v.push_back(full[k][size_t(i)]);
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<HostTensor> Operator::makeInputs(const Problem& p, uint64_t seed) const {
    std::vector<HostTensor> out;
    uint64_t k = 0;
    for (const auto& spec : inputSpecs(p)) {
        HostTensor t(spec);
        // KernelBench draws most inputs with torch.rand (uniform in [0, 1)); a problem can ask
        // for that with params.distribution = "uniform" to reproduce its numbers.
        if (p.params.value("distribution", "normal") == "uniform")
            ops::fillUniform(t, seed * 1000003ull + (++k), 0.0, p.inputScale());
        else
            ops::fillNormal(t, seed * 1000003ull + (++k), p.inputScale());
        out.push_back(std::move(t));
    }
    return out;
}

double Operator::minimalBytes(const Problem& p, const std::vector<HostTensor>&) const {
    double b = 0;
    for (const auto& s : inputSpecs(p))
        b += double(s.bytes());
    for (const auto& s : outputSpecs(p))
        b += double(s.bytes());
    return b;
}

std::vector<InvariantValue> Operator::invariants(const Problem&, const std::vector<HostTensor>&,
                                                 const std::vector<std::vector<double>>&,
                                                 const Thresholds&) const {
    return {};
}

namespace {
std::map<std::string, std::unique_ptr<Operator>>& registry() {
    static std::map<std::string, std::unique_ptr<Operator>> r;
    return r;
}
void ensureRegistered() {
    static std::once_flag once;
    std::call_once(once, [] {
        ops::registerRowwise();
        ops::registerElementwise();
        ops::registerOthers();
    });
}

// Counter-based generator: element i depends only on (seed, i), so generation parallelizes
// and the same seed gives the same tensor on every machine.
inline uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
inline double uniform01(uint64_t seed, uint64_t i) {
    return (double(mix(seed ^ mix(i)) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}
}  // namespace

const Operator& operatorFor(const std::string& op, const std::string& file) {
    ensureRegistered();
    auto it = registry().find(op);
    if (it == registry().end()) {
        std::string known;
        for (const auto& n : operatorNames())
            known += (known.empty() ? "" : ", ") + n;
        throw InputError(file, "key 'op'", "one of " + known + " (got \"" + op + "\")");
    }
    return *it->second;
}

std::vector<std::string> operatorNames() {
    ensureRegistered();
    std::vector<std::string> n;
    for (const auto& [k, v] : registry())
        n.push_back(k);
    return n;
}

namespace ops {

void registerOperator(std::unique_ptr<Operator> op) {
    std::string n = op->name();
    registry()[n] = std::move(op);
}

void fillNormal(HostTensor& t, uint64_t seed, double scale, double offset) {
    parallelFor(t.numel(), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            double u1 = uniform01(seed, uint64_t(2 * i)), u2 = uniform01(seed, uint64_t(2 * i + 1));
            double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
            double v = offset + scale * z;
            // Never exactly zero: zeros hide unwritten outputs and wrong indexing.
            if (v == 0)
                v = scale * 1e-3;
            t.set(i, v);
        }
    });
}

void fillUniform(HostTensor& t, uint64_t seed, double lo, double hi) {
    parallelFor(t.numel(), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i)
            t.set(i, lo + (hi - lo) * uniform01(seed, uint64_t(i)));
    });
}

void fillIndices(HostTensor& t, uint64_t seed, int64_t bound) {
    parallelFor(t.numel(), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            int64_t v = int64_t(uniform01(seed, uint64_t(i)) * double(bound));
            t.set(i, double(std::min(v, bound - 1)));
        }
    });
}

}  // namespace ops
}  // namespace reach
