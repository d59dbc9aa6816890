#include "clitext.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <set>

#include "core/base/textescape.h"

namespace reach::cli {

TerminalSafeBuf::~TerminalSafeBuf() {
    sync();
}

void TerminalSafeBuf::write(const char* s, std::streamsize n) {
    if (m_target->sputn(s, n) != n)
        m_failed = true;
}

void TerminalSafeBuf::put(unsigned char c) {
    char buf[8];
    if (m_pendingC2) {
        m_pendingC2 = false;
        if (c >= 0x80 && c <= 0x9F) {
            std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
            write(buf, 6);
            return;
        }
        write("\xC2", 1);
    }
    if (c == 0xC2) {
        m_pendingC2 = true;
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
        std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
        write(buf, 4);
    } else {
        const char ch = char(c);
        write(&ch, 1);
    }
}

TerminalSafeBuf::int_type TerminalSafeBuf::overflow(int_type ch) {
    if (!traits_type::eq_int_type(ch, traits_type::eof()))
        put(static_cast<unsigned char>(traits_type::to_char_type(ch)));
    return m_failed ? traits_type::eof() : traits_type::not_eof(ch);
}

std::streamsize TerminalSafeBuf::xsputn(const char* s, std::streamsize n) {
    // Runs of bytes that need no escape go out in one write (a JSON document of 100 MB is
    // almost all such bytes); the rest byte by byte.
    auto plain = [](unsigned char c) { return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t'; };
    std::streamsize i = 0;
    while (i < n) {
        if (!m_pendingC2 && plain(static_cast<unsigned char>(s[i]))) {
            std::streamsize j = i + 1;
            while (j < n && plain(static_cast<unsigned char>(s[j])))
                ++j;
            write(s + i, j - i);
            i = j;
        } else {
            put(static_cast<unsigned char>(s[i++]));
        }
    }
    return m_failed ? 0 : n;
}

int TerminalSafeBuf::sync() {
    if (m_pendingC2) {
        m_pendingC2 = false;
        write("\xC2", 1);
    }
    return m_target->pubsync() == 0 && !m_failed ? 0 : -1;
}

std::string percent(double share, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f %%", decimals, share * 100.0);
    return buf;
}

std::string duration(double us) {
    char buf[64];
    if (us < 1000.0) {
        std::snprintf(buf, sizeof buf, "%.0f us", us);
    } else if (us < 1e6) {
        std::snprintf(buf, sizeof buf, "%.2f ms", us / 1e3);
    } else {
        std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
    }
    return buf;
}

namespace {

// Removes every balanced <...> group. Operators such as "operator<" are rare in kernel names; an
// unbalanced '<' simply stops the removal so nothing after it is lost.
std::string dropTemplateArgs(std::string_view s) {
    std::string out;
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '<') {
            if (s.find('>', i) == std::string_view::npos) {
                out.append(s.substr(i));
                break;
            }
            ++depth;
        } else if (c == '>' && depth > 0) {
            --depth;
        } else if (depth == 0) {
            out.push_back(c);
        }
    }
    return out;
}

// The most telling identifier inside the template arguments: the first one that is not a
// namespace, a number or a plain type ("CUDAFunctor_add" in vectorized_elementwise_kernel<4,
// at::native::CUDAFunctor_add<c10::BFloat16>, ...>), so kernels that share a template name can be
// told apart.
std::string templateHint(std::string_view s) {
    static const std::set<std::string, std::less<>> kSkip = {
        "at",        "native",         "c10",    "std",      "void",      "int",
        "float",     "double",         "char",   "bool",     "unsigned",  "long",
        "short",     "const",          "signed", "BFloat16", "Half",      "array",
        "detail",    "true",           "false",  "cutlass",  "cute",      "ul",
        "anonymous", "namespace",      "lambda", "type",     "enable_if", "__nv_bfloat16",
        "__half",    "at_cuda_detail", "cub",    "thrust",   "int64_t",   "uint32_t",
        "int32_t",   "float_t"};
    const size_t open = s.find('<');
    if (open == std::string_view::npos)
        return {};
    size_t i = open + 1;
    while (i < s.size()) {
        if (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '_') {
            size_t j = i;
            while (j < s.size() &&
                   (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) {
                ++j;
            }
            std::string_view word = s.substr(i, j - i);
            const bool isNamespace = s.substr(j, 2) == "::";
            if (!isNamespace && !kSkip.count(word) && word.size() > 2)
                return std::string(word);
            i = j;
        } else {
            ++i;
        }
    }
    return {};
}

}  // namespace

std::string shortKernelName(std::string_view name, size_t maxChars) {
    std::string_view s = name;
    if (s.rfind("void ", 0) == 0)
        s.remove_prefix(5);
    std::string cleaned(s);
    // "(anonymous namespace)::" is a namespace, not a parameter list.
    for (size_t at; (at = cleaned.find("(anonymous namespace)::")) != std::string::npos;) {
        cleaned.erase(at, 23);
    }
    // The function name runs from after the last space outside template brackets (what comes
    // before is a return type such as "std::enable_if<...>::type") to the parameter list: a '('
    // outside brackets right after a name. "Memcpy HtoD (Pageable -> Device)" has none.
    size_t nameStart = 0;
    size_t paramOpen = std::string::npos;
    int depth = 0;
    for (size_t i = 0; i < cleaned.size(); ++i) {
        const char c = cleaned[i];
        if (c == '<') {
            ++depth;
        } else if (c == '>' && depth > 0) {
            --depth;
        } else if (depth == 0 && c == '(' && i > 0 && cleaned[i - 1] != ' ') {
            paramOpen = i;
            break;
        }
    }
    std::string region = cleaned;
    if (paramOpen != std::string::npos) {
        depth = 0;
        for (size_t i = 0; i < paramOpen; ++i) {
            const char c = cleaned[i];
            if (c == '<') {
                ++depth;
            } else if (c == '>' && depth > 0) {
                --depth;
            } else if (depth == 0 && c == ' ') {
                nameStart = i + 1;
            }
        }
        region = cleaned.substr(nameStart, paramOpen - nameStart);
    }
    std::string t = dropTemplateArgs(region);
    std::string hint = templateHint(region);
    const size_t lastColon = t.rfind("::");
    const std::string base = lastColon == std::string::npos ? t : t.substr(lastColon + 2);
    if (hint == base)
        hint.clear();
    if (t.empty())
        t = std::string(name.substr(0, maxChars));
    if (!hint.empty() && t.size() + hint.size() + 2 <= maxChars)
        t += "<" + hint + ">";
    if (t.size() > maxChars)
        t = t.substr(0, maxChars - 3) + "...";
    return escapeControls(t);
}

TextTable::TextTable(std::vector<std::string> header) {
    m_rows.push_back(std::move(header));
}

void TextTable::addRow(std::vector<std::string> row) {
    for (std::string& cell : row)
        cell = escapeControls(cell);
    m_rows.push_back(std::move(row));
}

void TextTable::alignLeft(size_t column) {
    if (m_left.size() <= column)
        m_left.resize(column + 1, false);
    m_left[column] = true;
}

std::string TextTable::render(const std::string& indent) const {
    std::vector<size_t> width;
    for (const auto& row : m_rows) {
        if (width.size() < row.size())
            width.resize(row.size(), 0);
        for (size_t i = 0; i < row.size(); ++i)
            width[i] = std::max(width[i], row[i].size());
    }
    std::string out;
    for (size_t r = 0; r < m_rows.size(); ++r) {
        std::string line = indent;
        for (size_t i = 0; i < m_rows[r].size(); ++i) {
            const std::string& cell = m_rows[r][i];
            const std::string pad(width[i] - cell.size(), ' ');
            if (i)
                line += "  ";
            const bool left = i == 0 || (i < m_left.size() && m_left[i]);
            line += left ? cell + pad : pad + cell;
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
        if (r == 0) {
            size_t total = 0;
            for (size_t w : width)
                total += w;
            // Capped: one long pattern or name should not draw a line across the terminal.
            out += indent +
                   std::string(std::min<size_t>(total + 2 * (width.size() - 1), 100), '-') + "\n";
        }
    }
    return out;
}

}  // namespace reach::cli
