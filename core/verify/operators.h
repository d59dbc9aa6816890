#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/verify/hosttensor.h"
#include "core/verify/problem.h"

namespace reach {

// Per-dtype tolerances of the oracle (docs/verifier.md). Defaults from forDtype(); a problem's
// params.thresholds or the verifier's --thresholds file may override any key.
struct Thresholds {
    double relFrobenius = 1e-3;    // ||out-ref|| / ||ref||
    double normMaxError = 5e-3;    // max|out-ref| / max|ref|
    double invariant = 1e-3;       // operator invariants (absolute, on normalized quantities)
    double writtenFraction = 1.0;  // every output element must be written

    static Thresholds forDtype(DType d);
    // Applies overrides from a JSON object with keys rel_frobenius, norm_max_error, invariant,
    // written_fraction; throws InputError (file, "thresholds.<key>") on a bad value.
    void apply(const nlohmann::json& j, const std::string& file);
    nlohmann::json toJson() const;
};

// KernelBench's own check, torch.allclose(atol=rtol=tol) at the output's precision: the
// tolerance it uses for `d` (resources/oracle/thresholds.json, kernelbench_tolerance; the
// Python worker reads the same key). Reported beside Reach's verdict, never one of its checks.
double kernelBenchTolerance(DType d);

// One named invariant of an operator evaluated on a candidate's output.
struct InvariantValue {
    std::string name;  // e.g. "row_sum" (the check is reported as "invariant:row_sum")
    double value = 0;  // the measured deviation (0 is perfect)
    double threshold = 0;
    std::string description;
};

// A built-in operator: argument layout, random inputs, a double-precision reference, the
// minimal bytes and flops for the roofline floor, and invariants that hold for any input.
class Operator {
public:
    virtual ~Operator() = default;
    virtual std::string name() const = 0;
    virtual std::string family() const = 0;  // elementwise, norm, softmax, reduction, ...
    // Throws InputError when the problem's shapes/params do not fit this operator.
    virtual void validate(const Problem& p) const;
    virtual std::vector<TensorSpec> inputSpecs(const Problem& p) const = 0;
    virtual std::vector<TensorSpec> outputSpecs(const Problem& p) const = 0;
    // Fresh random inputs, never zeros; deterministic in `seed`.
    virtual std::vector<HostTensor> makeInputs(const Problem& p, uint64_t seed) const;
    // One vector of doubles per output, computed in double from the (dtype-rounded) inputs.
    virtual std::vector<std::vector<double>> reference(const Problem& p,
                                                       const std::vector<HostTensor>& in) const = 0;
    // The reference at some elements only: positions[k] are indices into output k. A timed
    // repetition is checked at its sampled elements (docs/verifier.md); the default computes the
    // whole reference, operators whose reference costs far more than its output (matrix
    // products) compute just the elements asked for.
    virtual std::vector<std::vector<double>> referenceAt(
        const Problem& p, const std::vector<HostTensor>& in,
        const std::vector<std::vector<int64_t>>& positions) const;
    virtual double minimalBytes(const Problem& p, const std::vector<HostTensor>& in) const;
    virtual double flops(const Problem& p) const = 0;
    // Invariants on the candidate's outputs (as doubles; unwritten elements are NaN).
    virtual std::vector<InvariantValue> invariants(const Problem& p,
                                                   const std::vector<HostTensor>& in,
                                                   const std::vector<std::vector<double>>& out,
                                                   const Thresholds& t) const;
};

// The operator named `op`; throws InputError(file, "key 'op'", list of known operators).
const Operator& operatorFor(const std::string& op, const std::string& file = "problem");

// A problem read and checked by its operator (shapes and params it needs, consistent): what
// the verifier runs. Throws InputError naming the file and the key.
Problem parseProblem(const nlohmann::json& j, const std::string& file);
Problem loadProblem(const std::string& path);
std::vector<std::string> operatorNames();

// Helpers the operator files share.
namespace ops {
void fillNormal(HostTensor& t, uint64_t seed, double scale, double offset = 0);
void fillUniform(HostTensor& t, uint64_t seed, double lo, double hi);
void fillIndices(HostTensor& t, uint64_t seed, int64_t bound);
void registerOperator(std::unique_ptr<Operator> op);
void registerRowwise();
void registerElementwise();
void registerOthers();
}  // namespace ops

}  // namespace reach
