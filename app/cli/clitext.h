#pragma once

#include <string>
#include <vector>

namespace reach::cli {

// Formatting for the human-readable output of reach-cli (the JSON output never goes through here).

// "12.34 %" with a fixed number of decimals; share is a fraction.
std::string percent(double share, int decimals = 1);
// Microseconds in a readable unit: "850 us", "12.3 ms", "4.56 s".
std::string duration(double us);

// A plain text table: the first row is the header; columns after the first are right-aligned.
class TextTable {
public:
    explicit TextTable(std::vector<std::string> header);
    void addRow(std::vector<std::string> row);
    void alignLeft(size_t column);  // text columns (patterns, names) read better left-aligned
    std::string render(const std::string& indent = "  ") const;

private:
    std::vector<std::vector<std::string>> m_rows;
    std::vector<bool> m_left;
};

}  // namespace reach::cli
