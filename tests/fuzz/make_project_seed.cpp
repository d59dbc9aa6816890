// Writes a small project (a workload with operators, a record set, a rule set, a mapping preset,
// a verification) for the project fuzz target's seed corpus: scripts/fuzz runs it.
#include <cstdio>
#include <filesystem>

#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/store/verificationstore.h"
#include "core/verify/verification.h"

int main(int argc, char** argv) {
    using namespace reach;
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_make_project_seed OUT.reach\n");
        return 2;
    }
    std::filesystem::remove(argv[1]);
    ProjectStore store = ProjectStore::open(argv[1]);
    Workload w;
    w.name = "seed";
    w.source = "seed.json";
    w.sourceHash = "00";
    w.format = "kineto";
    w.gpuTimeUs = 5;
    KernelStats k;
    k.name = "void at::native::vectorized_elementwise_kernel<4>(int)";
    k.calls = 2;
    k.totalUs = 5;
    k.minUs = 2;
    k.maxUs = 3;
    k.streams = {7};
    k.operators = {{"aten::add", 5, 2}};
    w.kernels = {k};
    store.importWorkload(w);
    store.saveRuleSet(RuleSet::builtinDefault());
    EvalRecord r;
    r.problemId = "23";
    r.problemName = "23_Softmax";
    r.compiled = r.correct = true;
    r.candidateTimeUs = 2;
    r.baselineEagerUs = 3;
    r.speedup = 1.5;
    r.verificationReasons = {"why"};
    importRecordSet(store, "set", "set.jsonl", "reach-jsonl", {r});
    ColumnMapping m;
    m.name = "board";
    m.fields = {{"problem", "task"}, {"speedup", "x"}};
    saveMappingPreset(store, m);
    VerificationResult v;
    v.verdict = "pass";
    v.problemId = "23";
    v.reasons = {"ok"};
    storeVerification(store, r, v, v.toJson().dump(), 1.0);
    return 0;
}
