#pragma once

// A Workload as text, for tests that compare two readings of one file (the Kineto reader on one
// thread and on several: tests/core/trace/kinetosplit_test.cpp, tests/fuzz/kineto_json.cpp).

#include <cstdio>
#include <sstream>
#include <string>

#include "core/base/workload.h"

namespace reach {

// Every field of a Workload, doubles as their exact bits (%a): two readings agree only if this
// text does.
inline std::string dumpWorkload(const Workload& w) {
    std::ostringstream o;
    char buf[64];
    auto num = [&](double v) {
        std::snprintf(buf, sizeof buf, "%a", v);
        return std::string(buf);
    };
    o << w.format << '|' << w.device << '|' << w.sourceHash << '|' << num(w.gpuTimeUs) << '|'
      << num(w.busyTimeUs) << '|' << num(w.spanUs) << '|' << w.eventCount << '\n';
    for (const KernelStats& k : w.kernels) {
        o << k.name << '|' << int(k.kind) << '|' << k.calls << '|' << num(k.totalUs) << '|'
          << num(k.minUs) << '|' << num(k.maxUs) << '|' << k.grid << '|' << k.block << '|'
          << k.graphCalls << '|' << num(k.graphUs) << "|streams";
        for (int s : k.streams)
            o << ' ' << s;
        o << '\n';
        for (const OperatorTime& t : k.operators)
            o << "  op " << t.op << '|' << num(t.totalUs) << '|' << t.calls << '\n';
        for (const ShapedCall& c : k.shapedCalls) {
            o << "  shaped " << c.op << '|' << c.signature << '|' << c.calls << '|' << c.opCalls
              << '|' << num(c.totalUs) << '\n';
        }
    }
    return o.str();
}

}  // namespace reach
