#include "clitext.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);  // printf spells inf and nan itself
    return buf;
}

std::string times(double v, int decimals) {
    return std::isfinite(v) ? fixed(v, decimals) + "x" : "inf";
}

std::string formatted(double v, const char* format, const char* missing) {
    if (!std::isfinite(v))
        return missing;
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
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
