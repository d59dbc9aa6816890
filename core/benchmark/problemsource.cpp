#include "core/benchmark/problemsource.h"

#include "core/base/callsignature.h"
#include "core/base/inputerror.h"
#include "core/base/servingoperators.h"
#include "core/benchmark/servingproblem.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

namespace reach {

namespace {

// A tensor's element count and bytes past these are no problem for a benchmark: refused.
constexpr int64_t kMaxDim = int64_t(1) << 40;
constexpr int64_t kMaxElements = int64_t(1) << 31;
constexpr int64_t kMaxBytesPerCall = int64_t(16) << 30;
constexpr size_t kMaxArguments = 64;

// The dtypes a problem file can draw (randn, randint, rand < 0.5), by the profiler's names; their
// torch names and sizes are the profiler's table (core/base/callsignature.h). The table's others
// (FP8, complex, unsigned of 32 and 64 bits) are types Reach cannot draw.
const ProfilerDtype* drawableDtype(const std::string& profilerType) {
    static const std::set<std::string_view> kDrawable = {
        "float", "double",    "c10::Half",   "c10::BFloat16", "long int", "long",
        "int",   "short int", "signed char", "unsigned char", "bool",
    };
    return kDrawable.count(profilerType) ? profilerDtype(profilerType) : nullptr;
}

bool isInteger(const std::string& s) {
    size_t i = s.size() > 0 && s[0] == '-' ? 1 : 0;
    if (i >= s.size() || s.size() - i > 19)
        return false;
    return std::all_of(s.begin() + long(i), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// 1.5, -2.0e-3, 1e9: digits, one point, an exponent; nothing else.
bool isDecimal(const std::string& s) {
    if (s.empty() || s.size() > 40)
        return false;
    size_t i = s[0] == '-' ? 1 : 0;
    bool digits = false, point = false;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c >= '0' && c <= '9') {
            digits = true;
        } else if (c == '.' && !point) {
            point = true;
        } else if ((c == 'e' || c == 'E') && digits) {
            size_t j = i + 1;
            if (j < s.size() && (s[j] == '+' || s[j] == '-'))
                ++j;
            if (j >= s.size())
                return false;
            for (; j < s.size(); ++j)
                if (s[j] < '0' || s[j] > '9')
                    return false;
            return true;
        } else {
            return false;
        }
    }
    return digits;
}

// A recorded scalar as a Python literal Reach wrote itself, or empty when it is not a number
// Reach can read: the trace's text is parsed and the value printed again, so what reaches the
// problem is always a valid literal ("01" is no Python; a 19-digit integer past int64 is
// refused, it ended extract with `internal error: stoll`; "1e999" is float('inf')).
std::string scalarLiteral(const std::string& s) {
    if (s == "True" || s == "False")
        return s;
    if (s == "inf" || s == "-inf" || s == "nan")
        return "float('" + s + "')";
    if (isInteger(s)) {
        int64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size())
            return {};  // past 64 bits: no dimension nor scalar a call takes
        return std::to_string(v);
    }
    if (isDecimal(s)) {
        double v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec == std::errc::result_out_of_range)  // too large (inf) or too small (0): as Python
            v = std::strtod(s.c_str(), nullptr);
        else if (ec != std::errc() || end != s.data() + s.size())
            return {};
        if (!std::isfinite(v))
            return v < 0 ? "float('-inf')" : "float('inf')";
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
        std::string out(buf, r.ptr);
        if (out.find_first_of(".e") == std::string::npos)
            out += ".0";  // a float stays a float ("2." -> 2.0, not the integer 2)
        return out;
    }
    return {};
}

// "[13, 512]" -> the same list, checked element by element.
std::string intListLiteral(const std::string& s) {
    if (s.size() < 2 || s.front() != '[' || s.back() != ']' || s.size() > 2000)
        return {};
    std::string out = "[";
    std::stringstream in(s.substr(1, s.size() - 2));
    std::string item;
    bool first = true;
    while (std::getline(in, item, ',')) {
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (item.empty() && first && in.eof())
            break;  // "[]"
        const std::string lit = scalarLiteral(item);
        if (lit.empty())
            return {};
        out += (first ? "" : ", ") + lit;
        first = false;
    }
    return out + "]";
}

