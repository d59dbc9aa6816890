// integrate's overrides in C++ (docs/integration.md, "The host path"): the same kernel on the
// operator's autograd key as substitute.py's Python one, with the part every call pays, the
// signature and the fall-through to PyTorch's kernel, done here without entering Python.
//
// Why: a Python kernel on the autograd key costs every call of the operator ~40-90 us of host
// time on the H200 (DLRM's step went from 837 to 1609 us with the overrides alone), and the
// workloads integrate measures are host-bound, so the wall clock measured the overrides, not the
// kernels. Here a call's signature is a string built from the boxed stack (a few hundred ns) and
// a call at no winner's signature is redispatched below autograd in C++, as PyTorch's own
// autograd kernels do. A call at a winner's signature goes to Python's callback, which runs the
// candidate and the checks (substitute.py), unless the candidate is native: a function compiled
// from its own sources and registered as an operator (native_candidates.py), which is called
// here, boxed, with the call's inputs, and Python is entered only for the calls it checks.
//
// Built at run time by torch.utils.cpp_extension against the workload's own PyTorch
// (native.py); the source names no candidate and depends on nothing a plan says.

#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/extension.h>
#include <torch/library.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

// The run's phase, as steps.Session names them; set from Python at each transition.
enum Phase { kWarmup = 0, kWall = 1, kProfiled = 2 };
std::atomic<int> gPhase{kWarmup};

// Set while a candidate or a check runs: the operator's calls inside them are PyTorch's.
thread_local int tInside = 0;

struct InsideGuard {
    InsideGuard() { ++tInside; }
    ~InsideGuard() { --tInside; }
};

void appendNumber(std::string& key, double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g;", v);
    key += buf;
}

void appendInts(std::string& key, c10::IntArrayRef values) {
    for (const int64_t v : values) {
        key += std::to_string(v);
        key += ',';
    }
}

// A call's argument as it enters the signature: a tensor by dtype, shape and strides (not its
// device: the winner's signature was learnt on the meta device), numbers as doubles (as
// substitute.norm takes them), lists element by element, strings length-prefixed so no value
// can pass for two.
void appendKey(std::string& key, const c10::IValue& v) {
    if (v.isTensor()) {
        const at::Tensor& t = v.toTensor();
        if (!t.defined()) {
            key += "N;";
            return;
        }
        key += 'T';
        key += std::to_string(static_cast<int>(t.scalar_type()));
        key += ':';
        appendInts(key, t.sizes());
        key += '/';
        appendInts(key, t.strides());
        key += ';';
    } else if (v.isList()) {
        key += '[';
        for (const c10::IValue& e : v.toListRef())
            appendKey(key, e);
        key += "];";
    } else if (v.isBool()) {
        key += v.toBool() ? "b1;" : "b0;";
    } else if (v.isInt()) {
        appendNumber(key, static_cast<double>(v.toInt()));
    } else if (v.isDouble()) {
        appendNumber(key, v.toDouble());
    } else if (v.isNone()) {
        key += "N;";
    } else if (v.isDevice()) {
        key += "D;";
    } else if (v.isString()) {
        const std::string& s = v.toStringRef();
        key += 'S';
        key += std::to_string(s.size());
        key += ':';
        key += s;
    } else {
        key += '?';
        key += v.tagKind();
        key += ';';
    }
}

std::string keyOfStack(const torch::jit::Stack& stack, size_t first) {
    std::string key;
    key.reserve(160);
    for (size_t i = first; i < stack.size(); ++i)
        appendKey(key, stack[i]);
    return key;
}

// PyTorch's names for the common dtypes, as substitute.describe writes them.
std::string dtypeName(c10::ScalarType t) {
    switch (t) {
    case c10::ScalarType::Float: return "float32";
    case c10::ScalarType::Double: return "float64";
    case c10::ScalarType::Half: return "float16";
    case c10::ScalarType::BFloat16: return "bfloat16";
    case c10::ScalarType::Long: return "int64";
    case c10::ScalarType::Int: return "int32";
    case c10::ScalarType::Short: return "int16";
    case c10::ScalarType::Char: return "int8";
    case c10::ScalarType::Byte: return "uint8";
    case c10::ScalarType::Bool: return "bool";
    default: return c10::toString(t);
    }
}

