#include "ui/models/recordsmodel.h"
#include "ui/qtstrings.h"

#include <QBrush>
#include <QColor>
#include <algorithm>

namespace reach {

namespace {

QString timeText(const std::optional<double>& us) {
    return us ? QString::number(*us, 'f', *us < 100 ? 2 : 1) : QString();
}

}  // namespace

RecordsModel::RecordsModel(QObject* parent) : QAbstractTableModel(parent) {}

void RecordsModel::setSuspicionOptions(SuspicionOptions options) {
    beginResetModel();
    m_suspicionOptions = std::move(options);
    for (size_t s = 0; s < m_sets.size(); ++s)
        recompute(int(s));
    endResetModel();
}

void RecordsModel::setWinThreshold(double threshold) {
    if (threshold == m_winThreshold)
        return;
    beginResetModel();
    m_winThreshold = threshold;
    for (size_t s = 0; s < m_sets.size(); ++s)
        recompute(int(s));
    endResetModel();
}

void RecordsModel::setSets(std::vector<RecordSet> sets) {
    beginResetModel();
    m_sets = std::move(sets);
    m_firstRow.clear();
    m_flags.assign(m_sets.size(), {});
    m_stats.assign(m_sets.size(), {});
    m_rows = 0;
    for (size_t s = 0; s < m_sets.size(); ++s) {
        m_firstRow.push_back(m_rows);
        m_rows += int(m_sets[s].records.size());
        recompute(int(s));
    }
    endResetModel();
}

void RecordsModel::recompute(int set) {
    const RecordSet& rs = m_sets[size_t(set)];
    auto& flags = m_flags[size_t(set)];
    flags.clear();
    for (const EvalRecord& r : rs.records) {
        std::vector<Suspicion> all = suspicionsFor(r, m_suspicionOptions);
        std::erase_if(all, [](const Suspicion& s) { return s.kind == SuspicionKind::NotVerified; });
        flags.push_back(std::move(all));
    }
    StatsOptions options;
    options.denominator = rs.denominator;
    // The same basis as the set's summary (core/records/evaluationset.h): verified winners once
    // Reach has judged any record. The legend needs point estimates only, not intervals.
    options.basis = defaultBasis(rs.records);
    options.intervals = false;
    options.winThreshold = m_winThreshold;
    m_stats[size_t(set)] = computeRecordStats(problemOutcomes(rs.records, options.basis),
                                              rs.name.toStdString(), options);
}

int RecordsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_rows;
}

int RecordsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

RecordRef RecordsModel::refForRow(int row) const {
    if (row < 0 || row >= m_rows)
        return {};
    auto it = std::upper_bound(m_firstRow.begin(), m_firstRow.end(), row);
    const int set = int(it - m_firstRow.begin()) - 1;
    return {set, row - m_firstRow[size_t(set)]};
}

int RecordsModel::rowFor(RecordRef ref) const {
    if (ref.set < 0 || ref.set >= int(m_sets.size()) || ref.record < 0 ||
        ref.record >= int(m_sets[size_t(ref.set)].records.size())) {
        return -1;
    }
    return m_firstRow[size_t(ref.set)] + ref.record;
}

const EvalRecord& RecordsModel::record(RecordRef ref) const {
    return m_sets.at(size_t(ref.set)).records.at(size_t(ref.record));
}

const std::vector<Suspicion>& RecordsModel::suspicions(RecordRef ref) const {
    return m_flags.at(size_t(ref.set)).at(size_t(ref.record));
}

bool RecordsModel::isSuspicious(RecordRef ref) const {
    return !suspicions(ref).empty();
}

std::vector<RecordRef> RecordsModel::suspiciousRecords() const {
    std::vector<RecordRef> out;
    for (size_t s = 0; s < m_sets.size(); ++s) {
        for (size_t i = 0; i < m_sets[s].records.size(); ++i) {
            if (!m_flags[s][i].empty())
                out.push_back({int(s), int(i)});
        }
    }
    return out;
}

QString RecordsModel::keyFor(RecordRef ref) {
    return QStringLiteral("%1/%2").arg(ref.set).arg(ref.record);
}

