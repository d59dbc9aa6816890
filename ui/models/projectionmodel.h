#pragma once

#include <QAbstractTableModel>

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/projection.h"
#include "core/project/project.h"
#include "ui/qtstrings.h"

namespace reach {

// Projected gain per workload for one (win rate, median speedup) pair, from the study's
// summary formula A * w * (1 - 1/m) (core projectSummary). Workloads reset the model; moving
// the sliders only changes the computed columns (dataChanged), so views keep their selection.
class ProjectionModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // GainPercent and EndToEnd are of GPU time; WallGainPercent the same saving of the profiled
    // wall clock (idle gaps unchanged), BusyShare the GPU's busy share of the span beside it.
    enum Column {
        Name = 0,
        Origin,
        AddressableShare,
        GainPercent,
        EndToEnd,
        WallGainPercent,
        BusyShare,
        ColumnCount
    };
    static constexpr int ValueRole = Qt::UserRole;  // raw number: fraction, percent, factor

    explicit ProjectionModel(QObject* parent = nullptr);

    void setWorkloads(const std::vector<ProjectWorkload>& workloads);
    void setParameters(double winRate, double medianSpeedup);
    double winRate() const { return m_winRate; }
    double medianSpeedup() const { return m_median; }

    const Projection& projection(int row) const { return m_rows[size_t(row)].projection; }
    const ProjectWorkload& workload(int row) const { return m_rows[size_t(row)].entry; }
    double gainPercent(int row) const { return 100.0 * projection(row).savedShare; }

    // The exact projection of a workload from its own benchmark and verified kernels (core
    // exactProjectionOf; docs/benchmark.md), shown beside the study's bar. Kept by the profile's
    // SHA-256 (what the benchmark was made from): a re-classification rebuilds the rows, not the
    // verified results, and a published row of the same name never shows it.
    struct Exact {
        double savedPercent = 0;              // of GPU time
        double loPercent = 0, hiPercent = 0;  // its bootstrap interval
        int winners = 0, problems = 0;
        QString benchmark;    // the folder it came from
        QStringList records;  // the verify results it counted or showed
    };
    void setExact(const std::string& profileSha256, std::optional<Exact> exact);
    // The exact projection of a benchmark folder and the verify results of its problems (core
    // exactProjectionOf, as reach-cli project --benchmark), set beside `row`, or beside the row
    // of the profile the folder was made from when `row` is -1: the GUI's Exact projection >
    // "From its benchmark and verify results..." and reach-cli figure projection --benchmark.
    // Returns the row; `warnings` gets the runs shown but not counted (another precision, a pass
    // Reach did not sign here). Throws InputError naming the file that is wrong, or the row's
    // lack of a profile.
    int attachBenchmark(const std::string& dir, const std::vector<std::string>& records,
                        int row = -1, std::vector<std::string>* warnings = nullptr);
    std::optional<Exact> exact(int row) const;
    bool anyExact() const;

    // What an integration run measured for the workload (reach-cli integrate, core
    // readIntegrationSummary; docs/integration.md): the GPU time its verified kernels saved in
    // place, beside what was projected. Kept by the profile's SHA-256 as the exact projection.
    struct Measured {
        double savedPercent = 0;                 // median over the pairs of runs, of GPU time
        double lowPercent = 0, highPercent = 0;  // the pairs' range
        std::optional<double> wallSavedPercent;
        std::string wallClockSteps;              // "unprofiled" or "profiled": where it was read
        std::optional<double> projectedPercent;  // the exact projection on the as-is run
        int pairs = 0, winners = 0;
        QString document;
        nlohmann::json runs;  // the runs, for the figure's provenance
        // Reach signed it here and nothing in it doubts it (core IntegrationSummary): drawn as
        // measured; otherwise as a claim, with why (issue 37).
        bool measuredHere = false;
        std::string claimedWhy;
    };
    void setMeasured(const std::string& profileSha256, std::optional<Measured> measured);
    std::optional<Measured> measured(int row) const;
    bool anyMeasured() const;
    // An integration document (core readIntegrationSummary) set beside the row of the profile
    // its benchmark was made from: the GUI's "Measured: an integration run..." and reach-cli
    // figure projection --integration. Throws InputError naming the document when it is
    // unreadable, belongs to no row, or has no GPU time (a --device cpu run). A document Reach
    // did not sign here, or whose saving is past the row's speed-of-light bound, is kept as a
    // claim.
    void attachIntegration(const std::string& document);
    // The rows' integration runs, for a figure's provenance (empty when none), and their
    // documents (a figure's inputs).
    nlohmann::json integrationProvenance() const;
    QStringList integrationDocuments() const;
    // The rows' exact projections, for a figure's provenance (the benchmark folder and the verify
    // results behind each; empty when none), and those paths (a figure's inputs).
    nlohmann::json exactProvenance() const;
    QStringList exactInputs() const;
    // Every exact projection and measured run dropped: the user's "Remove", and a project opened
    // (issue 40: they survived reopening the sample and could not be removed).
    void clearOverlays();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

signals:
    void exactChanged();  // the exact projection or the measured run of a row

private:
    struct Row {
        ProjectWorkload entry;
        Projection projection;
    };
    void recompute();
    template <class T>
    std::optional<T> ofRow(const std::map<std::string, T>& byProfile, int row) const;
    template <class T>
    void keep(std::map<std::string, T>& byProfile, const std::string& profileSha256,
              std::optional<T> value);

    std::vector<Row> m_rows;
    std::map<std::string, Exact> m_exact;
    std::map<std::string, Measured> m_measured;
    double m_winRate = kDlrmBenchWinRate;
    double m_median = kDlrmBenchMedianSpeedup;
};

}  // namespace reach