// What a fall-through was called with, for the report: its tensors by dtype and shape.
std::string describe(const torch::jit::Stack& stack, size_t first) {
    std::string text;
    for (size_t i = first; i < stack.size(); ++i) {
        const c10::IValue& v = stack[i];
        std::string part;
        if (v.isTensor() && v.toTensor().defined()) {
            const at::Tensor& t = v.toTensor();
            part = dtypeName(t.scalar_type()) + "[";
            for (size_t d = 0; d < t.sizes().size(); ++d)
                part += (d ? ", " : "") + std::to_string(t.sizes()[d]);
            part += "]";
        } else if (v.isTensorList() && !v.toTensorList().empty()) {
            part = "[" + std::to_string(v.toTensorList().size()) + " tensors]";
        }
        if (!part.empty())
            text += (text.empty() ? "" : ", ") + part;
    }
    return text.empty() ? "no tensors" : text;
}

using Clock = std::chrono::steady_clock;

// One overridden operator overload: its winners' signatures and what its calls did.
struct Table {
    std::string qualified;                         // "aten::clamp_min", "aten::add_.Tensor"
    std::unordered_map<std::string, int> winners;  // signature -> winner index
    bool hooksOnly = false;
    int64_t checkEvery = 0;  // measured calls checked against PyTorch's (0: only the first)
    py::object callback;     // (winner index, args tuple, check) -> output

    // A winner whose unchecked calls this file drives: its candidate as an operator (a native
    // candidate: no Python at all) or as a Python callable (its ModelNew, called here with the
    // inputs, without substitute.py's bookkeeping); where each of its arguments comes from (a
    // call's argument index, or -1-k for the k-th constant), whether the operator writes its
    // first argument, and the layouts of the outputs past the first (learnt on the first
    // checked call: until then every call goes to Python's callback).
    struct Layout {
        std::vector<int64_t> sizes, strides;
        c10::ScalarType dtype;
    };
    struct Native {
        std::optional<c10::OperatorHandle> op;
        py::object callable;
        std::vector<int64_t> order;
        std::vector<c10::IValue> constants;  // for op
        std::vector<py::object> pyConstants;  // for callable
        bool inplace = false;
    };
    std::map<int, Native> natives;
    std::map<int, std::vector<Layout>> others;

    std::mutex mutex;  // guards what follows (a workload may call from several threads)
    struct Fell {
        int64_t calls = 0;
        std::string text;
    };
    std::unordered_map<std::string, Fell> fell;    // signature -> its fall-throughs
    std::map<int, int64_t> calls;                  // winner -> its calls so far, every phase
    std::map<int, std::vector<double>> hostUs[3];  // phase -> winner -> host us per call
    std::map<int, int64_t> nativeCalls[3];         // phase -> winner -> calls run in C++
};

std::vector<std::unique_ptr<Table>> gTables;
std::vector<std::unique_ptr<torch::Library>> gLibraries;

void record(Table& table, int winner, Clock::time_point t0, bool native) {
    const int phase = gPhase.load(std::memory_order_relaxed);
    if (phase == kWarmup)
        return;
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    std::lock_guard<std::mutex> lock(table.mutex);
    table.hostUs[phase][winner].push_back(us);
    if (native)
        ++table.nativeCalls[phase][winner];
}

void redispatchBelowAutograd(const c10::OperatorHandle& op, c10::DispatchKeySet ks,
                             torch::jit::Stack* stack) {
    op.redispatchBoxed(ks & c10::after_autograd_keyset, stack);
}

bool anyRequiresGrad(const torch::jit::Stack& stack, size_t first) {
    if (!c10::GradMode::is_enabled())
        return false;
    for (size_t i = first; i < stack.size(); ++i)
        if (stack[i].isTensor() && stack[i].toTensor().defined() &&
            stack[i].toTensor().requires_grad())
            return true;
    return false;
}

