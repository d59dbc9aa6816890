#include "core/benchmark/servingproblem.h"

#include <map>
#include <set>

namespace reach {

namespace {

using F = ServingFamily;
using R = ServingRole;

// Every reference computes in float32 at least: a kernel of these stacks accumulates in float32
// whatever its data's dtype, and the judge's reference (the same function on float64 inputs)
// must not be rounded down to float32 by a `.float()`.
constexpr const char* kAccumulate = R"PY(

def _acc(t):
    """`t` in float32 at least (float64 stays float64: the judge's reference runs in it)."""
    return t.to(torch.promote_types(t.dtype, torch.float32))
)PY";

// RMS norm as vLLM's and SGLang's kernels define it: the mean of squares over the last
// dimension in float32, times the weight (Gemma's: 1 + weight; vLLM's newest takes none), rounded
// once to the data's dtype (vLLM's older kernels rounded before the weight too: inside the
// tolerance).
constexpr const char* kRmsNorm = R"PY(

def _rms_norm(x, weight, eps, gemma=False):
    v = _acc(x)
    y = v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + eps)
    if weight is not None:
        y = y * (_acc(weight) + 1 if gemma else _acc(weight))
    return y.to(x.dtype)
)PY";

// The fused form writes both of its tensors: the sum into `residual` (rounded to the dtype), its
// norm into `input`. vLLM normalises the rounded sum; SGLang's (FlashInfer's) kernel the float32
// sum before rounding (`rounded=False`).
constexpr const char* kFusedAddRmsNorm = R"PY(

def _fused_add_rms_norm(x, residual, weight, eps, gemma=False, rounded=True):
    s = _acc(x) + _acc(residual)
    r = s.to(x.dtype)
    y = _rms_norm(r if rounded else s, weight, eps, gemma).to(x.dtype)
    return torch.stack([y, r])
)PY";

// out[..., d] = act(x[..., :d]) * x[..., d:], the activation in float32.
constexpr const char* kActAndMul = R"PY(

def _act_and_mul(x, act):
    d = x.shape[-1] // 2
    a, b = _acc(x[..., :d]), _acc(x[..., d:])
    if act == "silu":
        y = torch.nn.functional.silu(a)
    elif act == "gelu":
        y = torch.nn.functional.gelu(a)
    else:
        y = torch.nn.functional.gelu(a, approximate="tanh")
    return (y * b).to(x.dtype)
)PY";

// vLLM's rotary_embedding: row p of cos_sin_cache is [cos | sin] over rot_dim (its width); the
// rot_dim dimensions of each head of query and key from rope_dim_offset on are rotated (by -angle
// when inverse), the rest kept. NeoX style rotates the
// two halves of rot_dim, GPT-J style the interleaved (even, odd) pairs. query and key are
// [tokens, heads * head_size] or [tokens, heads, head_size] (tokens may be [batch, seq]).
constexpr const char* kRotary = R"PY(

