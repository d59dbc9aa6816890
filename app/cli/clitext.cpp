#include "clitext.h"

#include <algorithm>
#include <cstdio>

namespace reach::cli {

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

TextTable::TextTable(std::vector<std::string> header) {
    m_rows.push_back(std::move(header));
}

void TextTable::addRow(std::vector<std::string> row) {
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