struct Kernel final : c10::OperatorKernel {
    explicit Kernel(Table* t) : table(t) {}

    void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet ks,
                    torch::jit::Stack* stack) {
        if (tInside) {
            redispatchBelowAutograd(op, ks, stack);
            return;
        }
        const Clock::time_point t0 = Clock::now();
        const size_t first = stack->size() - op.schema().arguments().size();
        const std::string key = keyOfStack(*stack, first);
        const auto hit = table->winners.find(key);
        if (hit == table->winners.end()) {
            {
                std::lock_guard<std::mutex> lock(table->mutex);
                Table::Fell& f = table->fell[key];
                if (f.calls++ == 0)
                    f.text = describe(*stack, first);
            }
            redispatchBelowAutograd(op, ks, stack);
            return;
        }
        const int winner = hit->second;
        if (table->hooksOnly) {
            redispatchBelowAutograd(op, ks, stack);
            record(*table, winner, t0, false);
            return;
        }
        bool check = false;
        const Table::Native* native = nullptr;
        {
            std::lock_guard<std::mutex> lock(table->mutex);
            const int64_t n = ++table->calls[winner];
            // Checked against PyTorch's own output: every warm-up call, the first wherever it
            // comes, every check_every-th (substitute.py compares them).
            check = gPhase.load(std::memory_order_relaxed) == kWarmup || n == 1 ||
                    (table->checkEvery > 0 && n % table->checkEvery == 0);
            const auto found = table->natives.find(winner);
            if (found != table->natives.end() && table->others.count(winner))
                native = &found->second;
        }
        // Python runs the checked calls and those autograd would record (substitute.py refuses
        // them, naming the problem); the rest of a native winner's calls stay here.
        if (native && !check && !anyRequiresGrad(*stack, first)) {
            runNative(*native, op, winner, stack, first);
            record(*table, winner, t0, true);
            return;
        }
        callPython(op, winner, stack, first, check);
        record(*table, winner, t0, false);
    }

    // The native candidate, boxed: the call's inputs in the order its function takes them,
    // its output where the operator's goes (copied back into the destination of an in-place
    // operator, as substitute.py does).
    void runNative(const Table::Native& native, const c10::OperatorHandle& op, int winner,
                   torch::jit::Stack* stack, size_t first) {
        at::Tensor out;
        if (!native.op) {
            out = callCandidate(native, *stack, first);
        } else {
            torch::jit::Stack call;
            call.reserve(native.order.size());
            for (const int64_t index : native.order)
                call.push_back(index >= 0 ? (*stack)[first + static_cast<size_t>(index)]
                                          : native.constants.at(static_cast<size_t>(-index - 1)));
            InsideGuard inside;
            at::AutoDispatchBelowADInplaceOrView below;
            native.op->callBoxed(&call);
            out = call.at(0).toTensor();
        }
        {
            InsideGuard inside;
            at::AutoDispatchBelowADInplaceOrView below;
            if (native.inplace) {
                at::Tensor destination = (*stack)[first].toTensor();
                destination.copy_(out);
                out = destination;
            }
        }
        const auto& returns = op.schema().returns();
        torch::jit::drop(*stack, stack->size() - first);
        stack->push_back(out);
        // The operator's other outputs (indices, saved statistics): allocated, not computed,
        // as substitute.py returns them.
        const std::vector<Table::Layout>& others = table->others.at(winner);
        for (size_t r = 1; r < returns.size() && r - 1 < others.size(); ++r)
            stack->push_back(at::empty_strided(others[r - 1].sizes, others[r - 1].strides,
                                               out.options().dtype(others[r - 1].dtype)));
    }

    // A Python candidate called with the call's inputs: what is left of Python on its path.
    at::Tensor callCandidate(const Table::Native& native, const torch::jit::Stack& stack,
                             size_t first) {
        py::gil_scoped_acquire gil;
        py::tuple args(native.order.size());
        for (size_t i = 0; i < native.order.size(); ++i) {
            const int64_t index = native.order[i];
            args[i] = index >= 0
                          ? torch::jit::toPyObject(stack[first + static_cast<size_t>(index)])
                          : native.pyConstants.at(static_cast<size_t>(-index - 1));
        }
        InsideGuard inside;
        at::AutoDispatchBelowADInplaceOrView below;
        py::object result = native.callable(*args);
        return result.cast<at::Tensor>();
    }

    void callPython(const c10::OperatorHandle& op, int winner, torch::jit::Stack* stack,
                    size_t first, bool check) {
        const size_t n = stack->size() - first;
        const auto& returns = op.schema().returns();
        py::gil_scoped_acquire gil;
        py::tuple args(n);
        for (size_t i = 0; i < n; ++i)
            args[i] = torch::jit::toPyObject((*stack)[first + i]);
        torch::jit::drop(*stack, n);
        py::object out;
        {
            InsideGuard inside;
            out = table->callback(winner, args, check);
        }
        if (returns.size() == 1) {
            stack->push_back(torch::jit::toIValue(out, returns[0].type()));
            return;
        }
        py::tuple outs = out.cast<py::tuple>();
        for (size_t r = 0; r < returns.size(); ++r)
            stack->push_back(torch::jit::toIValue(outs[r], returns[r].type()));
    }

    Table* table;
};