def _rotary_embedding(positions, query, key, head_size, cos_sin_cache, is_neox, offset=0,
                      inverse=False):
    rows = cos_sin_cache[positions.reshape(-1)]
    rot = rows.shape[-1]
    cos = _acc(rows[..., : rot // 2]).unsqueeze(1)
    sin = _acc(rows[..., rot // 2:]).unsqueeze(1)
    if inverse:
        sin = -sin

    def rotate(x):
        t = x.reshape(rows.shape[0], -1, head_size)
        r = _acc(t[..., offset:offset + rot])
        if is_neox:
            a, b = r[..., : rot // 2], r[..., rot // 2:]
            r = torch.cat([a * cos - b * sin, b * cos + a * sin], -1)
        else:
            a, b = r[..., 0::2], r[..., 1::2]
            r = torch.stack([a * cos - b * sin, b * cos + a * sin], -1).flatten(-2)
        return torch.cat([t[..., :offset], r.to(x.dtype), t[..., offset + rot:]], -1).reshape(-1)

    if key is None:
        return rotate(query)
    return torch.cat([rotate(query), rotate(key)])
)PY";

// vLLM's static_scaled_fp8_quant: x times the reciprocal of its one scale (as the kernel computes
// it), clamped to the FP8 type's largest finite value, rounded to it.
constexpr const char* kFp8Quant = R"PY(

def _static_scaled_fp8_quant(x, scale, dtype):
    largest = torch.finfo(dtype).max
    inverse = 1.0 / _acc(scale).reshape(-1)[0]
    return (_acc(x) * inverse).clamp(-largest, largest).to(dtype)
)PY";

// vLLM's reshape_and_cache_flash into caches of `blocks` x `block_size` slots (flash layout
// [blocks, block_size, heads, head_size]): token t's key and value at slot slot_mapping[t]. The
// problem's caches hold exactly the slots written (every one, in a random order), so the
// returned caches are the write's bytes, not a copy of a serving cache many times larger; the
// slots nobody writes (the last block's rest) are zero.
constexpr const char* kKvCacheWrite = R"PY(

def _reshape_and_cache_flash(key, value, slot_mapping, blocks, block_size):
    heads, size = key.shape[-2], key.shape[-1]
    caches = torch.zeros((2, blocks * block_size, heads, size), dtype=key.dtype,
                         device=key.device)
    caches[0, slot_mapping.long()] = key.reshape(-1, heads, size)
    caches[1, slot_mapping.long()] = value.reshape(-1, heads, size)
    return caches.reshape(2, blocks, block_size, heads, size)
)PY";

bool isFloating(const std::string& dtype) {
    return dtype == "bfloat16" || dtype.rfind("float", 0) == 0;
}

bool isInteger(const std::string& dtype) {
    return dtype.rfind("int", 0) == 0 || dtype.rfind("uint", 0) == 0;
}

// A tensor argument's draw: dense at its recorded strides (_draw, the problem's helper).
std::string drawOf(const CallArgument& a, const std::string& dtype, const std::string& range) {
    return "_draw(" + pyIntList(a.shapes[0]) + ", " + pyIntList(a.strides[0]) + ", torch." + dtype +
           range + ")";
}

// How an argument of a role may be recorded: a tensor for the tensor roles (None only for an
// Optional), a number for a Scalar; nothing is asked of an Ignored one.
bool fits(ServingRole role, const CallArgument& a) {
    using K = CallArgument::Kind;
    switch (role) {
        case R::Output:
        case R::Input:
        case R::Positions:
        case R::Slots:
        case R::Scale:
            return a.kind == K::Tensor;
        case R::Optional:
            return a.kind == K::Tensor || a.kind == K::None;
        case R::Scalar:
            return a.kind == K::Scalar && !a.wrappedNumber;
        case R::Ignored:
            return true;
        case R::PerTensor:
            return a.kind == K::None;
    }
    return false;
}

// The forward's call of the family's reference on `in` (the problem's inputs and scalars, in
// the schema's order, Outputs and Ignored left out), and its definitions.
struct FamilyCall {
    std::string definitions, call;
};
FamilyCall familyCall(const ServingOperator& op, const std::vector<std::string>& in,
                      const std::string& outputDtype) {
    auto args = [&](size_t n) {
        std::string s;
        for (size_t i = 0; i < n && i < in.size(); ++i)
            s += (i ? ", " : "") + in[i];
        return s;
    };
    switch (op.family) {
        case F::RmsNorm:
        case F::GemmaRmsNorm:
            return {kRmsNorm, "_rms_norm(" + args(3) +
                                  (op.family == F::GemmaRmsNorm ? ", gemma=True" : "") + ")"};
        case F::FusedAddRmsNorm:
        case F::GemmaFusedAddRmsNorm:
            return {std::string(kRmsNorm) + kFusedAddRmsNorm,
                    "_fused_add_rms_norm(" + args(4) +
                        (op.family == F::GemmaFusedAddRmsNorm ? ", gemma=True" : "") +
                        (op.stack == "SGLang" ? ", rounded=False" : "") + ")"};
        case F::SiluAndMul:
            return {kActAndMul, "_act_and_mul(" + args(1) + ", \"silu\")"};
        case F::GeluAndMul:
            return {kActAndMul, "_act_and_mul(" + args(1) + ", \"gelu\")"};
        case F::GeluTanhAndMul:
            return {kActAndMul, "_act_and_mul(" + args(1) + ", \"tanh\")"};
        case F::RotaryEmbedding:
            return {kRotary, "_rotary_embedding(" + args(8) + ")"};
        case F::StaticScaledFp8Quant:
            return {kFp8Quant,
                    "_static_scaled_fp8_quant(" + args(2) + ", torch." + outputDtype + ")"};
        case F::KvCacheWrite:
            return {kKvCacheWrite, "_reshape_and_cache_flash(" + args(5) + ")"};
    }
    return {};
}

// A literal of a whole number below 10^9 (a head size, an offset).
bool isWhole(const std::string& literal) {
    return !literal.empty() && literal.size() < 10 &&
           literal.find_first_not_of("0123456789") == std::string::npos;
}

// What a family asks of its arguments beyond their roles (the shapes its reference indexes);
// empty when they hold.
std::string familyShapeProblem(const ServingOperator& op, const std::vector<CallArgument>& a) {
    auto shape = [&](size_t i) -> const std::vector<int64_t>& {
        static const std::vector<int64_t> none;
        return i < a.size() && a[i].kind == CallArgument::Kind::Tensor ? a[i].shapes[0] : none;
    };
    switch (op.family) {
        case F::SiluAndMul:
        case F::GeluAndMul:
        case F::GeluTanhAndMul:
            if (shape(1).empty() || shape(1).back() % 2 != 0)
                return "its input's last dimension is not even (x[..., :d] times x[..., d:])";
            return {};
        case F::RotaryEmbedding: {
            const std::vector<int64_t>& cache = shape(4);
            const int64_t head = isWhole(a[3].literal) ? std::stoll(a[3].literal) : 0;
            if (cache.size() != 2 || cache[0] < 1 || cache[1] < 2 || cache[1] % 2 != 0)
                return "its cos_sin_cache is not [positions, rot_dim] with an even rot_dim";
            const int64_t offset =
                a.size() > 6 && isWhole(a[6].literal) ? std::stoll(a[6].literal) : 0;
            if (a.size() > 6 && !isWhole(a[6].literal))
                return "its rope_dim_offset is not a whole number";
            if (a.size() > 7 && a[7].literal != "True" && a[7].literal != "False")
                return "its inverse is not True or False";
            if (head < cache[1] + offset)
                return "its head_size is not a whole number at least rope_dim_offset + the cache's "
                       "rot_dim";
            int64_t tokens = 1;
            for (int64_t d : shape(0))
                tokens *= d;
            for (size_t i : {size_t(1), size_t(2)}) {
                if (a[i].kind != CallArgument::Kind::Tensor)
                    continue;
                int64_t n = 1;
                for (int64_t d : shape(i))
                    n *= d;
                if (tokens < 1 || n % (tokens * head) != 0)
                    return "its query or key is not whole heads of head_size per position";
            }
            return {};
        }
        case F::KvCacheWrite: {
            const std::vector<int64_t>&key = shape(0), &value = shape(1), &cache = shape(2);
            if (key.size() != 3 || value != key || cache.size() != 4 || shape(3) != cache ||
                cache[2] != key[1] || cache[3] != key[2] || cache[1] < 1)
                return "its key, value and caches are not [tokens, heads, head_size] and [blocks, "
                       "block_size, heads, head_size] (the flash layout)";
            if (shape(4).size() != 1 || shape(4)[0] != key[0])
                return "its slot_mapping is not one slot per token";
            if (a[2].dtype != a[0].dtype || a[3].dtype != a[1].dtype)
                return "its caches are of another dtype than key and value (an FP8 cache): its "
                       "scaling is not in Reach's library";
            return {};
        }
        default:
            return {};
    }
}

// The draw of tensor argument `i` for its role: slots a permutation filling whole blocks (and
// `extra` gets the caches' size), positions in range of the cache's rows, a scale positive, any
// other floating data as recorded. Empty, with out.why, when the argument cannot be drawn so.
std::string drawOfRole(const ServingOperator& op, const std::vector<CallArgument>& args, size_t i,
                       ServingCall& out, std::vector<std::string>& extra) {
    const std::string name(op.name);
    const CallArgument& a = args[i];
    const ServingRole role = op.roles[i];
    std::string draw;
    if (role == R::Slots) {
        // Distinct slots, one per token, filling ceil(tokens / block_size) blocks (the
        // family's check then holds the caches and key to one layout).
        if (!isInteger(a.dtype) || a.shapes[0].size() != 1) {
            out.why = "argument " + std::to_string(i) + " of " + name +
                      " (slot_mapping) is not an integer tensor of one slot per token";
            return {};
        }
        const CallArgument& cache = args[size_t(op.cacheArgument)];
        const int64_t block =
            cache.kind == CallArgument::Kind::Tensor && cache.shapes[0].size() == 4
                ? cache.shapes[0][1]
                : 0;
        const int64_t tokens = a.shapes[0][0];
        if (block < 1 || tokens < 1) {
            out.why = name + ": no slot to write (an empty cache block or no token)";
            return {};
        }
        const int64_t blocks = (tokens + block - 1) / block;
        draw = "torch.randperm(" + std::to_string(blocks * block) + ")[:" + std::to_string(tokens) +
               "].to(torch." + a.dtype + ")";
        extra = {std::to_string(blocks), std::to_string(block)};
        out.assumptions.push_back(
            "the caches hold exactly the slots written (" + std::to_string(blocks) + " blocks of " +
            std::to_string(block) +
            ", the slots a random permutation): the write's bytes, not a serving cache's");
    } else if (role == R::Positions) {
        if (!isInteger(a.dtype)) {
            out.why = "argument " + std::to_string(i) + " of " + name +
                      " (positions) is not an integer tensor";
            return {};
        }
        const CallArgument& cache = args[size_t(op.cacheArgument)];
        const int64_t rows = cache.kind == CallArgument::Kind::Tensor && !cache.shapes[0].empty()
                                 ? cache.shapes[0][0]
                                 : 0;
        if (rows < 1) {
            out.why = name + ": the cache its positions index has no rows";
            return {};
        }
        draw = drawOf(a, a.dtype, ", 0, " + std::to_string(rows));
        out.assumptions.push_back("positions drawn uniformly in [0, " + std::to_string(rows) +
                                  "), the cache's rows");
    } else {
        if (!isFloating(a.dtype) || a.dtype.rfind("float8", 0) == 0) {
            out.why = "argument " + std::to_string(i) + " of " + name + " is a " + a.dtype +
                      " tensor; its reference takes floating data Reach can draw";
            return {};
        }
        draw = drawOf(a, a.dtype, "");
        if (role == R::Scale) {
            // A scale divides: drawn in [0.5, 1.5), never near zero.
            draw = "(" + draw + ".abs() % 1 + 0.5)";
            out.assumptions.push_back("scales drawn in [0.5, 1.5)");
        }
    }
    return draw;
}

}  // namespace

std::string servingPrecision(const ServingOperator& op, const std::vector<CallArgument>& args) {
    static const std::map<std::string, std::string> names = {
        {"bfloat16", "bf16"}, {"float16", "fp16"}, {"float32", "fp32"}, {"float64", "fp64"}};
    for (size_t i = 0; i < op.roles.size() && i < args.size(); ++i)
        if (op.roles[i] == R::Input && args[i].kind == CallArgument::Kind::Tensor) {
            const auto it = names.find(args[i].dtype);
            return it == names.end() ? std::string() : it->second;
        }
    return {};
}

ServingCall servingCall(const ServingOperator& op, const std::vector<CallArgument>& args) {
    ServingCall out;
    const std::string name(op.name);
    if (args.size() != op.roles.size()) {
        out.why = name + " recorded with " + std::to_string(args.size()) +
                  " arguments; Reach's library knows its schema of " +
                  std::to_string(op.roles.size());
        return out;
    }
    std::string outputDtype;
    std::vector<std::string> in;     // the reference's arguments
    std::vector<std::string> extra;  // and what the problem adds to them (the caches' size)
    int n = 0;
    for (size_t i = 0; i < args.size(); ++i) {
        const CallArgument& a = args[i];
        const ServingRole role = op.roles[i];
        if (!fits(role, a)) {
            out.why = "argument " + std::to_string(i) + " of " + name +
                      (role == R::PerTensor
                           ? " (group_shape) is given: per-token or grouped scales are not in "
                             "Reach's library"
                           : " is not recorded as its schema has it");
            return out;
        }
        if (role == R::Ignored || role == R::PerTensor)
            continue;
        if (role == R::Output) {
            if (outputDtype.empty())
                outputDtype = a.dtype;
            continue;
        }
        if (role == R::Scalar) {
            in.push_back(a.literal);
            continue;
        }
        if (a.kind == CallArgument::Kind::None) {
            in.push_back("None");
            continue;
        }
        if (a.strides[0].size() != a.shapes[0].size())
            out.assumptions.push_back("a tensor recorded without strides is drawn contiguous");
        const std::string p = "x" + std::to_string(n++);
        const std::string draw = drawOfRole(op, args, i, out, extra);
        if (draw.empty())
            return out;
        out.draws.push_back(draw);
        in.push_back(p);
    }
    if (op.family == F::StaticScaledFp8Quant && outputDtype.rfind("float8", 0) != 0) {
        out.why = name + ": its result is not recorded as an FP8 tensor";
        return out;
    }
    if (const std::string bad = familyShapeProblem(op, args); !bad.empty()) {
        out.why = name + ": " + bad;
        return out;
    }
    in.insert(in.end(), extra.begin(), extra.end());
    const FamilyCall fc = familyCall(op, in, outputDtype);
    out.definitions = std::string(kAccumulate) + fc.definitions;
    std::string params;
    for (int k = 0; k < n; ++k)
        params += ", x" + std::to_string(k);
    out.forward = params + "):\n        return " + fc.call;
    out.precision = servingPrecision(op, args);
    static const std::map<std::string, std::string> words = {
        {"bf16", "bfloat16"}, {"fp16", "float16"}, {"fp32", "float32"}, {"fp64", "float64"}};
    for (size_t i = 0; i < args.size(); ++i)
        if ((op.roles[i] == R::Input || op.roles[i] == R::Optional || op.roles[i] == R::Scale) &&
            args[i].kind == CallArgument::Kind::Tensor && !out.precision.empty() &&
            args[i].dtype != words.at(out.precision))
            out.assumptions.push_back("argument " + std::to_string(i) + " (" + args[i].dtype +
                                      ") verified in " + out.precision +
                                      " with the data: reach-verify casts every floating input "
                                      "to the problem's precision");
    out.assumptions.push_back(
        std::string(op.stack) + " " + name + " (" + std::string(servingFamilyName(op.family)) +
        ") as Reach's reviewed PyTorch reference; the workload ran " + std::string(op.stack) +
        "'s own kernel: speedups count against the trace's time");
    std::set<std::string> seen;
    std::vector<std::string> unique;
    for (std::string& s : out.assumptions)
        if (seen.insert(s).second)
            unique.push_back(std::move(s));
    out.assumptions = std::move(unique);
    out.ok = true;
    return out;
}

}  // namespace reach
