#pragma once

#include <string>
#include <vector>

#include "core/base/servingoperators.h"
#include "core/benchmark/problemsource.h"

namespace reach {

// The problem of one recorded call of a serving stack's custom operator (issue 41, item 2;
// docs/serving-operators.md): the operator's computation as plain PyTorch from Reach's reviewed
// library (computed in float32 at least, float64 when the judge's reference runs in it), the
// recorded tensors drawn at their shapes, dtypes and strides, positions drawn in range of the
// cache they index, scales positive. An in-place operator becomes its functional form: the new
// values of everything it writes, returned as one tensor (the oracle judges one), stacked when
// they share a shape and dtype, else flattened and concatenated.
//
// The workload ran the stack's own kernel, which this problem does not call: the problem's eager
// time is Reach's reference, not the workload's. A candidate's speedup is therefore counted
// against the trace's own time of the call (core/ownbenchmark/exactprojectionreport.h), never
// against the reference.
struct ServingCall {
    bool ok = false;
    std::string why;          // when not ok: one sentence
    std::string definitions;  // the reference function(s), Python, at module level
    std::string forward;      // forward from its parameter list on
    std::vector<std::string> draws;
    std::vector<std::string> assumptions;
    std::string precision;  // bf16, fp16, fp32, fp64: the dtype of its data (first Input)
};

ServingCall servingCall(const ServingOperator& op, const std::vector<CallArgument>& args);

// The precision of a serving operator's call: its data's (the first Input argument's dtype),
// whatever its scales' or caches' (often float32) are: reach-verify casts every floating input
// to it. Empty when it has no floating data tensor.
std::string servingPrecision(const ServingOperator& op, const std::vector<CallArgument>& args);

}  // namespace reach