c10::OperatorHandle findOperator(const std::string& name, const std::string& overload) {
    auto handle = c10::Dispatcher::singleton().findSchema({name, overload});
    if (!handle)
        throw std::invalid_argument("no operator " + name +
                                    (overload.empty() ? "" : "." + overload));
    return *handle;
}

// The signature of a call given as Python arguments, with the schema's defaults filled in as
// the boxed stack has them: what a winner is keyed by (one implementation for both sides).
std::string keyOf(const std::string& name, const std::string& overload, py::tuple args,
                  py::dict kwargs) {
    const c10::OperatorHandle op = findOperator(name, overload);
    torch::jit::Stack stack = torch::jit::createStackForSchema(
        op.schema(), args, py::reinterpret_borrow<py::kwargs>(kwargs), c10::nullopt);
    return keyOfStack(stack, 0);
}

// Installs the override of one operator overload on `key` ("AutogradCPU", "AutogradCUDA").
// `winners` maps signature keys to winner indices; returns the table's index.
int install(const std::string& name, const std::string& overload, const std::string& key,
            const std::map<std::string, int>& winners, bool hooksOnly, int64_t checkEvery,
            py::object callback) {
    findOperator(name, overload);
    auto table = std::make_unique<Table>();
    table->qualified = overload.empty() ? name : name + "." + overload;
    table->winners.insert(winners.begin(), winners.end());
    table->hooksOnly = hooksOnly;
    table->checkEvery = checkEvery;
    table->callback = std::move(callback);
    const std::string ns = name.substr(0, name.find("::"));
    auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, ns,
                                                c10::parseDispatchKey(key), __FILE__, __LINE__);
    lib->impl(table->qualified.substr(ns.size() + 2).c_str(),
              torch::CppFunction::makeFromBoxedFunctor(std::make_unique<Kernel>(table.get())));
    gTables.push_back(std::move(table));
    gLibraries.push_back(std::move(lib));
    return static_cast<int>(gTables.size()) - 1;
}

// A winner's native candidate: the operator `candidate` (registered by its own extension) is
// called with `order` (call argument indices, or -1-k for constants[k]).
void setNative(int index, int winner, const std::string& candidate,
               const std::vector<int64_t>& order, py::list constants, bool inplace) {
    Table& table = *gTables.at(static_cast<size_t>(index));
    Table::Native native{findOperator(candidate, ""), py::none(), order, {}, {}, inplace};
    const auto& arguments = native.op->schema().arguments();
    if (arguments.size() != order.size())
        throw std::invalid_argument(candidate + " takes " + std::to_string(arguments.size()) +
                                    " arguments, the mapping gives " +
                                    std::to_string(order.size()));
    for (size_t k = 0; k < constants.size(); ++k) {
        size_t at = 0;
        while (at < order.size() && order[at] != -1 - static_cast<int64_t>(k))
            ++at;
        if (at == order.size())
            throw std::invalid_argument(candidate + ": constant " + std::to_string(k) +
                                        " is not in the mapping");
        native.constants.push_back(torch::jit::toIValue(constants[k], arguments[at].type()));
    }
    std::lock_guard<std::mutex> lock(table.mutex);
    table.natives.insert_or_assign(winner, std::move(native));
}