std::optional<RecordRef> RecordsModel::refForKey(const QString& key) const {
    const QStringList parts = key.split('/');
    if (parts.size() != 2)
        return std::nullopt;
    bool ok1 = false, ok2 = false;
    RecordRef ref{parts[0].toInt(&ok1), parts[1].toInt(&ok2)};
    if (!ok1 || !ok2 || rowFor(ref) < 0)
        return std::nullopt;
    return ref;
}

void RecordsModel::setVerification(RecordRef ref, Verification verdict,
                                   std::vector<std::string> reasons,
                                   std::optional<double> floorUs) {
    const int row = rowFor(ref);
    if (row < 0)
        return;
    EvalRecord& r = m_sets[size_t(ref.set)].records[size_t(ref.record)];
    r.verification = verdict;
    r.verificationReasons = std::move(reasons);
    if (floorUs && *floorUs > 0)
        r.rooflineFloorUs = floorUs;
    recompute(ref.set);  // flags of this record and the set's verified statistics
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    emit recordChanged(ref);
}

QVariant RecordsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows || index.column() >= ColumnCount)
        return {};
    const RecordRef ref = refForRow(index.row());
    const EvalRecord& r = record(ref);
    const auto& flags = suspicions(ref);
    if (role == SuspiciousRole)
        return !flags.empty();
    if (role == SortRole) {
        switch (index.column()) {
            case SpeedupColumn:
                return r.speedup ? *r.speedup : -1.0;
            case CandidateColumn:
                return r.candidateTimeUs ? *r.candidateTimeUs : -1.0;
            case BaselineColumn: {
                const auto b = r.effectiveBaselineUs();
                return b ? *b : -1.0;
            }
            default:
                return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case SetColumn:
                return m_sets[size_t(ref.set)].name;
            case ProblemColumn:
                return toQString(r.problemName.empty() ? r.problemId : r.problemName);
            case ModelColumn:
                return toQString(r.model);
            case BackendColumn:
                return toQString(r.backend);
            case CorrectColumn:
                return r.correct ? tr("yes") : (r.compiled ? tr("no") : tr("no (compile)"));
            case SpeedupColumn:
                return r.speedup ? QStringLiteral("%1x").arg(*r.speedup, 0, 'f', 3) : QString();
            case CandidateColumn:
                return timeText(r.candidateTimeUs);
            case BaselineColumn:
                return timeText(r.effectiveBaselineUs());
            case VerificationColumn:
                return toQString(std::string(verificationKey(r.verification)));
            case FlagsColumn: {
                QStringList keys;
                for (const Suspicion& s : flags)
                    keys << toQString(std::string(suspicionKey(s.kind)));
                return keys.join(QStringLiteral(", "));
            }
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == FlagsColumn || index.column() == VerificationColumn) {
            QStringList lines;
            for (const Suspicion& s : flags)
                lines << toQString(s.reason);
            for (const std::string& reason : r.verificationReasons)
                lines << toQString(reason);
            return lines.join('\n');
        }
        if (index.column() == ProblemColumn) {
            return toQString(r.artifactPath.empty() ? r.problemName : r.artifactPath);
        }
    }
    if (role == Qt::ForegroundRole && !flags.empty() &&
        (index.column() == FlagsColumn || index.column() == SpeedupColumn)) {
        return QBrush(QColor(0xd5, 0x5e, 0x00));  // Okabe-Ito vermillion, as the plot marks
    }
    if (role == Qt::TextAlignmentRole && index.column() >= SpeedupColumn &&
        index.column() <= BaselineColumn) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant RecordsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return QAbstractTableModel::headerData(section, orientation, role);
    }
    switch (section) {
        case SetColumn:
            return tr("Set");
        case ProblemColumn:
            return tr("Problem");
        case ModelColumn:
            return tr("Model");
        case BackendColumn:
            return tr("Backend");
        case CorrectColumn:
            return tr("Correct");
        case SpeedupColumn:
            return tr("Speedup");
        case CandidateColumn:
            return tr("Candidate (µs)");
        case BaselineColumn:
            return tr("Baseline (µs)");
        case VerificationColumn:
            return tr("Verified");
        case FlagsColumn:
            return tr("Flags");
    }
    return {};
}

}  // namespace reach
