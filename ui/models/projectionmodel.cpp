#include "ui/models/projectionmodel.h"

#include "core/base/inputerror.h"
#include "core/ownbenchmark/exactprojectionreport.h"
#include "core/ownbenchmark/integrationsummary.h"

#include <QColor>

namespace reach {

ProjectionModel::ProjectionModel(QObject* parent) : QAbstractTableModel(parent) {}

void ProjectionModel::setWorkloads(const std::vector<ProjectWorkload>& workloads) {
    beginResetModel();
    m_rows.clear();
    for (const ProjectWorkload& w : workloads)
        m_rows.push_back({w, {}});
    recompute();
    endResetModel();
}

void ProjectionModel::setParameters(double winRate, double medianSpeedup) {
    if (winRate == m_winRate && medianSpeedup == m_median)
        return;
    m_winRate = winRate;
    m_median = medianSpeedup;
    recompute();
    if (!m_rows.empty())
        emit dataChanged(index(0, GainPercent), index(rowCount() - 1, WallGainPercent));
}

void ProjectionModel::recompute() {
    for (Row& r : m_rows) {
        r.projection = projectWorkload(r.entry, m_winRate, m_median);
    }
}

int ProjectionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ProjectionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProjectionModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Row& r = m_rows[size_t(index.row())];
    const Projection& p = r.projection;
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Name:
                return toQString(r.entry.name);
            case Origin:
                return toQString(r.entry.origin);
            case AddressableShare:
                return QString::number(100.0 * p.addressableShare, 'f', 1) + QLatin1Char('%');
            case GainPercent:
                return QString::number(100.0 * p.savedShare, 'f', 2) + QLatin1Char('%');
            case EndToEnd:
                return QString::number(p.endToEndSpeedup, 'f', 4) + QLatin1Char('x');
            case WallGainPercent:
                if (const auto wall = p.wallSavedShare())
                    return QString::number(100.0 * *wall, 'f', 2) + QLatin1Char('%');
                return tr("no span");
            case BusyShare:
                if (p.wall)
                    return QString::number(100.0 * p.wall->busyShare(), 'f', 1) + QLatin1Char('%');
                return tr("no span");
        }
    }
    if (role == Qt::ToolTipRole) {
        if (index.column() == WallGainPercent || index.column() == BusyShare) {
            if (!p.wall)
                return tr("A published row has GPU-time shares only: no profiled span.");
            const std::string warning = wallClockWarning(*p.wall);
            return warning.empty() ? tr("Saved GPU time over the profiled span, idle gaps as "
                                        "they are.")
                                   : toQString(warning);
        }
    }
    if (role == Qt::ForegroundRole && index.column() == BusyShare && p.wall && p.wall->mostlyIdle())
        return QColor(0xb0, 0x50, 0x00);
    if (role == ValueRole) {
        switch (index.column()) {
            case AddressableShare:
                return p.addressableShare;
            case GainPercent:
                return 100.0 * p.savedShare;
            case EndToEnd:
                return p.endToEndSpeedup;
            case WallGainPercent:
                if (const auto wall = p.wallSavedShare())
                    return 100.0 * *wall;
                return {};
            case BusyShare:
                if (p.wall)
                    return p.wall->busyShare();
                return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() >= AddressableShare ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                  : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    return {};
}

QVariant ProjectionModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, o, role);
    static const char* names[] = {"Workload",        "Source",     "Addressable",
                                  "Gain (GPU time)", "End-to-end", "Gain (wall clock)",
                                  "GPU busy"};
    return section < ColumnCount ? tr(names[section]) : QVariant();
}

// The exact projection and the measured run are each kept by the profile's SHA-256 of the row.
template <class T>
std::optional<T> ProjectionModel::ofRow(const std::map<std::string, T>& byProfile, int row) const {
    if (row < 0 || row >= rowCount() || !workload(row).breakdown)
        return std::nullopt;
    auto it = byProfile.find(workload(row).breakdown->sourceHash);
    if (it == byProfile.end())
        return std::nullopt;
    return it->second;
}

template <class T>
void ProjectionModel::keep(std::map<std::string, T>& byProfile, const std::string& profileSha256,
                           std::optional<T> value) {
    if (value)
        byProfile[profileSha256] = std::move(*value);
    else
        byProfile.erase(profileSha256);
    emit exactChanged();
}

void ProjectionModel::setExact(const std::string& profileSha256, std::optional<Exact> exact) {
    keep(m_exact, profileSha256, std::move(exact));
}

std::optional<ProjectionModel::Exact> ProjectionModel::exact(int row) const {
    return ofRow(m_exact, row);
}

bool ProjectionModel::anyExact() const {
    for (int row = 0; row < rowCount(); ++row)
        if (exact(row))
            return true;
    return false;
}

void ProjectionModel::clearOverlays() {
    if (m_exact.empty() && m_measured.empty())
        return;
    m_exact.clear();
    m_measured.clear();
    emit exactChanged();
}

void ProjectionModel::setMeasured(const std::string& profileSha256,
                                  std::optional<Measured> measured) {
    keep(m_measured, profileSha256, std::move(measured));
}

std::optional<ProjectionModel::Measured> ProjectionModel::measured(int row) const {
    return ofRow(m_measured, row);
}

bool ProjectionModel::anyMeasured() const {
    for (int row = 0; row < rowCount(); ++row)
        if (measured(row))
            return true;
    return false;
}