// A winner's Python candidate, driven from here on its unchecked calls: `callable` is called
// with `order` (call argument indices, or -1-k for constants[k]).
void setPython(int index, int winner, py::object callable, const std::vector<int64_t>& order,
               py::list constants, bool inplace) {
    Table& table = *gTables.at(static_cast<size_t>(index));
    Table::Native native{std::nullopt, std::move(callable), order, {}, {}, inplace};
    for (const py::handle c : constants)
        native.pyConstants.push_back(py::reinterpret_borrow<py::object>(c));
    std::lock_guard<std::mutex> lock(table.mutex);
    table.natives.insert_or_assign(winner, std::move(native));
}

// The layouts of the operator's outputs past the first, (sizes, strides, scalar type) each,
// learnt on a checked call; a native winner runs in C++ only once they are known.
void setOthers(int index, int winner, py::list layouts) {
    Table& table = *gTables.at(static_cast<size_t>(index));
    std::vector<Table::Layout> out;
    for (const py::handle item : layouts) {
        py::tuple t = item.cast<py::tuple>();
        out.push_back({t[0].cast<std::vector<int64_t>>(), t[1].cast<std::vector<int64_t>>(),
                       static_cast<c10::ScalarType>(t[2].cast<int>())});
    }
    std::lock_guard<std::mutex> lock(table.mutex);
    table.others[winner] = std::move(out);
}

int scalarTypeOf(const at::Tensor& t) { return static_cast<int>(t.scalar_type()); }

void setPhase(int phase) { gPhase.store(phase, std::memory_order_relaxed); }

// What a table's calls did: {"operator", "calls" (fell through), "fell_through": {description:
// calls}, "host_us": {phase: {winner: [us...]}}, "calls_from_cpp": {phase: {winner: n}}}.
py::dict report(int index) {
    Table& t = *gTables.at(static_cast<size_t>(index));
    std::lock_guard<std::mutex> lock(t.mutex);
    py::dict fell;
    int64_t calls = 0;
    for (const auto& [key, f] : t.fell) {
        const py::str text(f.text);
        const int64_t before = fell.contains(text) ? fell[text].cast<int64_t>() : 0;
        fell[text] = before + f.calls;
        calls += f.calls;
    }
    const char* names[3] = {"warmup", "wall", "profiled"};
    py::dict host, native;
    for (int phase = 0; phase < 3; ++phase) {
        py::dict perWinner, counts;
        for (const auto& [winner, us] : t.hostUs[phase])
            perWinner[py::int_(winner)] = us;
        for (const auto& [winner, n] : t.nativeCalls[phase])
            counts[py::int_(winner)] = n;
        host[names[phase]] = perWinner;
        native[names[phase]] = counts;
    }
    py::dict out;
    out["operator"] = t.qualified;
    out["calls"] = calls;
    out["fell_through"] = fell;
    out["host_us"] = host;
    out["calls_from_cpp"] = native;
    return out;
}

// Takes every override out (a library deregisters its kernels when destroyed).
void uninstall() {
    gLibraries.clear();
    gTables.clear();
}

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
    m.def("key_of", &keyOf);
    m.def("install", &install);
    m.def("set_native", &setNative);
    m.def("set_python", &setPython);
    m.def("set_others", &setOthers);
    m.def("scalar_type_of", &scalarTypeOf);
    m.def("set_phase", &setPhase);
    m.def("report", &report);
    m.def("uninstall", &uninstall);
    // The tables hold Python callables: they go while the interpreter is still there (a static
    // destructor after it finalized would touch Python without it).
    py::module_::import("atexit").attr("register")(py::cpp_function(&uninstall));
}