// A shape a problem can draw: at most 16 dimensions, each in [0, 2^40].
bool drawableShape(const std::vector<int64_t>& shape) {
    return shape.size() <= 16 && std::all_of(shape.begin(), shape.end(),
                                             [](int64_t d) { return d >= 0 && d <= kMaxDim; });
}

int64_t elements(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) {
        if (d != 0 && n > kMaxElements / d)
            return kMaxElements + 1;
        n *= d;
    }
    return n;
}

// Whether `stride` lays `shape` out densely (some order of the dimensions is contiguous):
// such a tensor keeps its layout when moved to the GPU. A slice's gaps, an expanded (stride 0)
// or an overlapping dimension do not survive the move, so those go through a view (below).
bool denseLayout(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride) {
    std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dimensions past 1
    for (size_t d = 0; d < shape.size() && d < stride.size(); ++d)
        if (shape[d] != 1)
            dims.push_back({stride[d], shape[d]});
    std::sort(dims.begin(), dims.end(), std::greater<>());
    int64_t expected = 1;
    for (size_t i = dims.size(); i-- > 0;) {
        if (dims[i].first != expected)
            return false;
        expected *= dims[i].second;
    }
    return true;
}

// The elements a strided tensor spans: 1 + the offset of its last element.
int64_t footprint(const std::vector<int64_t>& shape, const std::vector<int64_t>& stride) {
    int64_t n = 1;
    for (size_t d = 0; d < shape.size() && d < stride.size(); ++d) {
        if (shape[d] == 0)
            return 0;
        if (stride[d] > 0 && (shape[d] - 1) > (kMaxElements - n) / stride[d])
            return kMaxElements + 1;
        n += (shape[d] - 1) * stride[d];
    }
    return n;
}

// The operators whose integer tensor arguments are indices into another argument: which
// argument holds the indices, which the table, and along which dimension (an argument index
// holding the dim, or -1 for dim 0).
struct IndexRole {
    int indices, table, dimArgument, offsets;
};
const std::map<std::string, IndexRole>& indexRoles() {
    static const std::map<std::string, IndexRole> m = {
        {"embedding", {1, 0, -1, -1}},     {"embedding_bag", {1, 0, -1, 2}},
        {"_embedding_bag", {1, 0, -1, 2}}, {"_embedding_bag_forward_only", {1, 0, -1, 2}},
        {"index_select", {2, 0, 1, -1}},   {"gather", {2, 0, 1, -1}},
        {"scatter", {2, 0, 1, -1}},        {"scatter_add", {2, 0, 1, -1}},
    };
    return m;
}

// Operators a problem cannot stand for: they allocate, copy, draw random numbers or take a
// list the profiler does not record.
const std::map<std::string, std::string>& refusedOperators() {
    static const std::map<std::string, std::string> m = {
        {"empty", "it only allocates"},
        {"empty_strided", "it only allocates"},
        {"_to_copy", "a dtype or device conversion, not a computation"},
        {"resize_", "it only allocates"},
        {"set_", "it only rebinds storage"},
        {"record_stream", "no computation"},
        {"index", "its index list is a list the profiler does not record"},
        {"index_put", "its index list is a list the profiler does not record"},
        {"index_put_", "its index list is a list the profiler does not record"},
        {"_index_put_impl_", "its index list is a list the profiler does not record"},
        {"native_dropout", "random: no two runs agree, so no oracle"},
        {"dropout", "random: no two runs agree, so no oracle"},
        {"bernoulli_", "random: no two runs agree, so no oracle"},
        {"uniform_", "random: no two runs agree, so no oracle"},
        {"normal_", "random: no two runs agree, so no oracle"},
        {"random_", "random: no two runs agree, so no oracle"},
        {"randperm", "random: no two runs agree, so no oracle"},
        {"multinomial", "random: no two runs agree, so no oracle"},
    };
    return m;
}

bool validIdentifier(const std::string& s) {
    if (s.empty() || s.size() > 100 || std::isdigit(static_cast<unsigned char>(s[0])))
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    });
}

constexpr const char* kGeneratedBy =
    "A KernelBench-format problem made by reach-cli extract from a profile.";

constexpr const char* kHelpers = R"PY(

_MAX_OUTPUT_BYTES = 16 << 30

