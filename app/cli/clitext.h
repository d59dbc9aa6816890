#pragma once

#include <streambuf>
#include <string>
#include <vector>

namespace reach::cli {

// Formatting for the human-readable output of reach-cli (the JSON output never goes through here).

// "12.34 %" with a fixed number of decimals; share is a fraction.
std::string percent(double share, int decimals = 1);
// "3.14" with a fixed number of decimals; "inf", "-inf" or "nan" for what is not finite.
std::string fixed(double v, int decimals);
// A speedup or a factor: "1.55x" (decimals 2 unless asked), "inf" when it is not finite.
std::string times(double v, int decimals = 2);
// v through a printf format of one double ("%.3g"), or `missing` when v is not finite.
std::string formatted(double v, const char* format, const char* missing = "nan");
// Microseconds in a readable unit: "850 us", "12.3 ms", "4.56 s".
std::string duration(double us);

// What reach-cli writes to the terminal passes through this: control characters other than
// newline and tab (an ESC or OSC sequence in a kernel name, a BEL) and C1 controls come out as
// visible escapes (\x1b, \u009b), so a file from a stranger cannot steer the user's terminal.
// JSON output is unchanged by it (its strings have no raw control characters).
class TerminalSafeBuf : public std::streambuf {
public:
    explicit TerminalSafeBuf(std::streambuf* target) : m_target(target) {}
    ~TerminalSafeBuf() override;

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

private:
    void put(unsigned char c);
    void write(const char* s, std::streamsize n);
    std::streambuf* m_target;
    bool m_failed = false;
    bool m_pendingC2 = false;  // a 0xC2 lead byte whose next byte decides (C1 or not)
};

// A plain text table: the first row is the header; columns after the first are right-aligned.
// Cells are written with control characters escaped (names come from files).
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
