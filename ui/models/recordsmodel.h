#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "core/records/evalrecord.h"
#include "core/records/recordstats.h"
#include "core/records/suspicion.h"

namespace reach {

// One evaluation set as the speedup view shows it: a name (a file, a model) and its records.
struct RecordSet {
    QString name;
    std::vector<EvalRecord> records;
    std::optional<int> denominator;  // the study's 56 for KernelBench L1; attempted when unset
};

// Where a row's record sits: set index and index within the set.
struct RecordRef {
    int set = -1;
    int record = -1;
    bool operator==(const RecordRef&) const = default;
};

// The evaluation records of every set, one row each: the single source of truth that the speedup
// plot copies from. Suspicion flags are computed here (core/records/suspicion.h) and recomputed
// when a verification result changes a record, so the plot and the table never disagree.
class RecordsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        SetColumn,
        ProblemColumn,
        ModelColumn,
        BackendColumn,
        CorrectColumn,
        SpeedupColumn,
        CandidateColumn,
        BaselineColumn,
        VerificationColumn,
        FlagsColumn,
        ColumnCount
    };
    // Numeric value for sorting (speedup, times); the display text otherwise.
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int SuspiciousRole = Qt::UserRole + 2;  // bool

    explicit RecordsModel(QObject* parent = nullptr);

    void setSets(std::vector<RecordSet> sets);
    void setSuspicionOptions(SuspicionOptions options);
    // What counts as a win in the statistics and the legend (core StatsOptions::winThreshold).
    void setWinThreshold(double threshold);
    double winThreshold() const { return m_winThreshold; }
    const std::vector<RecordSet>& sets() const { return m_sets; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    RecordRef refForRow(int row) const;
    int rowFor(RecordRef ref) const;  // -1 when out of range
    const EvalRecord& record(RecordRef ref) const;
    // Flags that warrant a rerun: every suspicion except "not yet verified" (that one applies to
    // almost every imported record and would mark everything).
    const std::vector<Suspicion>& suspicions(RecordRef ref) const;
    bool isSuspicious(RecordRef ref) const;
    std::vector<RecordRef> suspiciousRecords() const;
    // A stable key for VerifyQueue jobs: "set/index".
    static QString keyFor(RecordRef ref);
    std::optional<RecordRef> refForKey(const QString& key) const;

    // The study's statistics of one set (per problem, best sample; core/records/recordstats.h).
    const RecordStats& stats(int set) const { return m_stats.at(size_t(set)); }

    // What the verifier said about a record: updates its status, reasons and flags.
    void setVerification(RecordRef ref, Verification verdict, std::vector<std::string> reasons,
                         std::optional<double> floorUs = std::nullopt);

signals:
    // A record's verification changed (the plot re-marks its point).
    void recordChanged(reach::RecordRef ref);

private:
    void recompute(int set);

    std::vector<RecordSet> m_sets;
    std::vector<int> m_firstRow;  // first row of each set
    std::vector<std::vector<std::vector<Suspicion>>> m_flags;
    std::vector<RecordStats> m_stats;
    SuspicionOptions m_suspicionOptions;
    double m_winThreshold = 1.0;
    int m_rows = 0;
};

}  // namespace reach