int ProjectionModel::attachBenchmark(const std::string& dir,
                                     const std::vector<std::string>& records, int row,
                                     std::vector<std::string>* warnings) {
    BenchmarkFolder benchmark = readBenchmarkFolder(dir);
    if (row < 0) {
        for (int r = 0; r < rowCount() && row < 0; ++r)
            if (workload(r).breakdown &&
                workload(r).breakdown->sourceHash == benchmark.profileSha256)
                row = r;
        if (row < 0)
            throw InputError(dir + "/benchmark.json", "profile_sha256",
                             "the profile the benchmark was made from (sha256 " +
                                 benchmark.profileSha256.substr(0, 12) + "...) among the inputs");
    }
    if (row >= rowCount() || !workload(row).breakdown)
        throw InputError(dir, "",
                         "a profiled workload beside it (a published table has no kernels)");
    if (records.empty())
        throw InputError(dir, "", "the verify results of the benchmark's problems beside it");
    const ProjectWorkload& w = workload(row);
    const VerifiedRuns runs = readVerifiedRuns(records);
    const ExactProjectionReport report =
        exactProjectionOf(*w.breakdown, w.breakdown->source, std::move(benchmark), runs);
    const ExactProjection& x = report.projection;
    QStringList recordList;
    for (const std::string& r : records)
        recordList << QString::fromStdString(r);
    setExact(w.breakdown->sourceHash,
             Exact{100.0 * x.savedShare, 100.0 * x.savedInterval.lo, 100.0 * x.savedInterval.hi,
                   x.winners, int(report.benchmark.problems.size()), QString::fromStdString(dir),
                   recordList});
    if (warnings) {
        for (const std::string& why : report.otherPrecision)
            warnings->push_back(why);
        for (const std::string& why : report.claimed)  // shown, never counted (issue 37)
            warnings->push_back(why);
    }
    return row;
}

void ProjectionModel::attachIntegration(const std::string& document) {
    IntegrationSummary s = readIntegrationSummary(document);
    const Breakdown* breakdown = nullptr;
    for (int r = 0; r < rowCount() && !breakdown; ++r)
        if (workload(r).breakdown && workload(r).breakdown->sourceHash == s.profileSha256)
            breakdown = workload(r).breakdown.get();
    if (!breakdown)
        throw InputError(document, "profile_sha256",
                         "the profile its benchmark was made from (sha256 " +
                             s.profileSha256.substr(0, 12) + "...) loaded; open it first");
    if (!s.gpuGain)
        throw InputError(document, "measured.gpu_time_saved_share",
                         "a run with GPU time (this one ran with --device cpu)");
    Measured m;
    m.savedPercent = 100.0 * s.gpuGain->median;
    m.lowPercent = 100.0 * s.gpuGain->low;
    m.highPercent = 100.0 * s.gpuGain->high;
    if (s.wallGain)
        m.wallSavedPercent = 100.0 * s.wallGain->median;
    m.wallClockSteps = s.wallClockSteps;
    if (s.projectedSavedShare)
        m.projectedPercent = 100.0 * *s.projectedSavedShare;
    m.pairs = s.pairs;
    m.winners = s.winners;
    m.document = QString::fromStdString(document);
    m.runs = s.runList;
    checkAgainstSpeedOfLight(s, maxSavedShareOf(*breakdown));
    m.measuredHere = s.measuredHere();
    for (const std::string& why : s.doubts)
        m.claimedWhy += (m.claimedWhy.empty() ? "" : "; ") + why;
    setMeasured(s.profileSha256, std::move(m));
}

nlohmann::json ProjectionModel::integrationProvenance() const {
    nlohmann::json out = nlohmann::json::array();
    for (int row = 0; row < rowCount(); ++row)
        if (const auto m = measured(row))
            out.push_back({{"workload", workload(row).name},
                           {"document", m->document.toStdString()},
                           {"measured_saved_percent_of_gpu_time", m->savedPercent},
                           {"evidence", m->measuredHere ? "measured here" : "claimed"},
                           {"evidence_why",
                            m->measuredHere ? nlohmann::json() : nlohmann::json(m->claimedWhy)},
                           {"pairs", m->pairs},
                           {"runs", m->runs}});
    return out;
}

nlohmann::json ProjectionModel::exactProvenance() const {
    nlohmann::json out = nlohmann::json::array();
    for (int row = 0; row < rowCount(); ++row)
        if (const auto x = exact(row)) {
            nlohmann::json records = nlohmann::json::array();
            for (const QString& r : x->records)
                records.push_back(r.toStdString());
            out.push_back({{"workload", workload(row).name},
                           {"benchmark", x->benchmark.toStdString()},
                           {"verify_results", records},
                           {"exact_saved_percent_of_gpu_time", x->savedPercent},
                           {"winners", x->winners},
                           {"problems", x->problems}});
        }
    return out;
}

QStringList ProjectionModel::exactInputs() const {
    QStringList out;
    for (int row = 0; row < rowCount(); ++row)
        if (const auto x = exact(row))
            out << x->benchmark << x->records;
    return out;
}

QStringList ProjectionModel::integrationDocuments() const {
    QStringList out;
    for (int row = 0; row < rowCount(); ++row)
        if (const auto m = measured(row))
            out << m->document;
    return out;
}

}  // namespace reach