def _draw(shape, stride, dtype, low=0, high=2):
    """A tensor of `shape`, dense, its dimensions ordered as `stride` orders them (a transposed
    operand stays transposed; moving it to the GPU keeps a dense layout)."""
    dims = list(range(len(shape)))
    order = sorted(dims, key=lambda d: (-stride[d], d)) if stride else dims
    base = _values([shape[d] for d in order], dtype, low, high)
    return base.permute([order.index(d) for d in dims])


def _values(shape, dtype, low=0, high=2):
    if dtype.is_floating_point:
        return torch.randn(shape, dtype=torch.float32).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape) < 0.5
    return torch.randint(low, max(high, low + 1), shape, dtype=dtype)


def _offsets(bags, indices, dtype):
    """embedding_bag's offsets: bags of equal size over the indices, the first at 0."""
    step = indices // bags if bags else 0
    return torch.arange(bags, dtype=dtype) * step


def _meta(v):
    """`v` with every tensor replaced by one of its shape, strides and dtype on the meta device
    (no storage): a call on these computes the outputs' shapes and allocates nothing."""
    if isinstance(v, torch.Tensor):
        if v.device.type == "meta":
            return v  # already (a tracer's inputs): the probe is then the traced call itself
        return torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="meta")
    if isinstance(v, (list, tuple)):
        return type(v)(_meta(x) for x in v)
    return v


def _bytes(out):
    if isinstance(out, torch.Tensor):
        return out.numel() * out.element_size()
    if isinstance(out, (list, tuple)):
        return sum(_bytes(o) for o in out)
    return 0


class _TooLarge(ValueError):
    pass


def _bounded(out):
    """Outputs are bounded as inputs are (reach-cli extract refuses inputs past 16 GiB): a
    recorded aten::ones([100000, 100000]) would allocate 40 GB from no input at all."""
    if _bytes(out) > _MAX_OUTPUT_BYTES:
        raise _TooLarge(f"outputs of {_bytes(out) / (1 << 30):.1f} GiB: Reach's problems "
                         f"produce at most {_MAX_OUTPUT_BYTES >> 30} GiB")
    return out


def _overload(packet, args, drop_out=True):
    """The overload of the ATen operator that takes the recorded arguments, as a function of
    them. The profiler records every argument in the schema's order; those past its positional
    ones go by keyword (add's alpha, sum's dtype). A call recorded in its out= form (gather.out,
    arange.start_out) is made in its functional form: the out tensors, drawn as inputs, are left
    out, and no input is written. Each overload is tried on meta tensors first, which size its
    outputs without allocating them; one without a meta kernel, or whose outputs' size depends
    on the values, is tried on the inputs themselves."""
    last = None
    for name in packet.overloads():
        if name == "out" or name.endswith("_out"):
            continue  # writes into tensors it is given: not the call the profile recorded
        op = getattr(packet, name)
        params = op._schema.arguments
        if len(args) > len(params):
            continue

        def call(values, op=op, params=params, meta=False):
            positional = [v for p, v in zip(params, values) if not p.kwarg_only]
            keywords = {p.name: v for p, v in zip(params, values) if p.kwarg_only}
            if meta and any(p.name == "device" and p.kwarg_only for p in params):
                keywords["device"] = "meta"  # a factory (ones, arange): no input to be meta
            return op(*positional, **keywords)

        try:
            try:
                _bounded(call(_meta(args), meta=True))
            except _TooLarge:
                raise
            except (RuntimeError, TypeError, ValueError):
                pass  # no meta kernel, or outputs the values size: the inputs bound them
            call(args)
        except _TooLarge:
            raise
        except (RuntimeError, TypeError, ValueError) as e:
            last = e
            continue
        return call
    for name in packet.overloads() if drop_out else []:
        if not (name == "out" or name.endswith("_out")):
            continue
        params = getattr(packet, name)._schema.arguments
        if len(params) != len(args):
            continue
        kept = [v for p, v in zip(params, args) if not p.name.startswith("out")]
        try:
            functional = _overload(packet, kept, False)
        except _TooLarge:
            raise
        except (RuntimeError, TypeError, ValueError) as e:
            last = e
            continue
        return lambda values, f=functional, params=params: f(
            [v for p, v in zip(params, values) if not p.name.startswith("out")])
    raise last or RuntimeError("no overload of this operator takes the recorded arguments")


def _first(out):
    while isinstance(out, (tuple, list)):
        out = out[0]
    return out
)PY";

}  // namespace

