#pragma once

#include <chrono>
#include <cstdint>
#include <stop_token>
#include <utility>

namespace reach {

// The bounds Reach puts on every SQLite file it reads or writes (an Nsight export, a project):
// such a file may come from anyone, it can hold values of any size, and its schema can carry code
// (views, triggers) that would run inside Reach. docs/limits.md lists them. base does not use
// SQLite itself: core/trace (Nsight) and core/store (projects) each apply these numbers to their
// own connections.
struct SqliteLimits {
    // One value (a name, a JSON text, a list of streams): SQLite refuses a longer one before it
    // reads it (SQLITE_LIMIT_LENGTH), and Reach never writes one. The kept-string limit of JSON.
    static constexpr int kMaxValueBytes = 16 << 20;
    // One row of a project Reach writes: a value up to the limit above and the rest of its row
    // (SQLite applies its length limit to whole rows as they are written).
    static constexpr int kMaxRowBytes = kMaxValueBytes + (1 << 20);
    // One SQL statement, Reach's own and each one in the file's schema.
    static constexpr int kMaxSqlBytes = 1 << 20;
    // Everything SQLite allocates in the process (its hard heap limit): the schema it parses, page
    // caches, and the temporary tables and sorters it keeps in memory (temp_store = MEMORY).
    static constexpr int64_t kMaxHeapBytes = int64_t(512) << 20;
    // How long one statement may work before it returns its next row (or finishes): a base plus
    // one second per kBytesPerExtraSecond of the file, so that a pass over a large real file is
    // never cut short while a statement that loops is.
    static constexpr std::chrono::milliseconds kStepBase{10'000};
    static constexpr uint64_t kBytesPerExtraSecond = uint64_t(16) << 20;
    // SQLite instructions between two calls of the progress handler (a look at the clock).
    static constexpr int kOpsPerCheck = 1000;

    static std::chrono::milliseconds stepBudget(uint64_t fileBytes) {
        return kStepBase + std::chrono::seconds(fileBytes / kBytesPerExtraSecond);
    }
};

// The time budget of one connection's statements, checked by its progress handler. The
// connection's trace callback calls arm() when a statement starts and after each row; the
// progress handler calls spent(), and a true answer interrupts the statement (SQLITE_INTERRUPT).
// arm() only sets a flag: the clock is read by spent(), every SqliteLimits::kOpsPerCheck
// instructions, not once per row. One connection, one thread (as for SQLite connections here).
class StatementBudget {
public:
    enum class Reason { None, Time, Stop };

    explicit StatementBudget(std::chrono::milliseconds perStep, std::stop_token stop = {})
        : m_perStep(perStep), m_stop(std::move(stop)) {}

    void setPerStep(std::chrono::milliseconds perStep) { m_perStep = perStep; }
    std::chrono::milliseconds perStep() const { return m_perStep; }
    void setStop(std::stop_token stop) { m_stop = std::move(stop); }

    void arm() { m_rearm = true; }

    bool spent() {
        if (m_stop.stop_requested()) {
            m_reason = Reason::Stop;
            return true;
        }
        const auto now = std::chrono::steady_clock::now();
        if (std::exchange(m_rearm, false)) {
            m_deadline = now + m_perStep;
            return false;
        }
        if (now > m_deadline) {
            m_reason = Reason::Time;
            return true;
        }
        return false;
    }

    // Why the last interrupted statement was interrupted; reading it resets it.
    Reason takeReason() { return std::exchange(m_reason, Reason::None); }

private:
    std::chrono::milliseconds m_perStep;
    std::stop_token m_stop;
    bool m_rearm = true;
    std::chrono::steady_clock::time_point m_deadline = std::chrono::steady_clock::time_point::max();
    Reason m_reason = Reason::None;
};

}  // namespace reach
