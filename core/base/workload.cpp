#include "core/base/workload.h"

namespace reach {

double KernelStats::linkedUs() const {
    double t = 0;
    for (const OperatorTime& o : operators)
        t += o.totalUs;
    return t;
}

const std::string& KernelStats::dominantOperator() const {
    static const std::string kNone;
    return operators.empty() ? kNone : operators.front().op;
}

bool Workload::hasOperatorLinks() const {
    for (const KernelStats& k : kernels) {
        if (!k.operators.empty())
            return true;
    }
    return false;
}

bool Workload::hasShapes() const {
    for (const KernelStats& k : kernels) {
        if (!k.shapedCalls.empty())
            return true;
    }
    return false;
}

}  // namespace reach