std::string pyIntList(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

std::string commentSafe(const std::string& text, size_t limit) {
    std::string out;
    for (unsigned char c : text) {
        if (out.size() >= limit) {
            out += "...";
            break;
        }
        if (c >= 0x20 && c < 0x7f) {
            out += char(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

std::vector<CallArgument> decodeArguments(const nlohmann::json& sig, std::string* why,
                                          bool anyKnownDtype) {
    auto fail = [&](const std::string& w) {
        if (why)
            *why = w;
        return std::vector<CallArgument>{};
    };
    // Read as recorded; an argument whose dims cannot be read is refused where this loop meets
    // it, for what its type makes of it (a Scalar's dims are not looked at).
    std::vector<UnreadableDims> unreadable;
    const std::optional<std::vector<CallArg>> recorded = readCallArguments(sig, unreadable);
    if (!recorded)
        return fail("no recorded shapes");
    if (recorded->size() > kMaxArguments)
        return fail("more than " + std::to_string(kMaxArguments) + " arguments");
    std::vector<CallArgument> args;
    int64_t bytes = 0;
    for (size_t i = 0; i < recorded->size(); ++i) {
        const CallArg& r = (*recorded)[i];
        const std::string& type = r.type;
        const auto unread = std::find_if(unreadable.begin(), unreadable.end(),
                                         [&](const UnreadableDims& u) { return u.argument == i; });
        const bool read = unread == unreadable.end();
        CallArgument a;
        // A recorded stride a problem can lay a tensor of this rank out with, else none.
        auto tensorStride = [](const std::vector<int64_t>& s, size_t rank) {
            return s.size() == rank && drawableShape(s) ? s : std::vector<int64_t>{};
        };
        if (const ProfilerDtype* d = anyKnownDtype ? profilerDtype(type) : drawableDtype(type)) {
            if (!read || r.isList || !drawableShape(r.dims))
                return fail("argument " + std::to_string(i) + ": a shape Reach cannot read");
            const std::vector<int64_t>& shape = r.dims;
            if (elements(shape) > kMaxElements)
                return fail("argument " + std::to_string(i) + ": more than 2^31 elements");
            a.kind = CallArgument::Kind::Tensor;
            a.dtype = std::string(d->torchName);
            a.strides.push_back(tensorStride(r.strides, shape.size()));
            const int64_t span = a.strides[0].empty() || denseLayout(shape, a.strides[0])
                                     ? elements(shape)
                                     : footprint(shape, a.strides[0]);
            if (span > kMaxElements)
                return fail("argument " + std::to_string(i) +
                            ": strides spanning more than 2^31 elements");
            bytes += span * d->bytes;
            a.shapes.push_back(shape);
        } else if (type == "TensorList") {
            // Its dims' entries: 0 when they are not an array.
            const size_t entries =
                read ? (r.isList ? r.list.size() : r.dims.size()) : unread->entries;
            if ((!read && entries == 0) || entries > kMaxArguments)
                return fail("argument " + std::to_string(i) + ": a tensor list Reach cannot read");
            if (entries == 0)
                return fail("argument " + std::to_string(i) +
                            ": a tensor list the trace records without its tensors");
            a.kind = CallArgument::Kind::TensorList;
            if (!r.isList)  // integers: its first tensor's entry is no shape
                return fail("argument " + std::to_string(i) + ": a shape Reach cannot read");
            for (size_t k = 0; k < r.list.size(); ++k) {
                const std::vector<int64_t>& shape = r.list[k];
                if (!drawableShape(shape) || elements(shape) > kMaxElements)
                    return fail("argument " + std::to_string(i) + ": a shape Reach cannot read");
                a.strides.push_back(tensorStride(r.listStrides[k], shape.size()));
                const int64_t span =
                    a.strides.back().empty() || denseLayout(shape, a.strides.back())
                        ? elements(shape)
                        : footprint(shape, a.strides.back());
                if (span > kMaxElements)
                    return fail("argument " + std::to_string(i) +
                                ": strides spanning more than 2^31 elements");
                bytes += span * 8;  // the elements' dtype is not recorded: the widest
                a.shapes.push_back(shape);
            }
            if (!read)  // the entry after those read
                return fail("argument " + std::to_string(i) + ": a shape Reach cannot read");
        } else if (type == "Scalar") {
            a.kind = CallArgument::Kind::Scalar;
            a.literal = scalarLiteral(r.concrete);
            if (a.literal.empty())
                return fail("argument " + std::to_string(i) +
                            (isInteger(r.concrete)
                                 ? ": an integer past 64 bits, which no call takes"
                                 : ": a scalar the trace does not record as a number"));
        } else if (type == "ScalarList") {
            a.kind = CallArgument::Kind::Scalar;
            a.literal = intListLiteral(r.concrete);
            if (a.literal.empty())
                return fail("argument " + std::to_string(i) +
                            ": a list the trace does not record as numbers");
        } else if (type.empty()) {
            if (!read || r.isList || !r.dims.empty())
                return fail("argument " + std::to_string(i) +
                            ": a tensor whose type the trace does not record");
            a.kind = CallArgument::Kind::None;  // an optional argument left out
        } else {
            return fail("argument " + std::to_string(i) + " of type '" + commentSafe(type, 40) +
                        "', which Reach cannot draw");
        }
        if (bytes > kMaxBytesPerCall)
            return fail("inputs of more than 16 GiB");
        args.push_back(std::move(a));
    }
    // A Python number given to a tensor operator (x + 1e-6, x * 2) reaches ATen as a "wrapped
    // number": a 0-dim float64 or int64 tensor on the CPU, which the profiler records as such
    // and without its value. Drawn as a tensor it would be a second operand on the GPU and launch
    // another kernel; it is a Python number, of a value the trace does not keep.
    bool otherDtype = false;
    for (const CallArgument& a : args)
        otherDtype |= a.kind == CallArgument::Kind::Tensor && !a.shapes[0].empty() &&
                      a.dtype != "float64" && a.dtype != "int64";
    for (CallArgument& a : args) {
        if (!otherDtype || a.kind != CallArgument::Kind::Tensor || !a.shapes[0].empty() ||
            (a.dtype != "float64" && a.dtype != "int64"))
            continue;
        a.kind = CallArgument::Kind::Scalar;
        a.literal = a.dtype == "float64" ? "0.5" : "3";
        a.wrappedNumber = true;
        a.shapes.clear();
        a.strides.clear();
    }
    return args;
}

namespace {

// The ATen operator `op` names, without its overload name; nothing, with `why`, when it names
// none a problem can call.
std::optional<std::string> atenName(const std::string& op, std::string& why) {
    const std::string prefix = "aten::";
    if (op.rfind(prefix, 0) != 0) {
        why = "not an ATen operator: PyTorch has no reference to call";
        return std::nullopt;
    }
    std::string name = op.substr(prefix.size());
    if (const size_t dot = name.find('.'); dot != std::string::npos)
        name = name.substr(0, dot);  // an overload name: the packet resolves it from the args
    // A plain identifier, and no dunder: "aten::__class__" would name Python's machinery.
    if (!validIdentifier(name) || name.rfind("__", 0) == 0) {
        why = "an operator name that is not an ATen operator's";
        return std::nullopt;
    }
    if (auto r = refusedOperators().find(name); r != refusedOperators().end()) {
        why = r->second;
        return std::nullopt;
    }
    return name;
}

// How the problem calls operator `name`: the operator it calls, and whether it writes into a
// fresh destination.
struct CallForm {
    std::string callName;
    bool intoFresh = false;
};

// An in-place operator stands for its functional form: the reference must not change the
// inputs a candidate is judged against. A copy or fill into a tensor writes a fresh one of
// the same layout (empty_like keeps the strides): the same kernel, no input changed.
CallForm callForm(const std::string& name, std::vector<std::string>& assumptions) {
    CallForm form;
    form.callName = name;
    form.intoFresh = name == "copy_" || name == "fill_" || name == "zero_";
    if (form.intoFresh) {
        assumptions.push_back("aten::" + name +
                              " writes into a fresh tensor laid out as its "
                              "destination (torch.empty_like)");
    } else if (name.size() > 1 && name.back() == '_' && name[name.size() - 2] != '_') {
        form.callName = name.substr(0, name.size() - 1);
        assumptions.push_back("in-place aten::" + name +
                              " called as its functional form aten::" + form.callName);
    }
    return form;
}

// The call as Python: forward's parameters, get_inputs' draws (one per parameter) and the
// call's arguments (a parameter, a view of one, a list of them, a literal or None).
struct ProblemCall {
    std::vector<std::string> params, draws, callArgs;
    int n = 0;                 // parameters named so far (x0, x1, ...)
    bool guessedInts = false;  // an integer input of no known role
};

// The integer a Scalar argument holds (a dimension), 0 when it holds none.
int64_t integerArgument(const std::vector<CallArgument>& args, int argument) {
    if (argument < 0 || argument >= int(args.size()))
        return 0;
    const CallArgument& a = args[size_t(argument)];
    return a.kind == CallArgument::Kind::Scalar && isInteger(a.literal) ? std::stoll(a.literal) : 0;
}

// The parameters and draws of tensor argument `i` (a tensor, or each tensor of a list), and the
// names the call gives them.
std::vector<std::string> drawTensorArgument(const std::vector<CallArgument>& args, size_t i,
                                            const std::string& name,
                                            const std::string& fallbackDtype, ProblemCall& call,
                                            std::vector<std::string>& assumptions) {
    const auto role = indexRoles().find(name);
    const CallArgument& a = args[i];
    std::vector<std::string> names;
    for (size_t k = 0; k < a.shapes.size(); ++k) {
        const std::string p = "x" + std::to_string(call.n++);
        names.push_back(p);
        call.params.push_back(p);
        std::string dtype = a.dtype.empty() ? fallbackDtype : a.dtype;
        const bool integer = dtype.rfind("int", 0) == 0 || dtype.rfind("uint", 0) == 0;
        std::string range;
        if (integer && role != indexRoles().end() && int(i) == role->second.offsets &&
            role->second.indices < int(args.size()) && !a.shapes[k].empty()) {
            const auto& ind = args[size_t(role->second.indices)];
            const int64_t total = ind.shapes.empty() ? 0 : elements(ind.shapes[0]);
            call.draws.push_back("_offsets(" + std::to_string(a.shapes[k][0]) + ", " +
                                 std::to_string(total) + ", torch." + dtype + ")");
            assumptions.push_back("embedding_bag offsets: bags of equal size");
            continue;
        }
        if (integer && role != indexRoles().end() && int(i) == role->second.indices) {
            const auto& table = args[size_t(role->second.table)];
            int64_t dim =
                role->second.dimArgument < 0 ? 0 : integerArgument(args, role->second.dimArgument);
            const auto& tshape = table.shapes.empty() ? std::vector<int64_t>{} : table.shapes[0];
            if (dim < 0)
                dim += int64_t(tshape.size());
            const int64_t high = dim >= 0 && dim < int64_t(tshape.size()) ? tshape[size_t(dim)] : 1;
            range = ", 0, " + std::to_string(std::max<int64_t>(high, 1));
            assumptions.push_back("indices drawn uniformly in range");
        } else if (integer) {
            call.guessedInts = true;
        }
        if (a.dtype.empty())
            assumptions.push_back("tensor list elements taken to be " + dtype +
                                  " (the trace does not record their dtype)");
        if (a.strides[k].empty() || denseLayout(a.shapes[k], a.strides[k])) {
            call.draws.push_back("_draw(" + pyIntList(a.shapes[k]) + ", " +
                                 pyIntList(a.strides[k]) + ", torch." + dtype + range + ")");
        } else {
            // Gaps, expanded or overlapping dimensions: the input is the storage, and
            // forward views it as recorded (a view launches nothing).
            call.draws.push_back("_values([" +
                                 std::to_string(footprint(a.shapes[k], a.strides[k])) +
                                 "], torch." + dtype + range + ")");
            names.back() =
                p + ".as_strided(" + pyIntList(a.shapes[k]) + ", " + pyIntList(a.strides[k]) + ")";
            assumptions.push_back(
                "a tensor recorded with gaps or expanded dimensions is given as its "
                "storage and viewed in forward");
        }
    }
    return names;
}

// The call of operator `name` on `args`, and what it had to assume.
ProblemCall buildCall(const std::string& name, const std::vector<CallArgument>& args,
                      const std::string& fallbackDtype, std::vector<std::string>& assumptions) {
    ProblemCall call;
    for (size_t i = 0; i < args.size(); ++i) {
        const CallArgument& a = args[i];
        if (a.kind == CallArgument::Kind::None) {
            call.callArgs.push_back("None");
            continue;
        }
        if (a.kind == CallArgument::Kind::Scalar) {
            call.callArgs.push_back(a.literal);
            if (a.wrappedNumber)
                assumptions.push_back(
                    "a Python number recorded as a 0-dim tensor without its value: " + a.literal);
            continue;
        }
        const std::vector<std::string> names =
            drawTensorArgument(args, i, name, fallbackDtype, call, assumptions);
        if (a.kind == CallArgument::Kind::TensorList) {
            std::string list = "[";
            for (size_t k = 0; k < names.size(); ++k)
                list += (k ? ", " : "") + names[k];
            call.callArgs.push_back(list + "]");
        } else {
            call.callArgs.push_back(names[0]);
        }
    }
    if (call.guessedInts)
        assumptions.push_back("integer inputs of unknown role drawn in [0, 2)");
    // The profiler records an argument it cannot show (a string such as gelu's `approximate`,
    // an optional left out) with neither type nor value. At the end of the call it is left to
    // the operator's default, which None would not always be: gelu(x, None) is an error.
    bool trailingUnrecorded = false;
    while (!call.callArgs.empty() && call.callArgs.size() <= args.size() &&
           args[call.callArgs.size() - 1].kind == CallArgument::Kind::None) {
        call.callArgs.pop_back();
        trailingUnrecorded = true;
    }
    if (trailingUnrecorded)
        assumptions.push_back(
            "arguments recorded without type or value at the end of the call are left to the "
            "operator's defaults");
    return call;
}

// forward, from its parameter list on: the call through the overload resolved on its first
// use, or a copy or fill into a fresh destination. Nothing when a copy or fill has no
// destination tensor.
std::optional<std::string> forwardText(const std::string& name, const CallForm& form,
                                       const ProblemCall& call) {
    std::string s;
    for (const std::string& p : call.params)
        s += ", " + p;
    const std::vector<std::string>& params = call.params;
    const std::vector<std::string>& callArgs = call.callArgs;
    if (form.intoFresh) {
        if (callArgs.empty() || params.empty() || callArgs[0].rfind(params[0], 0) != 0)
            return std::nullopt;
        // A fresh destination laid out as the recorded one: a viewed destination is a fresh
        // storage viewed the same way.
        const std::string view = callArgs[0].substr(params[0].size());
        s += "):\n        return torch.empty_like(" + params[0] + ")" + view + "." + name + "(";
        for (size_t i = 1; i < callArgs.size(); ++i)
            s += (i > 1 ? ", " : "") + callArgs[i];
        s += ")";
    } else {
        s += "):\n        args = [";
        for (size_t i = 0; i < callArgs.size(); ++i)
            s += (i ? ", " : "") + callArgs[i];
        s += "]\n        if self._call is None:\n            self._call = "
             "_overload(torch.ops.aten." +
             form.callName + ", args)\n        return _first(self._call(args))";
    }
    return s;
}

// The whole problem file around forward (forwardText).
std::string problemFileText(const std::vector<std::string>& header, const std::string& precision,
                            const std::vector<std::string>& assumptions, bool intoFresh,
                            const std::string& forward, const std::vector<std::string>& draws,
                            const std::string& definitions = {}) {
    // Lines 1 and 2 are Reach's own: Python reads a coding declaration on either (PEP 263),
    // and a trace's file name there (`coding=unicode_escape`) made the escaped newlines of a
    // kernel name in the header into lines of code (issue 37). Line 1 declares UTF-8, line 2 is
    // fixed text, and no text from a file comes before line 3.
    std::string s = "# -*- coding: utf-8 -*-\n# " + std::string(kGeneratedBy) + "\n";
    for (const std::string& line : header)
        s += "# " + commentSafe(line) + "\n";
    // The precision of the recorded call, in the file itself (callPrecision's word: bf16, fp16,
    // fp32, fp64 or mixed): what reach-verify verifies it in without --precision, with no
    // folder to read (readProblemPrecision). No header line can look like it: each starts
    // "# profile:", "#   kernel" or "#   and".
    if (!precision.empty())
        s += std::string(kPrecisionLine) + precision + "\n";
    for (const std::string& a : assumptions)
        s += "# assumed: " + commentSafe(a) + "\n";
    s += "import torch\nimport torch.nn as nn\n";
    s += kHelpers;
    s += definitions;
    s += "\n\nclass Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n";
    if (!intoFresh)
        s += "        self._call = None\n";
    s += "\n";
    s += "    def forward(self";
    s += forward;
    s += "\n\n\ndef get_inputs():\n    return [";
    for (size_t i = 0; i < draws.size(); ++i)
        s += (i ? ",\n            " : "") + draws[i];
    s += "]\n\n\ndef get_init_inputs():\n    return []\n";
    return s;
}

// A serving stack's operator: its call through Reach's reference library (servingproblem.h).
ProblemSource servingProblemSource(const std::string& name, const nlohmann::json& signature,
                                   const std::vector<std::string>& header) {
    ProblemSource out;
    std::string why;
    const std::vector<CallArgument> args = decodeArguments(signature, &why, true);
    if (args.empty() && !why.empty()) {
        out.why = why;
        return out;
    }
    // The schema of the version that recorded the call: the one of as many arguments.
    const ServingOperator* op = servingOperator(name, args.size());
    if (!op) {
        out.why = name + " recorded with " + std::to_string(args.size()) +
                  " arguments: no schema of it in Reach's library has that many";
        return out;
    }
    ServingCall call = servingCall(*op, args);
    if (!call.ok) {
        out.why = call.why;
        return out;
    }
    out.assumptions = std::move(call.assumptions);
    out.source = problemFileText(header, call.precision, out.assumptions, true, call.forward,
                                 call.draws, call.definitions);
    out.ok = true;
    return out;
}

}  // namespace

ProblemSource problemSource(const std::string& op, const nlohmann::json& signature,
                            const std::vector<std::string>& header,
                            const std::string& fallbackDtype) {
    ProblemSource out;
    if (servingOperator(op))
        return servingProblemSource(op, signature, header);
    const std::optional<std::string> name = atenName(op, out.why);
    if (!name)
        return out;
    const CallForm form = callForm(*name, out.assumptions);
    std::string why;
    std::vector<CallArgument> args = decodeArguments(signature, &why);
    if (args.empty() && !why.empty()) {
        out.why = why;
        return out;
    }

    const ProblemCall call = buildCall(*name, args, fallbackDtype, out.assumptions);
    std::sort(out.assumptions.begin(), out.assumptions.end());
    out.assumptions.erase(std::unique(out.assumptions.begin(), out.assumptions.end()),
                          out.assumptions.end());

    const std::optional<std::string> forward = forwardText(*name, form, call);
    if (!forward) {
        out.why = "aten::" + *name + " without its destination tensor";
        return out;
    }
    out.source = problemFileText(header, callPrecision(op, signature), out.assumptions,
                                 form.intoFresh, *forward, call.draws);
    out.ok = true;
    return out;
}

std::string callPrecision(const std::string& op, const nlohmann::json& signature) {
    if (servingOperator(op)) {
        const std::vector<CallArgument> args = decodeArguments(signature, nullptr, true);
        const ServingOperator* serving = servingOperator(op, args.size());
        return serving ? servingPrecision(*serving, args) : std::string();
    }
    static const std::map<std::string, std::string> names = {
        {"bfloat16", "bf16"}, {"float16", "fp16"}, {"float32", "fp32"}, {"float64", "fp64"}};
    std::set<std::string> seen;
    for (const CallArgument& a : decodeArguments(signature, nullptr))
        if (a.kind == CallArgument::Kind::Tensor)
            if (const auto it = names.find(a.dtype); it != names.end())
                seen.insert(it->second);
    if (seen.size() > 1)
        return "mixed";
    return seen.empty() ? std::string() : *seen.begin();
}

std::optional<std::string> readProblemPrecision(const std::string& problemPath) {
    std::ifstream in(problemPath, std::ios::binary);
    if (!in)
        throw InputError(problemPath, "", "a readable problem file");
    std::string head(64 * 1024, '\0');
    in.read(head.data(), std::streamsize(head.size()));
    head.resize(size_t(in.gcount()));
    std::istringstream lines(head);
    const std::string prefix = kPrecisionLine;
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] != '#')
            break;  // the leading comment block ends: the file says no precision
        if (line.rfind(prefix, 0) == 0) {
            const std::string word = line.substr(prefix.size());
            for (const char* known : {"bf16", "fp16", "fp32", "fp64", "mixed"})
                if (word == known)
                    return word;
            throw InputError(problemPath, "its line '" + prefix + "...'",
                             "bf16, fp16, fp32, fp64 or mixed");
        }
    }
    return std::nullopt;
}

}  // namespace reach
