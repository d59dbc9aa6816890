#include "core/analysis/kernelname.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <utility>
#include <vector>

#include "core/base/demangle.h"
#include "core/base/textescape.h"

namespace reach {

namespace {

using std::string_view;

bool isIdentChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool isDigit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

string_view trim(string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool endsWith(string_view s, string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// ---- Brackets ---------------------------------------------------------------------------------
// Demangled names nest <>, (), {} and []. '<' and '>' are also operators: "->" in activity names,
// "operator<", and comparisons in template arguments such as enable_if<(8)>0, void>.

char prevNonSpace(string_view s, size_t i) {
    while (i > 0) {
        --i;
        if (s[i] != ' ')
            return s[i];
    }
    return '\0';
}

bool afterOperatorKeyword(string_view s, size_t i) {
    string_view before = s.substr(0, i);
    while (!before.empty() && (before.back() == '<' || before.back() == '>'))
        before.remove_suffix(1);
    return endsWith(before, "operator");
}

// A comparison: a parenthesised operand on the left and a number, maybe parenthesised, on the
// right ("(8)>0", "(8)>(0)"). "decltype(nullptr)>(int, ...)" closes a template instead.
bool isComparison(string_view s, size_t i) {
    if (prevNonSpace(s, i) != ')')
        return false;
    size_t j = i + 1;
    const bool paren = j < s.size() && s[j] == '(';
    if (paren)
        ++j;
    if (j < s.size() && s[j] == '-')
        ++j;
    if (j >= s.size() || !isDigit(s[j]))
        return false;
    while (j < s.size() && (isIdentChar(s[j])))
        ++j;
    return !paren || (j < s.size() && s[j] == ')');
}

bool isAngle(string_view s, size_t i) {
    if (s[i] == '>' && i > 0 && s[i - 1] == '-')
        return false;
    return !afterOperatorKeyword(s, i) && !isComparison(s, i);
}

// depth[i]: how many groups enclose s[i]; an opener and its closer carry the depth outside them.
// A '>' that closes nothing is an operator; a ')' that meets open '<' closes them as comparisons.
std::vector<int> depthMap(string_view s) {
    std::vector<int> depth(s.size(), 0);
    std::string stack;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        depth[i] = int(stack.size());
        if (c == '(' || c == '{' || c == '[' || (c == '<' && isAngle(s, i))) {
            stack.push_back(c);
        } else if (c == '>' && isAngle(s, i)) {
            if (!stack.empty() && stack.back() == '<') {
                stack.pop_back();
                depth[i] = int(stack.size());
            }
        } else if (c == ')' || c == '}' || c == ']') {
            const char open = c == ')' ? '(' : c == '}' ? '{' : '[';
            const size_t at = stack.rfind(open);
            if (at != std::string::npos) {
                stack.resize(at);
                depth[i] = int(stack.size());
            }
        }
    }
    return depth;
}

// The index of the closer matching the opener at s[open] (npos when it never closes).
size_t matchingClose(string_view s, size_t open, const std::vector<int>& depth) {
    const char want = s[open] == '<' ? '>' : s[open] == '(' ? ')' : s[open] == '{' ? '}' : ']';
    for (size_t i = open + 1; i < s.size(); ++i) {
        if (depth[i] == depth[open] && s[i] == want)
            return i;
        if (depth[i] < depth[open])
            return string_view::npos;
    }
    return string_view::npos;
}

// Splits at top-level occurrences of sep (",", "::").
std::vector<string_view> splitTop(string_view s, string_view sep) {
    std::vector<string_view> out;
    const std::vector<int> depth = depthMap(s);
    size_t start = 0;
    for (size_t i = 0; i + sep.size() <= s.size(); ++i) {
        if (depth[i] == 0 && s.substr(i, sep.size()) == sep) {
            out.push_back(trim(s.substr(start, i - start)));
            start = i + sep.size();
            i = start - 1;
        }
    }
    out.push_back(trim(s.substr(start)));
    return out;
}

// ---- Element types ----------------------------------------------------------------------------

struct TypeName {
    string_view cxx;
    string_view shortName;
};

// Floating (and opaque) types name the data a kernel moves; integer types are more often index
// types, so they name the data only when no floating type is there.
constexpr std::array<TypeName, 27> kFloatTypes = {{
    {"c10::BFloat16", "bf16"},
    {"BFloat16", "bf16"},
    {"__nv_bfloat16", "bf16"},
    {"cutlass::bfloat16_t", "bf16"},
    {"bfloat16_t", "bf16"},
    {"__bf16", "bf16"},
    {"c10::Half", "fp16"},
    {"Half", "fp16"},
    {"__half", "fp16"},
    {"cutlass::half_t", "fp16"},
    {"half_t", "fp16"},
    {"half", "fp16"},
    {"float", "f32"},
    {"double", "f64"},
    {"cutlass::tfloat32_t", "tf32"},
    {"tfloat32_t", "tf32"},
    {"c10::Float8_e4m3fn", "fp8e4m3"},
    {"__nv_fp8_e4m3", "fp8e4m3"},
    {"cutlass::float_e4m3_t", "fp8e4m3"},
    {"float_e4m3_t", "fp8e4m3"},
    {"c10::Float8_e5m2", "fp8e5m2"},
    {"__nv_fp8_e5m2", "fp8e5m2"},
    {"cutlass::float_e5m2_t", "fp8e5m2"},
    {"float_e5m2_t", "fp8e5m2"},
    {"c10::Float8_e4m3fnuz", "fp8e4m3fnuz"},
    {"c10::Float8_e5m2fnuz", "fp8e5m2fnuz"},
    {"c10::complex<float>", "c64"},
}};

constexpr std::array<TypeName, 24> kIntTypes = {{
    {"bool", "bool"},        {"char", "i8"},           {"signed char", "i8"},
    {"int8_t", "i8"},        {"unsigned char", "u8"},  {"uint8_t", "u8"},
    {"short", "i16"},        {"int16_t", "i16"},       {"unsigned short", "u16"},
    {"uint16_t", "u16"},     {"int", "i32"},           {"int32_t", "i32"},
    {"unsigned int", "u32"}, {"unsigned", "u32"},      {"uint32_t", "u32"},
    {"long", "i64"},         {"long long", "i64"},     {"int64_t", "i64"},
    {"long int", "i64"},     {"unsigned long", "u64"}, {"unsigned long long", "u64"},
    {"uint64_t", "u64"},     {"size_t", "u64"},        {"c10::complex<double>", "c128"},
}};

// "float const" -> "float", "unsigned  int" -> "unsigned int"; pointers and references are kept
// (they are not element types).
std::string normalizeType(string_view t) {
    std::string out;
    for (string_view word : splitTop(t, " ")) {
        if (word.empty() || word == "const" || word == "volatile")
            continue;
        if (!out.empty())
            out += ' ';
        out += word;
    }
    return out;
}

// The opaque element types of copy kernels (at::native::OpaqueType<2u>) by their width in bits.
std::string opaqueTypeName(string_view t) {
    const size_t at = t.find("OpaqueType<");
    if (at == string_view::npos || (at > 0 && t[at - 1] != ':'))
        return {};
    size_t i = at + 11;
    size_t bytes = 0;
    while (i < t.size() && isDigit(t[i]))
        bytes = bytes * 10 + size_t(t[i++] - '0');
    while (i < t.size() && (t[i] == 'u' || t[i] == 'l'))
        ++i;
    if (bytes == 0 || i >= t.size() || t[i] != '>' || trim(t.substr(i + 1)) != "")
        return {};
    return "b" + std::to_string(bytes * 8);
}

enum class TypeTier { None, Float, Int };

std::pair<TypeTier, std::string> classifyType(string_view t) {
    const std::string n = normalizeType(t);
    for (const TypeName& f : kFloatTypes) {
        if (n == f.cxx)
            return {TypeTier::Float, std::string(f.shortName)};
    }
    for (const TypeName& f : kIntTypes) {
        if (n == f.cxx)
            return {TypeTier::Int, std::string(f.shortName)};
    }
    if (std::string o = opaqueTypeName(n); !o.empty())
        return {TypeTier::Float, o};
    return {TypeTier::None, {}};
}

// The element type of a kernel: its first floating type in the order the name spells its
// template arguments, else its first integer type.
struct ElementType {
    std::string floating, integer;
    void see(string_view type) {
        auto [tier, name] = classifyType(type);
        if (tier == TypeTier::Float && floating.empty())
            floating = std::move(name);
        else if (tier == TypeTier::Int && integer.empty())
            integer = std::move(name);
    }
    std::string best() const { return floating.empty() ? integer : floating; }
};

// ---- Names as parts ---------------------------------------------------------------------------

// One "::"-separated piece of a qualified name: identifier, template arguments, parameter list.
// A lambda ("{lambda(float)#1}") has no identifier but parameters.
struct Part {
    string_view id;
    bool lambda = false;
    std::optional<string_view> targs, params;
};

Part parsePart(string_view p) {
    Part part;
    p = trim(p);
    const std::vector<int> depth = depthMap(p);
    if (p.starts_with("{lambda(")) {
        part.lambda = true;
        const size_t close = matchingClose(p, 7, depth);
        if (close != string_view::npos)
            part.params = p.substr(8, close - 8);
        return part;
    }
    size_t i = 0;
    while (i < p.size() && isIdentChar(p[i]))
        ++i;
    part.id = p.substr(0, i);
    if (part.id == "operator" && p.substr(i, 2) == "()") {
        i += 2;
        part.id = p.substr(0, i);
    }
    while (i < p.size() && p[i] == ' ')
        ++i;
    if (i < p.size() && p[i] == '<' && depth[i] == 0) {
        const size_t close = matchingClose(p, i, depth);
        if (close == string_view::npos)
            return part;
        part.targs = p.substr(i + 1, close - i - 1);
        i = close + 1;
    }
    while (i < p.size() && p[i] == ' ')
        ++i;
    if (i < p.size() && p[i] == '(' && depth[i] == 0) {
        const size_t close = matchingClose(p, i, depth);
        if (close != string_view::npos)
            part.params = p.substr(i + 1, close - i - 1);
    }
    return part;
}

// What a qualified name names: the last part that is a class or function (lambdas and call
// operators belong to it: their parameters and template arguments are read with it); the plain
// part before it is its qualifier (a namespace or class).
struct Entity {
    string_view id, qualifier;
    std::vector<string_view> args;          // its template arguments, then its operator()'s
    std::vector<string_view> lambdaParams;  // of the lambdas inside it, outermost first
};

std::optional<Entity> entityOf(string_view name) {
    const std::vector<string_view> pieces = splitTop(name, "::");
    std::optional<Entity> e;
    string_view qualifier;
    for (size_t i = 0; i < pieces.size(); ++i) {
        const Part p = parsePart(pieces[i]);
        if (p.lambda) {
            if (e && p.params)
                e->lambdaParams.push_back(*p.params);
            continue;
        }
        if (p.id.empty())
            continue;  // "{unnamed type#1}" and the like
        if (p.id == "operator()") {
            if (e && p.targs) {
                for (string_view a : splitTop(*p.targs, ","))
                    e->args.push_back(a);
            }
            continue;
        }
        const bool plain = !p.targs && !p.params;
        if (plain && i + 1 < pieces.size()) {
            qualifier = p.id;
            continue;
        }
        e = Entity{};
        e->id = p.id;
        e->qualifier = qualifier;
        if (p.targs && !trim(*p.targs).empty()) {
            for (string_view a : splitTop(*p.targs, ","))
                e->args.push_back(a);
        }
        qualifier = p.id;
    }
    return e;
}

// Pointers, references, numbers, casts ("(cudnnKernelDataType_t)0") and booleans carry neither
// an op nor an element type.
bool isInert(string_view a) {
    if (a.empty())
        return true;
    if (a.back() == '*' || a.back() == '&' || endsWith(a, "* const") || endsWith(a, "*const"))
        return true;
    if (a.front() == '(' || a.front() == '-' || isDigit(a.front()))
        return true;
    return a == "true" || a == "false";
}

string_view stripAddressOf(string_view a) {
    a = trim(a);
    if (!a.empty() && a.front() == '&')
        a.remove_prefix(1);
    return trim(a);
}

// ---- What tells kernels apart -----------------------------------------------------------------

bool containsLower(string_view id, string_view what) {
    std::string lower(id);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return lower.find(what) != std::string::npos;
}

// Identifiers that configure a kernel rather than say what it computes: containers, layout and
// index helpers, tags. A wrapper around exactly one op (BinaryFunctor<..., MulFunctor>) is
// looked through by opsOf, so wrappers need no entry here.
bool isConfiguration(string_view id) {
    static constexpr std::array<string_view, 26> kExact = {"array",
                                                           "Array",
                                                           "tuple",
                                                           "pair",
                                                           "C",
                                                           "Int",
                                                           "integral_constant",
                                                           "identity",
                                                           "Underscore",
                                                           "NullType",
                                                           "decltype",
                                                           "type",
                                                           "void",
                                                           "nullptr_t",
                                                           "ArrayRef",
                                                           "optional",
                                                           "Scalar",
                                                           "LoadWithCast",
                                                           "LoadWithoutCast",
                                                           "StoreWithCast",
                                                           "StoreWithoutCast",
                                                           "enable_if",
                                                           "conditional",
                                                           "OpaqueType",
                                                           "use_default",
                                                           "InputValue"};
    if (std::find(kExact.begin(), kExact.end(), id) != kExact.end())
        return true;
    static constexpr std::array<string_view, 20> kContains = {
        "policy",    "traits",     "metadata",       "params",     "calculator",
        "accessor",  "tensorinfo", "state",          "iterator",   "layout",
        "shape",     "config",     "stridedbatched", "sizestride", "divider",
        "generator", "ptrtraits",  "scaling",        "decomposer", "helper"};
    for (string_view w : kContains) {
        if (containsLower(id, w))
            return true;
    }
    // CUDA's vector types (float2, ulonglong2) are storage, not ops.
    static constexpr std::array<string_view, 10> kVectorBases = {
        "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double"};
    if (id.size() >= 2 && id.back() >= '1' && id.back() <= '4') {
        string_view base = id.substr(0, id.size() - 1);
        if (base.starts_with("ulonglong"))
            base = "ulong";
        else if (base.starts_with("longlong"))
            base = "long";
        if (std::find(kVectorBases.begin(), kVectorBases.end(), base) != kVectorBases.end())
            return true;
    }
    // cutlass::arch::Sm80 and the like: the architecture tag.
    return id.size() >= 3 && (id[0] == 'S' || id[0] == 's') && id[1] == 'm' && isDigit(id[2]) &&
           std::all_of(id.begin() + 2, id.end(), isDigit);
}

void addUnique(std::vector<std::string>& list, std::string value) {
    if (std::find(list.begin(), list.end(), value) == list.end())
        list.push_back(std::move(value));
}

// The ops one template argument names: a functor or function ("MulFunctor", the function a
// lambda lives in), through wrappers of exactly one op; nothing for types, numbers, pointers.
std::vector<std::string> opsOf(string_view arg, int level = 0) {
    arg = stripAddressOf(arg);
    if (level > 24 || isInert(arg) || classifyType(arg).first != TypeTier::None)
        return {};
    const std::optional<Entity> e = entityOf(arg);
    if (!e)
        return {};
    std::vector<std::string> inner;
    for (string_view a : e->args) {
        for (std::string& op : opsOf(a, level + 1))
            addUnique(inner, std::move(op));
    }
    // Configuration types hold no op worth showing (AgentScanPolicy<..., MemBoundScaling<...>>);
    // enable_* are SFINAE wrappers around the real thing.
    if (isConfiguration(e->id))
        return {};
    if (e->id.starts_with("enable_"))
        return inner;
    if (inner.size() == 1)
        return inner;
    return {std::string(e->id)};
}

// Element types in the order the name spells them: template arguments (depth first) and the
// parameters of lambdas, not the parameters of named functions (those are tensors, iterators and
// options: nan_to_num(..., optional<double>) runs on floats).
void scanTypes(string_view arg, ElementType& found, int level = 0) {
    arg = stripAddressOf(arg);
    if (level > 24 || isInert(arg))
        return;
    if (classifyType(arg).first != TypeTier::None) {
        found.see(arg);
        return;
    }
    const std::optional<Entity> e = entityOf(arg);
    if (!e)
        return;
    for (string_view a : e->args)
        scanTypes(a, found, level + 1);
    for (string_view params : e->lambdaParams) {
        for (string_view p : splitTop(params, ","))
            scanTypes(p, found, level + 1);
    }
}

// ---- Rendering --------------------------------------------------------------------------------

// Launchers whose template argument is the kernel (cutlass::Kernel2<cutlass_80_..._align8>).
bool isLauncher(string_view id) {
    return id == "Kernel" || id == "Kernel2" || id == "device_kernel";
}

// Names too generic to stand alone (internal::gemvx::kernel).
bool isGeneric(string_view id) {
    return id == "kernel" || isLauncher(id);
}

constexpr size_t kMaxOps = 3;

std::string render(string_view id, string_view qualifier, const std::vector<std::string>& ops,
                   const std::string& dtype) {
    if (isLauncher(id) && !ops.empty()) {
        std::vector<std::string> rest;
        if (!dtype.empty())
            rest.push_back(dtype);
        rest.insert(rest.end(), ops.begin() + 1, ops.end());
        std::string out = ops.front();
        if (!rest.empty()) {
            out += "<";
            for (size_t i = 0; i < rest.size(); ++i)
                out += (i ? ", " : "") + rest[i];
            out += ">";
        }
        return out;
    }
    std::string out = isGeneric(id) && !qualifier.empty()
                          ? std::string(qualifier) + "::" + std::string(id)
                          : std::string(id);
    if (ops.empty())
        return dtype.empty() ? out : out + "<" + dtype + ">";
    out += "<" + ops.front();
    if (!dtype.empty())
        out += "<" + dtype + ">";
    for (size_t i = 1; i < ops.size(); ++i)
        out += ", " + ops[i];
    return out + ">";
}

std::string elide(std::string s, size_t maxChars) {
    if (maxChars == 0 || s.size() <= maxChars)
        return s;
    if (maxChars <= 5)
        return s.substr(0, maxChars);
    const size_t keep = maxChars - 3;
    const size_t head = (keep + 1) / 2;
    const size_t tail = keep - head;
    return s.substr(0, head) + "..." + s.substr(s.size() - tail);
}

// ---- Mangled names the demangler rejects ------------------------------------------------------
// Very long CUTLASS 3 names exceed what __cxa_demangle accepts. Their source names
// (<length><identifier>) are still readable: a name followed by 'I' (template arguments) or 'E'
// (end of a nested name) is a class or function; one followed by another name is a namespace.

struct SourceName {
    string_view id;
    char next = '\0';
};

std::vector<SourceName> sourceNames(string_view m) {
    std::vector<SourceName> out;
    size_t i = 0;
    while (i < m.size()) {
        const char c = m[i];
        if (c == 'S' || c == 'T') {
            // Substitution (S_, S5_, SA_, St, Sa...) or template parameter (T_, T0_).
            size_t j = i + 1;
            while (j < m.size() &&
                   (std::isupper(static_cast<unsigned char>(m[j])) || isDigit(m[j])))
                ++j;
            i = j < m.size() && m[j] == '_' ? j + 1 : i + 1;
            continue;
        }
        if (c == 'L') {
            // A literal (Li4E, Lb0E, LNS_15FloatRoundStyleE2E): skip to the 'E' after its value.
            size_t j = i + 1;
            while (j < m.size() && !(m[j] == 'E' && isDigit(m[j - 1])))
                ++j;
            i = j + 1;
            continue;
        }
        if (isDigit(c)) {
            size_t j = i;
            size_t len = 0;
            while (j < m.size() && isDigit(m[j]) && len < 100000)
                len = len * 10 + size_t(m[j++] - '0');
            if (len > 0 && j + len <= m.size() &&
                std::all_of(m.begin() + j, m.begin() + j + len, isIdentChar)) {
                out.push_back({m.substr(j, len), j + len < m.size() ? m[j + len] : '\0'});
                i = j + len;
                continue;
            }
        }
        ++i;
    }
    return out;
}

bool hasShape(string_view id) {
    for (size_t i = 1; i + 1 < id.size(); ++i) {
        if (id[i] == 'x' && isDigit(id[i - 1]) && isDigit(id[i + 1]))
            return true;
    }
    return false;
}

std::string mangledDisplay(string_view m) {
    const std::vector<SourceName> names = sourceNames(m);
    if (names.empty())
        return std::string(m);
    // The function: the source names up to the first one that opens template arguments or ends.
    size_t f = 0;
    while (f + 1 < names.size() && names[f].next != 'I' && names[f].next != 'E' &&
           isDigit(names[f].next))
        ++f;
    const string_view id = names[f].id;
    const string_view qualifier = f > 0 ? names[f - 1].id : string_view{};
    std::vector<std::string> ops;
    ElementType type;
    std::string tile;
    for (size_t i = f + 1; i < names.size(); ++i) {
        const SourceName& n = names[i];
        if (n.next != 'I' && n.next != 'E' && n.next != '\0')
            continue;  // a namespace
        if (classifyType(n.id).first != TypeTier::None) {
            type.see(n.id);
            continue;
        }
        if (ops.empty() && !isConfiguration(n.id) && !n.id.starts_with("enable_"))
            ops.push_back(std::string(n.id));
        else if (tile.empty() && hasShape(n.id))
            tile = std::string(n.id);
    }
    if (!tile.empty())
        addUnique(ops, tile);
    return render(id, qualifier, ops, type.best());
}

// ---- Demangled names --------------------------------------------------------------------------

// The qualified function name of a demangled signature: after the return type (the last space
// outside brackets) and before the parameter list (the first '(' outside brackets that follows
// a name). Activity names such as "Memcpy HtoD (Pageable -> Device)" have neither.
string_view functionName(string_view s) {
    const std::vector<int> depth = depthMap(s);
    size_t paramOpen = s.size();
    for (size_t i = 1; i < s.size(); ++i) {
        if (depth[i] == 0 && s[i] == '(' && (isIdentChar(s[i - 1]) || s[i - 1] == '>')) {
            // "operator()" is a name, its parameter list comes after.
            if (endsWith(s.substr(0, i), "operator") && s.substr(i, 2) == "()")
                continue;
            paramOpen = i;
            break;
        }
    }
    size_t start = 0;
    for (size_t i = 0; i < paramOpen; ++i) {
        if (depth[i] == 0 && s[i] == ' ')
            start = i + 1;
    }
    return trim(s.substr(start, paramOpen - start));
}

std::string removeAll(std::string s, string_view what) {
    for (size_t at; (at = s.find(what)) != std::string::npos;)
        s.erase(at, what.size());
    return s;
}

std::string displayOf(string_view fullName) {
    const string_view name = trim(fullName);
    if (name.empty())
        return {};
    // GPU activities that are not kernels keep their whole name: the direction and the memory
    // kinds in "Memcpy HtoD (Pageable -> Device)" are the useful part.
    if (name.starts_with("Memcpy") || name.starts_with("Memset"))
        return std::string(name);
    if (looksMangled(name)) {
        const std::string demangled = demangle(name);
        if (looksMangled(demangled))
            return mangledDisplay(name);
        return displayOf(demangled);
    }
    // "(anonymous namespace)" is a namespace, not a parameter list.
    const std::string cleaned = removeAll(std::string(name), "(anonymous namespace)::");
    const string_view fn = functionName(cleaned);
    const std::optional<Entity> e = entityOf(fn);
    if (!e || e->id.empty())
        return std::string(fn.empty() ? name : fn);
    std::vector<std::string> ops;
    ElementType type;
    for (string_view a : e->args) {
        for (std::string& op : opsOf(a))
            addUnique(ops, std::move(op));
        scanTypes(a, type);
    }
    if (ops.size() > kMaxOps)
        ops.resize(kMaxOps);
    return render(e->id, e->qualifier, ops, type.best());
}

}  // namespace

KernelFunctionName kernelFunctionName(std::string_view fullName) {
    const std::string cleaned = removeAll(std::string(trim(fullName)), "(anonymous namespace)::");
    KernelFunctionName out;
    std::optional<string_view> targs;
    for (string_view piece : splitTop(functionName(cleaned), "::")) {
        const Part p = parsePart(piece);
        if (p.id.empty())
            continue;  // lambdas and unnamed types name no function
        if (!out.qualified.empty())
            out.qualified += "::";
        out.qualified += p.id;
        targs = p.targs;
    }
    if (targs && !trim(*targs).empty())
        out.firstTemplateArg = std::string(splitTop(*targs, ",").front());
    return out;
}

std::string shortTypeName(std::string_view type) {
    return classifyType(type).second;
}

std::string kernelDisplayName(std::string_view fullName, size_t maxChars) {
    // A name with control characters is no compiler's (a crafted or corrupt trace): shown
    // verbatim with them escaped, so nothing reaches a terminal raw and two such names stay apart.
    const bool control = std::any_of(fullName.begin(), fullName.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
    if (control)
        return elide(escapeControls(fullName), maxChars);
    return elide(displayOf(fullName), maxChars);
}

}  // namespace reach
